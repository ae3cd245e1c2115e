"""A4X (``a4x-highgpu-4g``, GB200 on Grace/Arm): its catalog facts, the Arm taint every library pod on it and its
Kueue flavor tolerate, its GPUDirect RDMA shape with Google's arm64 gIB installer, and the refusal that stands
until the library deploys Google's A4X driver installer."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gpu_platform import versions
from gpu_platform.catalog.gpudirect import RDMA_A4X
from gpu_platform.catalog.topology import GCE_TOPOLOGY
from gpu_platform.clouds import profile_of
from gpu_platform.clouds.gke.gpudirect_plan import daemonsets, gpudirect_plan
from gpu_platform.clouds.gke.node_pool_plan import gke_node_pool_plan
from gpu_platform.clouds.gke.profile import ARM_TAINT
from gpu_platform.driver import DriverPlan
from gpu_platform.errors import ArgumentsError, Problems
from gpu_platform.plans.gpu_health import gpu_health_plan
from gpu_platform.plans.gpu_operator import operand_tolerations
from gpu_platform.plans.kueue import resource_flavor
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cloud_pools import resolve_pools
from gpu_platform.resolve.pools import resolve_pool_list
from gpu_platform.scheduling import pool_tolerations
from tests.conftest import upstream

ARM_TOLERATION = {"key": "kubernetes.io/arch", "operator": "Equal", "value": "arm64", "effect": "NoSchedule"}
A4X = {"name": "gb200", "machine_type": "a4x-highgpu-4g", "max_nodes": 2, "zones": ["us-central1-b"]}
A4 = {"name": "b200", "machine_type": "a4-highgpu-8g", "max_nodes": 2, "zones": ["us-central1-b"]}


def _pools(*pools: dict[str, Any]) -> list[GpuPool]:
    """Resolved without the cloud's pool limits, which refuse A4X today (see the last test)."""
    p = Problems()
    resolved = resolve_pool_list("gke", list(pools), None, lambda i: p.at("pools", i)).pools
    assert not p.items, p.items
    return resolved


def test_the_catalog_has_a4x_as_google_documents_it() -> None:
    m = profile_of("gke").machine("a4x-highgpu-4g")
    assert m is not None
    assert (m.gpus, m.vcpus, m.memory_gib, m.accelerator_type, m.cpu_arch) == (
        4,
        140,
        884,
        "nvidia-gb200",
        "arm64",
    )
    assert (m.gpu.key, m.gpu.memory_gb, m.gpu.mig_capable) == ("gb200-186gb", 186, True)
    assert m.gpudirect == RDMA_A4X and m.topology == GCE_TOPOLOGY
    assert all(x.cpu_arch == "amd64" for x in profile_of("gke").machines.values() if x is not m)


def test_arm_pools_tolerate_gke_s_arm_taint_and_others_do_not() -> None:
    (arm,) = _pools(A4X)
    (x86,) = _pools(A4)
    assert profile_of("gke").added_taints(arm) == [ARM_TAINT]
    assert ARM_TOLERATION in pool_tolerations(arm)
    assert ARM_TOLERATION not in pool_tolerations(x86)
    # The Kueue flavor carries it, so admitted jobs land on the Arm nodes ...
    assert ARM_TOLERATION in resource_flavor(arm)["spec"]["tolerations"]
    assert ARM_TOLERATION not in resource_flavor(x86)["spec"]["tolerations"]
    # ... and so do the GPU Operator's operands and the health checks on the pool's nodes.
    assert ARM_TOLERATION in operand_tolerations([x86, arm])
    assert ARM_TOLERATION in gpu_health_plan("kube-system", [x86, arm]).tolerations
    assert ARM_TOLERATION not in operand_tolerations([x86])


def test_the_node_pool_leaves_the_arm_taint_to_gke() -> None:
    (arm,) = _pools(A4X)
    driver = DriverPlan("cloud", "operator", "operator", None, pool_driver="INSTALLATION_DISABLED")  # type: ignore[arg-type]
    plan = gke_node_pool_plan(arm, driver, {})
    assert ARM_TAINT in plan.taints  # what the nodes carry (the component's taints output)
    assert [t["key"] for t in plan.cloud_taints] == ["nvidia.com/gpu"]  # what Pulumi manages


def _installers(*pools: dict[str, Any]) -> dict[str, dict[str, Any]]:
    plan = gpudirect_plan("c", "us-central1", _pools(*({**p, "gpudirect": True} for p in pools)))
    return {d["metadata"]["name"]: d for d in daemonsets(plan)}


def _affinity(ds: dict[str, Any]) -> list[dict[str, Any]]:
    terms = ds["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]
    (term,) = terms["nodeSelectorTerms"]
    return list(term["matchExpressions"])


def test_a4x_gets_google_s_arm64_gib_installer_on_arm_nodes_only() -> None:
    by_name = _installers(A4X)
    assert sorted(by_name) == ["nccl-rdma-installer-arm64"]
    ds = by_name["nccl-rdma-installer-arm64"]
    (theirs,) = [
        d
        for d in yaml.safe_load_all(
            upstream("gke-gpudirect", "installers", "nccl-rdma-installer-a4x.yaml").read_text()
        )
        if d
    ]
    (their_init,) = theirs["spec"]["template"]["spec"]["initContainers"]
    (init,) = ds["spec"]["template"]["spec"]["initContainers"]
    for key in ("image", "args", "volumeMounts", "securityContext", "resources"):
        assert init[key] == their_init[key], key
    assert init["image"] == versions.NCCL_GIB_ARM64_INSTALLER_IMAGE
    assert {"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]} in _affinity(ds)
    assert ARM_TOLERATION in ds["spec"]["template"]["spec"]["tolerations"]


def test_a4_and_a4x_get_one_installer_per_architecture_and_share_the_roce_vpc() -> None:
    alone = _installers(A4)["nccl-rdma-installer"]
    assert [e["key"] for e in _affinity(alone)] == ["gpu-platform.io/gpudirect"]  # as before: no arch term
    both = _installers(A4, {**A4X, "name": "gb"})
    assert sorted(both) == ["nccl-rdma-installer", "nccl-rdma-installer-arm64"]
    assert {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]} in _affinity(
        both["nccl-rdma-installer"]
    )
    assert ARM_TOLERATION not in both["nccl-rdma-installer"]["spec"]["template"]["spec"]["tolerations"]
    assert both["nccl-rdma-installer"]["spec"]["template"]["spec"]["initContainers"][0]["image"] == (
        versions.NCCL_GIB_INSTALLER_IMAGE
    )
    plan = gpudirect_plan(
        "c", "us-central1", _pools({**A4, "gpudirect": True}, {**A4X, "name": "gb", "gpudirect": True})
    )
    (rdma,) = [v for v in plan.vpcs if v.roce_zone]
    assert len(rdma.subnets) == 8  # A4's eight; A4X attaches the first four
    assert plan.node_networks(RDMA_A4X) == plan.node_networks(plan.pools[0].gpudirect)[:5]  # type: ignore[arg-type]
    only = gpudirect_plan("c", "us-central1", _pools({**A4X, "gpudirect": True}))
    (rdma,) = [v for v in only.vpcs if v.roce_zone]
    assert [s.nic.network for s in rdma.subnets] == ["rdma-0", "rdma-1", "rdma-2", "rdma-3"]


def test_a4x_is_refused_until_the_library_deploys_google_s_a4x_driver_installer() -> None:
    with pytest.raises(
        ArgumentsError, match=r"pools\[0\]\.machine_type: a4x-highgpu-4g runs Arm .* A4X installer"
    ):
        resolve_pools("gke", [A4X])
