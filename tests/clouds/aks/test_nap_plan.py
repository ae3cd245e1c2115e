"""AKS Node Auto Provisioning: GPU pools scaled from zero.

The NAP NodePool and AKSNodeClass are validated against karpenter-provider-azure v1.14.2's CRDs, CEL rules
included (tests.support.crds); labels and taints are compared with the agent pools of the same cloud.
"""

from __future__ import annotations

from typing import Any

from gpu_platform.clouds.aks import nap_plan as nap
from gpu_platform.clouds.aks.nap_node_pool import AksNapGpuNodePool
from tests.support.crds import problems_of
from tests.support.plans import plan_aks_nap_pool, plan_aks_node_pool
from tests.support.refusals import arg_problems

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
