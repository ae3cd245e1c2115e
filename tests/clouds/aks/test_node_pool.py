"""AksGpuNodePool: the exact AgentPool inputs (taint strings, spot, MIG instance profile, driver, counts)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from gpu_platform.clouds.aks.node_pool import AksGpuNodePool
from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import Plan, run_program
from gpu_platform.resolve.cluster_pools import resolve_pools
from gpu_platform.scheduling import pool_tolerations

AGENTPOOL = "azure-native:containerservice:AgentPool"
GPU_TAINT_AKS = "nvidia.com/gpu=present:NoSchedule"
SPOT_TAINT_AKS = "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"


def build(pool: dict[str, Any], **extra: Any) -> Plan:
    args = {"resource_group_name": "rg-gpu", "cluster_name": "gpu", "pool": pool, **extra}
    return run_program(lambda: AksGpuNodePool(pool["name"], args))


@pytest.fixture(scope="module")
def t4_spot() -> Plan:
    return build(
        {
            "name": "t4-spot",
            "machine_type": "Standard_NC8as_T4_v3",
            "max_nodes": 4,
            "spot": True,
            "spot_max_price": 0.35,
            "zones": ["1", "2"],
        },
        vnet_subnet_id="/subscriptions/s/subnets/nodes",
    )


def test_spot_agent_pool_inputs_are_exact(t4_spot: Plan) -> None:
    i = t4_spot.one(AGENTPOOL).inputs
    assert i["resourceGroupName"] == "rg-gpu" and i["resourceName"] == "gpu"
    # Generated from the pool name and what AKS fixes at creation: a replacing change gets a new name.
    assert re.fullmatch(r"t4spot[0-9a-f]{6}", i["agentPoolName"])
    assert i["mode"] == "User" and i["osType"] == "Linux" and i["osSKU"] == "Ubuntu"
    assert i["vmSize"] == "Standard_NC8as_T4_v3"
    assert i["nodeTaints"] == [GPU_TAINT_AKS, SPOT_TAINT_AKS]
    assert i["nodeLabels"] == {
        "gpu-platform.io/pool": "t4-spot",
        "gpu-platform.io/gpu": "t4",
        "gpu-platform.io/sharing": "none",
    }
    assert i["scaleSetPriority"] == "Spot"
    assert i["scaleSetEvictionPolicy"] == "Delete"
    assert i["spotMaxPrice"] == 0.35
    assert i["enableAutoScaling"] is True
    assert (i["count"], i["minCount"], i["maxCount"]) == (0, 0, 4)
    assert i["availabilityZones"] == ["1", "2"]
    assert i["osDiskSizeGB"] == 200
    assert i["vnetSubnetID"] == "/subscriptions/s/subnets/nodes"
    # "auto" on AKS: the GPU Operator installs the driver, so AKS must not.
    assert i["gpuProfile"] == {"driver": "None"}
    assert "gpuInstanceProfile" not in i


def test_count_is_left_to_the_autoscaler_and_fixed_fields_replace(t4_spot: Plan) -> None:
    opts = t4_spot.one(AGENTPOOL).options
    assert opts["ignoreChanges"] == ["count"]
    # Create the replacement first (it has a new generated name), never a gap in capacity.
    assert opts["deleteBeforeReplace"] is False
    assert opts["protect"] is True
    assert {"vmSize", "gpuInstanceProfile", "gpuProfile", "scaleSetPriority", "spotMaxPrice"} <= set(
        opts["replaceOnChanges"]
    )


def test_workloads_tolerate_every_taint_the_spot_pool_declares(t4_spot: Plan) -> None:
    comp = t4_spot.one("gpu-platform:index:AksGpuNodePool")
    assert t4_spot.one(AGENTPOOL).parent == comp.urn
    [pool] = resolve_pools(
        "aks", [{"name": "t4-spot", "machine_type": "Standard_NC8as_T4_v3", "max_nodes": 4, "spot": True}]
    )
    tolerated = {(t["key"], t["effect"]) for t in pool_tolerations(pool)}
    for taint in t4_spot.one(AGENTPOOL).inputs["nodeTaints"]:
        key, effect = taint.split("=", 1)[0], taint.rsplit(":", 1)[1]
        assert (key, effect) in tolerated, taint


def test_regular_pool_has_no_spot_settings_and_default_spot_price() -> None:
    plan = build(
        {
            "name": "a100",
            "machine_type": "Standard_NC24ads_A100_v4",
            "max_nodes": 2,
            "taints": [{"key": "team", "value": "ml", "effect": "NoExecute"}],
        }
    )
    i = plan.one(AGENTPOOL).inputs
    assert i["nodeTaints"] == [GPU_TAINT_AKS, "team=ml:NoExecute"]
    assert "scaleSetPriority" not in i and "spotMaxPrice" not in i
    spot = build({"name": "a100s", "machine_type": "Standard_NC24ads_A100_v4", "max_nodes": 2, "spot": True})
    assert spot.one(AGENTPOOL).inputs["spotMaxPrice"] == -1


def test_cloud_driver_installs_with_aks() -> None:
    plan = build(
        {"name": "t4", "machine_type": "Standard_NC4as_T4_v3", "max_nodes": 1}, driver={"owner": "cloud"}
    )
    assert plan.one(AGENTPOOL).inputs["gpuProfile"] == {"driver": "Install"}


@pytest.mark.parametrize(
    ("layout", "profile"), [("all-1g.5gb", "MIG1g"), ("all-3g.20gb", "MIG3g"), ("all-7g.40gb", "MIG7g")]
)
def test_aks_mig_instance_profile_from_compute_slices(layout: str, profile: str) -> None:
    plan = build(
        {
            "name": "a100-mig",
            "machine_type": "Standard_ND96asr_v4",
            "min_nodes": 1,  # AKS cannot scale MIG pools up from 0
            "max_nodes": 1,
            "sharing": {"mode": "mig", "managed_by": "cloud", "mig": {"layout": layout}},
        },
        driver={"owner": "cloud"},
    )
    i = plan.one(AGENTPOOL).inputs
    assert i["gpuInstanceProfile"] == profile
    assert i["gpuProfile"] == {"driver": "Install"}
    assert i["nodeLabels"]["nvidia.com/gpu.deploy.mig-manager"] == "false"


@pytest.mark.parametrize(
    ("pool", "extra", "path"),
    [
        # MIG1g is 1g.5gb on an A100 40GB; AKS cannot express 1g.10gb.
        (
            {
                "name": "m",
                "machine_type": "Standard_ND96asr_v4",
                "min_nodes": 1,
                "max_nodes": 1,
                "sharing": {"mode": "mig", "managed_by": "cloud", "mig": {"layout": "all-1g.10gb"}},
            },
            {"driver": {"owner": "cloud"}},
            "pool.sharing.mig.layout",
        ),
        # AKS partitions with its own driver; with "auto" the operator would own it.
        (
            {
                "name": "m",
                "machine_type": "Standard_ND96asr_v4",
                "min_nodes": 1,
                "max_nodes": 1,
                "sharing": {"mode": "mig", "managed_by": "cloud", "mig": {"layout": "all-1g.5gb"}},
            },
            {},
            "driver.owner",
        ),
        (
            {"name": "t4", "machine_type": "Standard_NC4as_T4_v3", "max_nodes": 1, "zones": ["westeurope-1"]},
            {},
            "pool.zones[0]",
        ),
        (
            {"name": "t4", "machine_type": "Standard_NC4as_T4_v3", "max_nodes": 1},
            {"agent_pool_name": "Bad-Name"},
            "agent_pool_name",
        ),
        (
            {"name": "t4", "machine_type": "Standard_NC4as_T4_v3", "max_nodes": 1, "capacity_type": "SPOT"},
            {},
            "pool.capacity_type",
        ),
    ],
)
def test_invalid_pools_fail_before_registering(
    pool: dict[str, Any], extra: dict[str, Any], path: str
) -> None:
    errors: list[ArgumentsError] = []

    def program() -> None:
        with pytest.raises(ArgumentsError) as err:
            AksGpuNodePool("x", {"resource_group_name": "rg", "cluster_name": "c", "pool": pool, **extra})
        errors.append(err.value)

    plan = run_program(program)
    assert plan.resources == []
    assert [p for p, _ in errors[0].problems] == [path]


def test_aks_mig_profiles_match_the_documented_a100_40gb_mapping() -> None:
    from gpu_platform.catalog.mig import MIG_TABLES
    from gpu_platform.cloud_facts.aks.profile import mig_instance_profiles as aks_mig_profiles

    # https://learn.microsoft.com/azure/aks/gpu-multi-instance (MIG1g..MIG7g on A100 40GB).
    assert aks_mig_profiles(MIG_TABLES["a100-40gb"]) == {
        "1g.5gb": "MIG1g",
        "2g.10gb": "MIG2g",
        "3g.20gb": "MIG3g",
        "4g.20gb": "MIG4g",
        "7g.40gb": "MIG7g",
    }
