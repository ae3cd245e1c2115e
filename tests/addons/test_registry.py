"""The add-on registry is the only list of add-ons: everything derived from it stays what it was."""

from __future__ import annotations

import pytest

from gpu_platform import releases, versions
from gpu_platform.addons import registry
from gpu_platform.addons.dra import plan as dra
from gpu_platform.addons.kueue import plan as kueue
from gpu_platform.addons.volcano import plan as volcano
from gpu_platform.addons.volcano.checks import CONTROLLER_NAMESPACES
from gpu_platform.addons.workloads.checks import INSTALLABLE, SECTION_KEY, TOLERATION_PATHS, VOLCANO_CAPABLE
from gpu_platform.addons.workloads.settings import Controller
from gpu_platform.clouds.eks import karpenter_plan as karpenter
from gpu_platform.clouds.registry import WIRING
from gpu_platform.offline.diff import CRD_CHARTS, is_stateful
from gpu_platform.resolve.kubernetes import RESERVED_NAMESPACES


def test_one_entry_per_chart_in_the_order_of_all_charts() -> None:
    assert tuple(a.pin for a in releases.ADDONS) == releases.ALL_CHARTS
    assert len(releases.BY_KEY) == len(releases.ADDONS)
    assert len({a.chart_name for a in releases.ADDONS}) == len(releases.ADDONS)
    assert len(set(releases.ALL_CHARTS)) == len(releases.ALL_CHARTS)
    assert all(isinstance(pin, versions.ChartPin) for pin in releases.ALL_CHARTS)


def test_every_release_belongs_to_exactly_one_addon_or_cloud() -> None:
    owners: dict[str, list[str]] = {}
    for entry in registry.ADDONS:
        for release in entry.releases:
            owners.setdefault(release.key, []).append(f"addon {entry.name}")
    for cloud, load in WIRING.items():
        for release in load().releases:
            owners.setdefault(release.key, []).append(f"cloud {cloud}")
    assert {key: len(found) for key, found in owners.items()} == {a.key: 1 for a in releases.ADDONS}, owners


def test_the_old_chart_table_resolves_to_the_derived_one_with_a_warning() -> None:
    with pytest.warns(DeprecationWarning, match="gpu_platform.versions.ALL_CHARTS moved"):
        assert versions.ALL_CHARTS == releases.ALL_CHARTS


def test_release_names_agree_with_the_plans() -> None:
    assert releases.KUEUE.release_name == kueue.HELM_RELEASE_NAME
    assert releases.VOLCANO.release_name == volcano.HELM_RELEASE_NAME
    assert releases.DRA_DRIVER.release_name == dra.RELEASE_NAME
    assert releases.KARPENTER.release_name == karpenter.RELEASE_NAME
    assert releases.KARPENTER_CRD.release_name == karpenter.CRD_RELEASE_NAME


def test_workload_controllers_are_the_installable_controllers() -> None:
    assert INSTALLABLE == ("jobset", "leaderWorkerSet", "trainer", "kuberay")
    assert all(Controller(key) for key in INSTALLABLE)
    assert SECTION_KEY == {
        "jobset": "jobset",
        "leaderWorkerSet": "leader_worker_set",
        "trainer": "trainer",
        "kuberay": "kuberay",
    }
    assert set(VOLCANO_CAPABLE) == {"leaderWorkerSet", "trainer", "kuberay"}
    assert set(TOLERATION_PATHS) == {*INSTALLABLE, "volcano"}


def test_charts_whose_release_holds_crds() -> None:
    assert {"kueue", "cert-manager", "kubeflow-trainer", "volcano"} <= CRD_CHARTS
    for a in releases.ADDONS:
        release = {"type": "kubernetes:helm.sh/v3:Release", "inputs": {"chart": a.pin.chart}}
        assert is_stateful(release) == a.release_holds_crds, a.key


def test_reserved_namespaces_are_the_ones_refused_before_the_registry() -> None:
    assert RESERVED_NAMESPACES == {
        "default": "the cluster's shared default namespace",
        "kube-system": "Kubernetes' own namespace",
        "kube-public": "Kubernetes' own namespace",
        "kube-node-lease": "Kubernetes' own namespace",
        "gpu-operator": "the GPU Operator's namespace",
        "kueue-system": "Kueue's namespace",
        "kserve": "KServe's namespace",
        "cert-manager": "cert-manager's namespace",
        "hami-system": "HAMi's namespace",
        # Every other add-on's namespace too, from the registry (no hand-kept list).
        "jobset-system": "JobSet's namespace",
        "lws-system": "LeaderWorkerSet's namespace",
        "kubeflow-system": "Kubeflow Trainer's namespace",
        "kuberay-system": "KubeRay's namespace",
        "volcano-system": "Volcano's own namespace (its webhooks skip it)",
        "dra-driver-nvidia-gpu": "the NVIDIA DRA driver's namespace",
        "nvidia-network-operator": "the NVIDIA Network Operator's namespace",
        "slinky": "the Slinky operator's namespace",
        "slurm": "the Slurm cluster's namespace",
        "monitoring": "the monitoring stack's namespace",
        "envoy-gateway-system": "Envoy Gateway's namespace",
        "envoy-ai-gateway-system": "Envoy AI Gateway's namespace",
        "keda": "KEDA's namespace",
    }
    assert set(RESERVED_NAMESPACES) >= {a.namespace for a in releases.ADDONS}
    assert CONTROLLER_NAMESPACES == {
        "jobset-system": "JobSet's namespace",
        "lws-system": "LeaderWorkerSet's namespace",
        "kubeflow-system": "Kubeflow Trainer's namespace",
        "kuberay-system": "KubeRay's namespace",
        "volcano-system": "Volcano's own namespace (its webhooks skip it)",
        "slurm": "the Slurm cluster's namespace",
    }


def test_gang_schedulers() -> None:
    assert [a.key for a in releases.ADDONS if a.gang_scheduler] == ["kueue", "volcano", "slurm"]


def test_every_framework_an_addon_serves_is_a_kueue_integration() -> None:
    from gpu_platform.addons.kueue.checks import KNOWN_FRAMEWORKS

    assert {fw for a in releases.ADDONS for fw in a.kueue_frameworks} <= set(KNOWN_FRAMEWORKS)


def test_pool_owners_first_queue_wins_and_a_queue_without_pools_takes_the_rest() -> None:
    from gpu_platform.addons.kueue.checks import ClusterQueue, given_cluster_queues, pool_owners

    queues = [ClusterQueue("a", ("p2", "x")), ClusterQueue("b"), ClusterQueue("c", ("p1",))]
    assert pool_owners(queues, ["p1", "p2", "p3"]) == {"p2": 0, "p1": 1, "p3": 1}
    # ``pools: []`` owns nothing (it only borrows in its cohort): the next queue without pools takes the rest.
    borrow_only = [ClusterQueue("a", ("p2",)), ClusterQueue("d", ()), ClusterQueue("b")]
    assert pool_owners(borrow_only, ["p1", "p2", "p3"]) == {"p2": 0, "p1": 2, "p3": 2}
    assert given_cluster_queues({}) == [ClusterQueue("gpu")]
    assert given_cluster_queues(
        {"cluster_queues": [{"name": "q", "pools": ["p1"]}, {"name": "r", "pools": []}, {"name": "s"}]}
    ) == [ClusterQueue("q", ("p1",)), ClusterQueue("r", ()), ClusterQueue("s")]
