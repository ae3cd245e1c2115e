"""A4X pools are each one GB200 NVL72 domain: the Compute Engine workload policy the library creates with the
node pool (``HIGH_THROUGHPUT``, ``1x72``, the pool's region), the ``COMPACT`` placement policy that names it, the
name change that replaces both create-before-delete, and the pools that cannot be one domain, refused."""

from __future__ import annotations

import re
from typing import Any

import pytest

from gpu_platform.catalog.nvlink import GB200_NVL72
from gpu_platform.cloud_facts import profile_of
from gpu_platform.cloud_facts.gke import resource_types
from gpu_platform.clouds.gke.node_pool import GkeGpuNodePool
from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import Plan, run_program
from tests.conftest import REPO, load_yaml_docs, stack_file_config, upstream
from tests.support.plans import plan_gke_compute_class, plan_gke_node_pool

NODEPOOL = "gcp:container/nodePool:NodePool"
POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
RESERVED = [{"source": "reservation", "reservation": "gb200-block"}]
A4X: dict[str, Any] = {
    "name": "gb200",
    "machine_type": "a4x-highgpu-4g",
    "max_nodes": 18,
    "zones": ["us-east4-b"],
    "capacity": RESERVED,
}
A4: dict[str, Any] = {
    "name": "b200",
    "machine_type": "a4-highgpu-8g",
    "max_nodes": 4,
    "zones": ["us-east4-b"],
}


def _args(pool: dict[str, Any]) -> dict[str, Any]:
    return {"cluster": "gpu", "location": "us-east4", "project": "proj", "pool": pool}


@pytest.fixture(scope="module")
def a4x() -> Plan:
    return run_program(lambda: GkeGpuNodePool("gb200", _args(A4X)))  # type: ignore[arg-type]


def test_the_catalog_puts_a4x_and_only_a4x_in_an_nvl72_domain() -> None:
    machines = profile_of("gke").machines
    assert {n for n, m in machines.items() if m.nvlink_domain is not None} == {"a4x-highgpu-4g"}
    assert machines["a4x-highgpu-4g"].nvlink_domain == GB200_NVL72
    assert (GB200_NVL72.accelerator_topology, GB200_NVL72.gpus, GB200_NVL72.nodes(4)) == ("1x72", 72, 18)


def test_google_s_a4x_blueprint_uses_the_same_workload_policy() -> None:
    (doc,) = load_yaml_docs(upstream("cluster-toolkit", "gke-a4x.yaml"))
    (module,) = [
        m for group in doc["deployment_groups"] for m in group["modules"] if m["id"] == "workload_policy"
    ]
    assert module["settings"]["workload_policy"] == {
        "accelerator_topology": "1x72",
        "type": "HIGH_THROUGHPUT",
    }


def test_an_a4x_pool_creates_its_workload_policy_and_names_it_in_the_placement(a4x: Plan) -> None:
    policy = a4x.one(POLICY)
    assert policy.name == "gb200-workload-policy"
    pool = a4x.one(NODEPOOL).inputs
    assert re.fullmatch(r"gb200-[0-9a-f]{6}", pool["name"])
    assert policy.inputs["name"] == f"{pool['name']}-1x72"
    assert policy.inputs["region"] == "us-east4" and policy.inputs["project"] == "proj"
    assert policy.inputs["workloadPolicy"] == {"type": "HIGH_THROUGHPUT", "acceleratorTopology": "1x72"}
    assert pool["placementPolicy"] == {"type": "COMPACT", "policyName": policy.inputs["name"]}
    assert pool["nodeLocations"] == ["us-east4-b"]
    assert pool["autoscaling"]["totalMaxNodeCount"] == 18
    assert pool["nodeConfig"]["reservationAffinity"] == {
        "consumeReservationType": "SPECIFIC_RESERVATION",
        "key": "compute.googleapis.com/reservation-name",
        "values": ["gb200-block"],
    }
    component = a4x.one("gpu-platform:index:GkeGpuNodePool").urn
    assert policy.parent == component
    assert policy.options.get("protect") is True


def test_other_pools_get_no_workload_policy() -> None:
    b200 = run_program(lambda: GkeGpuNodePool("b200", _args(A4)))  # type: ignore[arg-type]
    assert b200.by_type(POLICY) == []
    assert "placementPolicy" not in b200.one(NODEPOOL).inputs
    compact = run_program(
        lambda: GkeGpuNodePool("b200", _args({**A4, "compact_placement": True}))  # type: ignore[arg-type]
    )
    assert compact.by_type(POLICY) == []
    assert compact.one(NODEPOOL).inputs["placementPolicy"] == {"type": "COMPACT"}


def test_a_new_reservation_is_a_new_pool_and_policy_both_created_first() -> None:
    """A workload policy cannot change while its VMs run, and GKE cannot move a pool to another reservation: a
    new block gives both a new name, so Pulumi creates the new pool and its policy before deleting the old."""
    old = plan_gke_node_pool(_args(A4X))
    new = plan_gke_node_pool(
        _args({**A4X, "capacity": [{"source": "reservation", "reservation": "gb200-b2"}]})
    )
    assert old.workload_policy is not None and new.workload_policy is not None
    assert old.physical_name != new.physical_name
    assert old.workload_policy.name == f"{old.physical_name}-1x72"
    assert new.workload_policy.name == f"{new.physical_name}-1x72"
    assert {"name", "region", "workloadPolicy"} <= set(resource_types.FORCE_NEW[POLICY])


@pytest.mark.parametrize(
    ("change", "path", "says"),
    [
        ({"max_nodes": 19}, "pool.max_nodes", "one domain holds 18 nodes (72 GPUs, 4 per node)"),
        ({"zones": ["us-east4-a", "us-east4-b"]}, "pool.zones", "give exactly one zone (got 2)"),
        ({"capacity": [{"source": "spot"}]}, "pool.capacity", "only from a reservation"),
        ({"capacity": [{"source": "on-demand"}]}, "pool.capacity", "not 'on-demand'"),
        ({"capacity": [{"source": "flex-start"}]}, "pool.capacity", "not 'flex-start'"),
        ({"compact_placement": True}, "pool.compact_placement", "always placed in one NVL72 domain"),
    ],
)
def test_pools_that_cannot_be_one_nvl72_domain_are_refused_and_nothing_is_created(
    change: dict[str, Any], path: str, says: str
) -> None:
    errors: list[ArgumentsError] = []

    def program() -> None:
        with pytest.raises(ArgumentsError) as err:
            GkeGpuNodePool("gb200", _args({**A4X, **change}))  # type: ignore[arg-type]
        errors.append(err.value)

    assert run_program(program).resources == []
    paths = [p for p, _ in errors[0].problems]
    assert paths == [path], errors[0].problems
    assert says in errors[0].problems[0][1]


def test_a_chain_or_a_compute_class_cannot_carry_the_workload_policy() -> None:
    chain = {**A4X, "capacity": [*RESERVED, {"source": "flex-start"}]}
    with pytest.raises(ArgumentsError, match=r"pool\.capacity: .*a capacity chain is served by auto-created"):
        plan_gke_node_pool(_args(chain))
    with pytest.raises(ArgumentsError, match=r"pool\.machine_type: .*use a GkeGpuNodePool"):
        plan_gke_compute_class({"pool": A4X})


def test_multi_node_nvlink_on_a4x_plans_with_compute_domains(plan_stack: Any) -> None:
    """One NVL72 pool per rack, and the DRA driver's ComputeDomains (IMEX) across its nodes: what a multi-node
    NVLink job on A4X needs, planned together with the Arm taint tolerated."""
    doc = stack_file_config("dev")
    rack = {
        "name": "gb200",
        "machineType": "a4x-highgpu-4g",
        "minNodes": 1,
        "maxNodes": 18,
        "zones": ["us-central1-b"],
        "capacity": [{"source": "reservation", "reservation": "gb200-block"}],
        "allocation": "dra",
        "topology": True,
    }
    config = {
        **doc,
        "gpu-platform:cluster": {**doc["gpu-platform:cluster"], "kubernetesVersion": "1.34"},
        "gpu-platform:gpuPools": [*doc["gpu-platform:gpuPools"], rack],
        "gpu-platform:dra": {"enabled": True, "computeDomains": True},
        "gpu-platform:gpuOperator": {"driver": {"hostVersion": "580.95.05"}},
    }
    plan: Plan = plan_stack("dev", REPO, config)
    policy = plan.one(POLICY, "gb200-workload-policy").inputs
    assert plan.one(NODEPOOL, "gb200-nodepool").inputs["placementPolicy"]["policyName"] == policy["name"]
    values = plan.one("kubernetes:helm.sh/v3:Release", "dra-driver-helm").inputs["values"]
    assert values["resources"]["computeDomains"] == {"enabled": True}
    assert {
        "key": "kubernetes.io/arch",
        "operator": "Equal",
        "value": "arm64",
        "effect": "NoSchedule",
    } in values["kubeletPlugin"]["tolerations"]
