"""``GpuFleet`` taking a ``GpuPlatform`` of the same program as a member: its cloud, pools, system pool and
controllers come from the platform's spec, its kubeconfig from the platform's output; a platform running its own
Kueue, or a second ``GpuPlatform`` in the program, is refused naming the member."""

from __future__ import annotations

from typing import Any, cast

import pytest

from gpu_platform import GpuFleet, GpuPlatform
from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import Plan, run_program
from tests.addons.fleet.fleet_args import KUBECONFIG, L4

KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"
H100_PLATFORM: dict[str, Any] = {
    "cloud": "gke",
    "cluster": {
        "name": "gke-h100",
        "project": "p",
        "region": "us-central1",
        "system_pool": {"machine_type": "e2-standard-4", "min_nodes": 1, "max_nodes": 3},
    },
    "gpu_pools": [{"name": "h100", "machine_type": "a3-highgpu-8g", "min_nodes": 0, "max_nodes": 2}],
    "kueue": {"enabled": False},
    "workloads": {"jobset": {"enabled": True}},
}
QUEUES: dict[str, Any] = {
    "cluster_queues": [
        {"name": "training", "pools": ["h100"], "workers": ["gke"], "frameworks": ["jobset.x-k8s.io/jobset"]},
        {"name": "inference", "pools": ["l4"], "workers": ["eks-l4"]},
    ],
    "teams": [
        {"name": "research", "cluster_queue": "training"},
        {"name": "serving", "cluster_queue": "inference"},
    ],
}
EKS_WORKER = {"name": "eks-l4", "kubeconfig": KUBECONFIG, "cloud": "eks", "pools": [dict(L4)]}
MANAGER = {"kubeconfig": KUBECONFIG, "controllers": ["jobset"]}


def _platform(**changes: Any) -> GpuPlatform:
    return GpuPlatform("gke", cast(Any, {**H100_PLATFORM, **changes}))


@pytest.fixture(scope="module")
def plan() -> Plan:
    def program() -> None:
        GpuFleet("fleet", cast(Any, {**QUEUES, "manager": MANAGER, "workers": [_platform(), EKS_WORKER]}))

    return run_program(program)


def _gpus(r: Any) -> dict[str, Any]:
    (group,) = r.inputs["spec"]["resourceGroups"]
    return {
        f["name"]: {x["name"]: x["nominalQuota"] for x in f["resources"]}.get("nvidia.com/gpu")
        for f in group["flavors"]
    }


def test_a_platform_worker_is_named_by_its_resource_and_quota_is_its_pools(plan: Plan) -> None:
    releases = {
        r.name for r in plan.by_type("kubernetes:helm.sh/v3:Release") if r.name.endswith("kueue-helm")
    }
    assert releases == {"fleet-manager-kueue-helm", "fleet-gke-kueue-helm", "fleet-eks-l4-kueue-helm"}
    # 2 x a3-highgpu-8g, and the system flavor from the platform's system pool (no GPU).
    assert _gpus(plan.one(KUEUE + "ClusterQueue", "fleet-gke-kueue-cq-training")) == {
        "system-cpu": 0,
        "h100": 16,
    }
    assert _gpus(plan.one(KUEUE + "ClusterQueue", "fleet-manager-kueue-cq-training")) == {
        "system-cpu": 0,
        "h100": 16,
    }
    assert {r.name for r in plan.by_type(KUEUE + "MultiKueueCluster")} == {
        "fleet-manager-mkc-gke",
        "fleet-manager-mkc-eks-l4",
    }


def test_the_fleet_reaches_the_platform_with_its_kubeconfig_output(plan: Plan) -> None:
    provider = plan.one("pulumi:providers:kubernetes", "fleet-gke")
    assert provider.inputs["kubeconfig"] == "[secret]"  # the platform's kubeconfig output: a secret
    platform_cluster = plan.one("gcp:container/cluster:Cluster", "gke-h100-cluster")
    assert platform_cluster.urn in provider.depends_on
    account = plan.one("kubernetes:core/v1:ServiceAccount", "fleet-gke-sa")
    assert "fleet-gke::" in str(account.provider)
    # The platform's own Kueue is off: the only Kueue on that cluster is the fleet's.
    assert not [r for r in plan.by_type("gpu-platform:index:Kueue") if r.name == "kueue"]


def test_worker_gives_the_arguments_a_platform_stands_for() -> None:
    found: dict[str, Any] = {}

    def program() -> None:
        platform = _platform()
        found.update(GpuFleet.worker("h100s", platform))
        found["manager"] = GpuFleet.manager(platform)

    run_program(program)
    assert {k: v for k, v in found.items() if k not in ("kubeconfig", "manager")} == {
        "name": "h100s",
        "cloud": "gke",
        "pools": H100_PLATFORM["gpu_pools"],
        "system_pool": {"machine_type": "e2-standard-4", "min_nodes": 1, "max_nodes": 3},
        "controllers": ["jobset"],
    }
    assert found["manager"]["controllers"] == ["jobset"]


def test_a_platform_running_its_own_kueue_is_refused() -> None:
    def program() -> None:
        workers = [_platform(kueue={"enabled": True}), EKS_WORKER]
        GpuFleet("fleet", cast(Any, {**QUEUES, "manager": MANAGER, "workers": workers}))

    with pytest.raises(
        ArgumentsError, match=r"GpuFleet 'fleet': workers\[0\]: GpuPlatform 'gke' installs Kueue"
    ):
        run_program(program)


def test_a_second_platform_in_the_program_is_refused() -> None:
    def program() -> None:
        eks = GpuPlatform(
            "eks",
            {
                "cloud": "eks",
                "cluster": {"name": "eks-l4", "region": "us-east-1"},
                "gpu_pools": [cast(Any, dict(L4))],
                "kueue": {"enabled": False},
            },
        )
        GpuFleet("fleet", cast(Any, {**QUEUES, "manager": MANAGER, "workers": [_platform(), eks]}))

    with pytest.raises(ArgumentsError, match=r"workers\[1\]: a second GpuPlatform in one program"):
        run_program(program)
