"""AKS Node Auto Provisioning and GKE ComputeClasses (issue 16): GPU pools scaled from zero.

The NAP NodePool and AKSNodeClass are validated against karpenter-provider-azure v1.14.2's CRDs, the
ComputeClass against the vendored GKE schema, CEL rules included (tests.support.crds); labels and taints
are compared with the managed pools of the same clouds.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.clouds.aks import nap_plan as nap
from gpu_platform.clouds.aks.nap_node_pool import AksNapGpuNodePool
from gpu_platform.clouds.gke import compute_class_plan as cc
from gpu_platform.clouds.gke.compute_class import GkeGpuComputeClass
from tests.support.crds import problems_of
from tests.support.plans import (
    plan_aks_nap_pool,
    plan_aks_node_pool,
    plan_gke_compute_class,
    plan_gke_node_pool,
)
from tests.support.refusals import arg_problems

# --- AKS Node Auto Provisioning ------------------------------------------------------------------------------

A100_SPOT = {"name": "a100-spot", "machine_type": "Standard_NC24ads_A100_v4", "max_nodes": 2, "spot": True}


def test_aks_nap_objects_validate_and_match_the_agent_pool() -> None:
    plan = plan_aks_nap_pool({"pool": A100_SPOT, "driver": {"owner": "cloud"}})  # type: ignore[typeddict-item]
    node_pool, node_class = nap.aks_node_pool(plan), nap.aks_node_class(plan)
    assert problems_of(node_pool, "azure") == []
    assert problems_of(node_class) == []
    agent = plan_aks_node_pool(
        {"pool": A100_SPOT, "resource_group_name": "rg", "cluster_name": "c", "driver": {"owner": "cloud"}}  # type: ignore[typeddict-item]
    )
    assert node_pool["spec"]["template"]["metadata"]["labels"] == agent.labels
    assert node_pool["spec"]["template"]["spec"]["taints"] == agent.taint_dicts  # GPU taint + AKS spot taint
    assert node_class["spec"]["gpu"] == {
        "mode": "Driver"
    }  # AKS installs the driver (the only owner NAP takes)
    reqs = {r["key"]: r["values"] for r in node_pool["spec"]["template"]["spec"]["requirements"]}
    assert reqs["karpenter.azure.com/sku-name"] == ["Standard_NC24ads_A100_v4"]
    assert reqs["karpenter.sh/capacity-type"] == ["spot"]


def test_aks_nap_driver_mode_follows_the_driver_owner() -> None:
    plan = plan_aks_nap_pool({"pool": A100_SPOT, "driver": {"owner": "cloud"}})  # type: ignore[typeddict-item]
    assert nap.aks_node_class(plan)["spec"]["gpu"] == {"mode": "Driver"}


def test_aks_nap_refuses_the_operators_driver() -> None:
    # AKS serves its own AKSNodeClass CRD; without spec.gpu, gpu.mode None is pruned and AKS installs its
    # driver next to the operator's. The library cannot read the served CRD, so it never relies on the field.
    for driver in ({}, {"owner": "operator"}, {"owner": "auto"}):
        found = arg_problems(plan_aks_nap_pool, {"pool": A100_SPOT, "driver": driver})
        assert list(found) == ["driver.owner"], driver
        assert "AKS installs its driver beside the operator's" in found["driver.owner"]


def test_aks_nap_refusals() -> None:
    pool = {
        "name": "a100",
        "machine_type": "Standard_ND96asr_v4",
        "max_nodes": 1,
        "zones": ["1"],
        "spot": True,
        "spot_max_price": 3.5,
        "sharing": {"mode": "mig", "managed_by": "cloud", "mig": {"layout": "all-1g.5gb"}},
    }
    found = arg_problems(plan_aks_nap_pool, {"pool": pool, "driver": {"owner": "cloud"}})
    assert set(found) == {"pool.sharing.managed_by", "pool.zones", "pool.spot_max_price"}
    assert "AKSNodeClass has no GPU instance profile" in found["pool.sharing.managed_by"]


def test_aks_nap_component(run_component: Any) -> None:
    plan = run_component(
        lambda: AksNapGpuNodePool(
            "a100",
            {"pool": A100_SPOT, "vnet_subnet_id": "/subscriptions/x/subnet", "driver": {"owner": "cloud"}},
        )
    )
    node_class = plan.one("kubernetes:karpenter.azure.com/v1beta1:AKSNodeClass")
    node_pool = plan.one("kubernetes:karpenter.sh/v1:NodePool")
    assert node_class.inputs["spec"]["vnetSubnetID"] == "/subscriptions/x/subnet"
    assert node_class.urn in node_pool.depends_on


# --- GKE ComputeClass ------------------------------------------------------------------------------------------

L4_GKE = {
    "name": "l4",
    "machine_type": "g2-standard-8",
    "max_nodes": 4,
    "spot": True,
    "zones": ["us-central1-a"],
    "sharing": {"mode": "time-slicing", "replicas": 4, "managed_by": "cloud"},
}
A100_GKE = {
    "name": "a100",
    "machine_type": "a2-highgpu-1g",
    "max_nodes": 2,
    "reservation": "a100-reservation",
    "sharing": {"mode": "mig", "managed_by": "cloud", "mig": {"layout": "all-1g.5gb"}},
}


@pytest.mark.parametrize("pool", [L4_GKE, A100_GKE], ids=lambda p: p["name"])
def test_compute_class_validates_against_the_schema(pool: dict[str, Any]) -> None:
    plan = plan_gke_compute_class({"pool": pool})  # type: ignore[typeddict-item]
    assert problems_of(cc.compute_class(plan)) == []


def test_compute_class_content() -> None:
    plan = plan_gke_compute_class({"pool": A100_GKE, "gpu_driver_version": "latest"})  # type: ignore[typeddict-item]
    spec = cc.compute_class(plan)["spec"]
    (rule,) = spec["priorities"]
    assert rule["gpu"] == {
        "type": "nvidia-tesla-a100",
        "count": 1,
        "driverVersion": "latest",
        "gpuSharing": {"gpuPartitionSize": "1g.5gb"},
    }
    assert rule["reservations"] == {"affinity": "Specific", "specific": [{"name": "a100-reservation"}]}
    assert spec["nodePoolAutoCreation"] == {"enabled": True}
    assert spec["whenUnsatisfiable"] == "DoNotScaleUp"
    labels = spec["nodePoolConfig"]["nodeLabels"]
    assert labels["nvidia.com/gpu.deploy.operands"] == "false"
    assert "gke-no-default-nvidia-gpu-device-plugin" not in labels
    managed = plan_gke_node_pool({"pool": A100_GKE, "cluster": "c", "location": "us-central1"})  # type: ignore[typeddict-item]
    assert {k: v for k, v in labels.items() if k.startswith("gpu-platform.io/")} == {
        k: v for k, v in managed.labels.items() if k.startswith("gpu-platform.io/")
    }
    assert spec["nodePoolConfig"]["taints"][0] == {
        "key": "nvidia.com/gpu",
        "value": "present",
        "effect": "NoSchedule",
    }
    assert plan.workload_node_selector == {
        "cloud.google.com/compute-class": "a100",
        "gpu-platform.io/pool": "a100",
        "gpu-platform.io/gpu": "a100-40gb",
    }


def test_compute_class_refusals() -> None:
    pool = {
        "name": "h100",
        "machine_type": "a3-highgpu-8g",
        "max_nodes": 1,
        "min_nodes": 1,
        "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb"}},
    }
    found = arg_problems(
        plan_gke_compute_class, {"pool": pool, "driver": {"owner": "operator", "version": "580.95.05"}}
    )
    assert set(found) == {"pool.min_nodes", "pool.sharing.managed_by", "driver.owner", "driver.version"}
    dra = arg_problems(
        plan_gke_compute_class,
        {"pool": {"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 1, "allocation": "dra"}},
    )
    assert list(dra) == ["pool.allocation"]
    cuda = arg_problems(plan_gke_compute_class, {"pool": {**L4_GKE, "cuda_version": "13.0"}})
    assert "needs driver >= 580.65.06" in cuda["pool.cuda_version"]


def test_compute_class_component(run_component: Any) -> None:
    plan = run_component(lambda: GkeGpuComputeClass("l4", {"pool": L4_GKE}))
    obj = plan.one("kubernetes:cloud.google.com/v1:ComputeClass")
    assert problems_of({k: obj.inputs[k] for k in ("apiVersion", "kind", "metadata", "spec")}) == []


def test_aks_nap_refuses_operator_sharing_and_dra_like_karpenter() -> None:
    shared = {**A100_SPOT, "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb"}}}
    assert list(arg_problems(plan_aks_nap_pool, {"pool": shared})) == ["pool.sharing.mode"]
    dra = arg_problems(
        plan_aks_nap_pool,
        {
            "pool": {**A100_SPOT, "allocation": "dra"},
            "driver": {"owner": "cloud", "host_version": "580.95.05"},
        },
    )
    assert list(dra) == ["pool.allocation"]
