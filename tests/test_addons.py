"""The add-on registry is the only list of add-ons: everything derived from it stays what it was."""

from __future__ import annotations

from gpu_platform import addons, versions
from gpu_platform.args.workloads import Controller
from gpu_platform.clouds.eks import karpenter_plan as karpenter
from gpu_platform.offline.diff import CRD_CHARTS, is_stateful
from gpu_platform.plans import dra, kueue, volcano
from gpu_platform.resolve.kubernetes import RESERVED_NAMESPACES
from gpu_platform.resolve.volcano import CONTROLLER_NAMESPACES
from gpu_platform.resolve.workloads import INSTALLABLE, SECTION_KEY, TOLERATION_PATHS, VOLCANO_CAPABLE


def test_one_entry_per_chart_in_the_order_of_all_charts() -> None:
    assert tuple(a.pin for a in addons.ADDONS) == versions.ALL_CHARTS
    assert len(addons.BY_KEY) == len(addons.ADDONS)
    assert len({a.chart_name for a in addons.ADDONS}) == len(addons.ADDONS)


def test_release_names_agree_with_the_plans() -> None:
    assert addons.KUEUE.release_name == kueue.HELM_RELEASE_NAME
    assert addons.VOLCANO.release_name == volcano.HELM_RELEASE_NAME
    assert addons.DRA_DRIVER.release_name == dra.RELEASE_NAME
    assert addons.KARPENTER.release_name == karpenter.RELEASE_NAME
    assert addons.KARPENTER_CRD.release_name == karpenter.CRD_RELEASE_NAME


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
    for a in addons.ADDONS:
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
    }
    assert set(RESERVED_NAMESPACES) >= {a.namespace for a in addons.ADDONS}
    assert CONTROLLER_NAMESPACES == {
        "jobset-system": "JobSet's namespace",
        "lws-system": "LeaderWorkerSet's namespace",
        "kubeflow-system": "Kubeflow Trainer's namespace",
        "kuberay-system": "KubeRay's namespace",
        "volcano-system": "Volcano's own namespace (its webhooks skip it)",
        "slurm": "the Slurm cluster's namespace",
    }


def test_gang_schedulers() -> None:
    assert [a.key for a in addons.ADDONS if a.gang_scheduler] == ["kueue", "volcano", "slurm"]


def test_every_framework_an_addon_serves_is_a_kueue_integration() -> None:
    from gpu_platform.resolve.kueue import KNOWN_FRAMEWORKS

    assert {fw for a in addons.ADDONS for fw in a.kueue_frameworks} <= set(KNOWN_FRAMEWORKS)


def test_pool_owners_first_queue_wins_and_a_queue_without_pools_takes_the_rest() -> None:
    from gpu_platform.resolve.kueue import ClusterQueue, given_cluster_queues, pool_owners

    queues = [ClusterQueue("a", ("p2", "x")), ClusterQueue("b"), ClusterQueue("c", ("p1",))]
    assert pool_owners(queues, ["p1", "p2", "p3"]) == {"p2": 0, "p1": 1, "p3": 1}
    assert given_cluster_queues({}) == [ClusterQueue("gpu")]
    assert given_cluster_queues({"cluster_queues": [{"name": "q", "pools": ["p1"]}]}) == [
        ClusterQueue("q", ("p1",))
    ]
