"""Capacity sources (docs/capacity.md): one ``capacity`` vocabulary per pool on every cloud, planned from the
stack files in tests/fixtures/capacity. Every custom resource is checked against its vendored CRD (CEL included),
every cloud input against the Pulumi SDK's own argument names."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
import yaml

from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import Plan
from tests.conftest import REPO
from tests.support.crds import problems_of
from tests.support.plans import plan_aks_node_pool, plan_eks_node_pool, plan_gke_node_pool

PROJECT = REPO / "tests" / "fixtures" / "capacity"
CR_KEYS = ("apiVersion", "kind", "metadata", "spec")


def _cr(r: Any) -> dict[str, Any]:
    return {k: r.inputs[k] for k in CR_KEYS if k in r.inputs}


def _of(plan: Plan, kind: str) -> dict[str, dict[str, Any]]:
    return {r.inputs["metadata"]["name"]: _cr(r) for r in plan.by_type(f"kubernetes:{kind}")}


@pytest.fixture(scope="module")
def gke_queued() -> Plan:
    from gpu_platform.offline import run_plan

    return run_plan(PROJECT, "gke-queued")


@pytest.fixture(scope="module")
def gke_chain() -> Plan:
    from gpu_platform.offline import run_plan

    return run_plan(PROJECT, "gke-chain")


@pytest.fixture(scope="module")
def eks_karpenter() -> Plan:
    from gpu_platform.offline import run_plan

    return run_plan(PROJECT, "eks-karpenter")


@pytest.fixture(scope="module")
def aks_nap() -> Plan:
    from gpu_platform.offline import run_plan

    return run_plan(PROJECT, "aks-nap")


# --- GKE queued provisioning with Kueue's ProvisioningRequest admission check -----------------------------


def test_gke_queued_provisioning_node_pool(gke_queued: Plan) -> None:
    pool = gke_queued.one("gcp:container/nodePool:NodePool", "h100-dws-nodepool").inputs
    assert pool["queuedProvisioning"] == {"enabled": True}
    config = pool["nodeConfig"]
    assert config["flexStart"] is True and config["maxRunDuration"] == "86400s"
    assert config["reservationAffinity"] == {"consumeReservationType": "NO_RESERVATION"}
    assert pool["autoscaling"]["locationPolicy"] == "ANY"
    assert pool["autoscaling"]["totalMinNodeCount"] == 0 and pool["initialNodeCount"] == 0


QUEUED = {"key": "cloud.google.com/gke-queued", "operator": "Equal", "value": "true", "effect": "NoSchedule"}


def test_gke_dws_pools_are_not_auto_repaired(gke_queued: Plan) -> None:
    """Cluster Toolkit refuses flex-start (and so queued provisioning) with node auto-repair on."""
    dws = gke_queued.one("gcp:container/nodePool:NodePool", "h100-dws-nodepool").inputs
    reserved = gke_queued.one("gcp:container/nodePool:NodePool", "a100-res-nodepool").inputs
    assert dws["management"] == {"autoRepair": False, "autoUpgrade": True}
    assert reserved["management"] == {"autoRepair": True, "autoUpgrade": True}


def test_every_gpu_node_agent_tolerates_the_queued_taint_and_no_workload_does(gke_queued: Plan) -> None:
    """GKE taints queued-provisioning nodes ``cloud.google.com/gke-queued``: the GPU Operator's operands, NFD's
    worker and node-problem-detector must run there, or the node never advertises its GPUs; Kueue's flavor must
    not tolerate it (GKE adds the toleration to the pods that consume the ProvisioningRequest)."""
    releases = {
        r.inputs["name"]: r.inputs["values"] for r in gke_queued.by_type("kubernetes:helm.sh/v3:Release")
    }
    operator = releases["gpu-operator"]
    assert QUEUED in operator["daemonsets"]["tolerations"]
    assert QUEUED in operator["node-feature-discovery"]["worker"]["tolerations"]
    health = next(v for n, v in releases.items() if "problem-detector" in n or n.endswith("health"))
    assert QUEUED in health["tolerations"]
    flavors = _of(gke_queued, "kueue.x-k8s.io/v1beta2:ResourceFlavor")
    assert all(QUEUED not in f["spec"].get("tolerations", []) for f in flavors.values())


def test_gke_queued_provisioning_admission_check(gke_queued: Plan) -> None:
    configs = _of(gke_queued, "kueue.x-k8s.io/v1beta2:ProvisioningRequestConfig")
    checks = _of(gke_queued, "kueue.x-k8s.io/v1beta2:AdmissionCheck")
    queues = _of(gke_queued, "kueue.x-k8s.io/v1beta2:ClusterQueue")
    assert set(configs) == set(checks) == {"h100-dws-provisioning"}
    spec = configs["h100-dws-provisioning"]["spec"]
    assert spec["provisioningClassName"] == "queued-provisioning.gke.io"
    assert spec["managedResources"] == ["nvidia.com/gpu"]
    assert spec["parameters"] == {"maxRunDurationSeconds": "86400"}
    assert checks["h100-dws-provisioning"]["spec"] == {
        "controllerName": "kueue.x-k8s.io/provisioning-request",
        "parameters": {
            "apiGroup": "kueue.x-k8s.io",
            "kind": "ProvisioningRequestConfig",
            "name": "h100-dws-provisioning",
        },
    }
    assert queues["training"]["spec"]["admissionChecksStrategy"] == {
        "admissionChecks": [{"name": "h100-dws-provisioning", "onFlavors": ["h100-dws"]}]
    }
    # The reservation pool's queue has no check: its nodes come from the reservation, not a ProvisioningRequest.
    assert "admissionChecksStrategy" not in queues["research"]["spec"]
    for obj in [*configs.values(), *checks.values(), *queues.values()]:
        assert problems_of(obj) == [], obj["metadata"]["name"]


def test_the_cluster_queue_waits_for_its_admission_check(gke_queued: Plan) -> None:
    queue = gke_queued.one("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue", "kueue-cq-training")
    check = gke_queued.one("kubernetes:kueue.x-k8s.io/v1beta2:AdmissionCheck")
    assert check.urn in queue.depends_on


def test_shared_reservation_and_reserved_quota(gke_queued: Plan) -> None:
    pool = gke_queued.one("gcp:container/nodePool:NodePool", "a100-res-nodepool").inputs
    assert pool["nodeConfig"]["reservationAffinity"] == {
        "consumeReservationType": "SPECIFIC_RESERVATION",
        "key": "compute.googleapis.com/reservation-name",
        "values": ["projects/gpu-host-project/reservations/a100-shared"],
    }
    research = _of(gke_queued, "kueue.x-k8s.io/v1beta2:ClusterQueue")["research"]
    flavor = next(f for f in research["spec"]["resourceGroups"][0]["flavors"] if f["name"] == "a100-res")
    gpus = next(r for r in flavor["resources"] if r["name"] == "nvidia.com/gpu")
    # maxNodes 4, but the reservation holds 2 one-GPU nodes: the quota is what the reservation gives.
    assert gpus["nominalQuota"] == 2


# --- GKE ComputeClass chain: reservation -> on-demand -> flex-start -> spot -----------------------------------


def test_gke_compute_class_chain_from_the_stack_file(gke_chain: Plan) -> None:
    assert not [r for r in gke_chain.by_type("gcp:container/nodePool:NodePool") if "h100" in r.name]
    cc = _of(gke_chain, "cloud.google.com/v1:ComputeClass")["h100-chain"]
    assert problems_of(cc) == []
    rules = cc["spec"]["priorities"]
    assert [r["machineType"] for r in rules] == ["a3-highgpu-8g"] * 4
    assert rules[0]["reservations"] == {"affinity": "Specific", "specific": [{"name": "h100-res"}]}
    assert rules[0]["spot"] is False and "reservations" not in rules[1] and rules[1]["spot"] is False
    assert rules[2]["flexStart"] == {"enabled": True} and rules[2]["maxRunDurationSeconds"] == 72 * 3600
    assert "spot" not in rules[2]  # CEL: flex-start is never spot
    assert rules[3]["spot"] is True
    assert cc["spec"]["nodePoolAutoCreation"] == {"enabled": True}
    assert cc["spec"]["whenUnsatisfiable"] == "DoNotScaleUp"


def test_gke_chain_quota_is_counted_once(gke_chain: Plan) -> None:
    queue = _of(gke_chain, "kueue.x-k8s.io/v1beta2:ClusterQueue")["training"]
    flavors = [f for f in queue["spec"]["resourceGroups"][0]["flavors"] if f["name"] != "system-cpu"]
    assert [f["name"] for f in flavors] == ["h100-chain"]
    # Admitted pods select the ComputeClass: only then does GKE auto-create nodes for them.
    flavor = _of(gke_chain, "kueue.x-k8s.io/v1beta2:ResourceFlavor")["h100-chain"]
    assert flavor["spec"]["nodeLabels"]["cloud.google.com/compute-class"] == "h100-chain"
    assert problems_of(flavor) == []
    gpus = next(r for r in flavors[0]["resources"] if r["name"] == "nvidia.com/gpu")
    assert gpus["nominalQuota"] == 8 * 8  # maxNodes x 8 GPUs, whichever source fills the nodes


# --- EKS Karpenter with an ODCR and a Capacity Block ------------------------------------------------------------


def test_eks_karpenter_reserved_capacity(eks_karpenter: Plan) -> None:
    pools = _of(eks_karpenter, "karpenter.sh/v1:NodePool")
    classes = _of(eks_karpenter, "karpenter.k8s.aws/v1:EC2NodeClass")

    def types(name: str) -> list[str]:
        reqs = pools[name]["spec"]["template"]["spec"]["requirements"]
        return next(r["values"] for r in reqs if r["key"] == "karpenter.sh/capacity-type")

    assert types("h100-block") == ["reserved"]
    assert types("a100-odcr") == ["reserved", "on-demand", "spot"]
    assert classes["h100-block"]["spec"]["capacityReservationSelectorTerms"] == [
        {"id": "cr-0123456789abcdef0"}
    ]
    assert classes["a100-odcr"]["spec"]["capacityReservationSelectorTerms"] == [
        {"id": "cr-0fedcba9876543210"}
    ]
    for obj in pools.values():
        assert problems_of(obj, "aws") == []
    for obj in classes.values():
        assert problems_of(obj) == []


def test_eks_managed_node_group_odcr_targets_the_reservation() -> None:
    plan = plan_eks_node_pool(
        {
            "cluster_name": "c",
            "node_role_arn": "arn:aws:iam::123456789012:role/n",
            "subnet_ids": ["subnet-0123456789abcdef0"],
            "pool": {
                "name": "a100",
                "machine_type": "p4d.24xlarge",
                "max_nodes": 2,
                "capacity": [{"source": "reservation", "reservation": "cr-0fedcba9876543210"}],
                "zones": ["us-east-1a"],  # the ODCR's one zone
            },
        }
    )
    assert plan.capacity_type == "ON_DEMAND" and plan.pool.reservation == "cr-0fedcba9876543210"


# --- AKS capacity reservation group and NAP ---------------------------------------------------------------------


def test_aks_capacity_reservation_group_and_nap(aks_nap: Plan) -> None:
    agent = aks_nap.one("azure-native:containerservice:AgentPool").inputs
    assert agent["capacityReservationGroupID"].endswith("/capacityReservationGroups/h100-crg")
    assert "scaleSetPriority" not in agent
    cluster = aks_nap.one("azure-native:containerservice:ManagedCluster").inputs
    assert cluster["nodeProvisioningProfile"] == {"mode": "Auto", "defaultNodePools": "None"}
    pools = _of(aks_nap, "karpenter.sh/v1:NodePool")
    assert set(pools) == {"a100-nap"}
    reqs = pools["a100-nap"]["spec"]["template"]["spec"]["requirements"]
    assert next(r["values"] for r in reqs if r["key"] == "karpenter.sh/capacity-type") == [
        "on-demand",
        "spot",
    ]
    assert problems_of(pools["a100-nap"], "azure") == []
    subnet = "/subscriptions/0/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/nodes"
    for obj in _of(aks_nap, "karpenter.azure.com/v1beta1:AKSNodeClass").values():
        # The cluster's subnet, an ID only once it exists (the mock gives a placeholder).
        assert obj["spec"]["vnetSubnetID"] == "gpu-capacity-nodes-id"
        assert problems_of({**obj, "spec": {**obj["spec"], "vnetSubnetID": subnet}}) == []


# --- provider inputs are the SDKs' own argument names ------------------------------------------------------------


def test_new_inputs_are_sdk_arguments() -> None:
    import pulumi_azure_native.containerservice as aks
    import pulumi_gcp.container as gke

    def params(cls: Any) -> set[str]:
        return set(inspect.signature(cls.__init__).parameters)

    assert {"flex_start", "max_run_duration", "reservation_affinity"} <= params(gke.NodePoolNodeConfigArgs)
    assert "queued_provisioning" in params(gke.NodePoolArgs)
    assert {"enabled"} <= params(gke.NodePoolQueuedProvisioningArgs)
    assert {"consume_reservation_type", "key", "values"} <= params(
        gke.NodePoolNodeConfigReservationAffinityArgs
    )
    assert "capacity_reservation_group_id" in params(aks.AgentPoolArgs)
    assert {"mode", "default_node_pools"} <= params(aks.ManagedClusterNodeProvisioningProfileArgs)
    assert "node_provisioning_profile" in params(aks.ManagedClusterArgs)


# --- refusals, each naming the key ---------------------------------------------------------------------------------

GKE = {"cluster": "c", "location": "us-central1"}
H100 = {"name": "h100", "machine_type": "a3-highgpu-8g", "max_nodes": 4}


def _problems(fn: Any, args: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(ArgumentsError) as e:
        fn(args)
    return {loc: reason for loc, reason in (line.split(": ", 1) for line in str(e.value).splitlines())}


@pytest.mark.parametrize(
    ("pool", "key", "words"),
    [
        ({**H100, "spot": True, "capacity": [{"source": "spot"}]}, "pool.capacity", "not both"),
        ({**H100, "capacity": []}, "pool.capacity", "at least one"),
        (
            {**H100, "capacity": [{"source": "on-demand"}, {"source": "spot"}]},
            "pool.capacity",
            "GkeGpuComputeClass",
        ),
        (
            {**H100, "capacity": [{"source": "flex-start"}, {"source": "queued-provisioning"}]},
            "pool.capacity[1].source",
            "not in a fallback chain",
        ),
        (
            {**H100, "capacity": [{"source": "reservation"}]},
            "pool.capacity[0].reservation",
            "needs the reservation",
        ),
        (
            {**H100, "capacity": [{"source": "reservation", "reservation": "r", "nodes": 5}]},
            "pool.capacity[0].nodes",
            "between 1 and",
        ),
        (
            {**H100, "capacity": [{"source": "spot", "max_run_hours": 4}]},
            "pool.capacity[0].max_run_hours",
            "run limit",
        ),
        (
            {**H100, "capacity": [{"source": "flex-start", "max_run_hours": 200}]},
            "pool.capacity[0].max_run_hours",
            "between 1 and 168",
        ),
        (
            {**H100, "min_nodes": 1, "capacity": [{"source": "queued-provisioning"}]},
            "pool.min_nodes",
            "must be 0",
        ),
        (
            {**H100, "capacity": [{"source": "reservation", "affinity": "any", "reservation": "r"}]},
            "pool.capacity[0].reservation",
            "remove the name",
        ),
    ],
)
def test_gke_refusals(pool: dict[str, Any], key: str, words: str) -> None:
    problems = _problems(plan_gke_node_pool, {**GKE, "pool": pool})
    assert words in problems.get(key, ""), problems


def test_other_clouds_refuse_what_they_cannot_do() -> None:
    eks = {
        "cluster_name": "c",
        "node_role_arn": "arn:aws:iam::123456789012:role/n",
        "subnet_ids": ["subnet-0123456789abcdef0"],
    }
    p5 = {"name": "h100", "machine_type": "p5.48xlarge", "max_nodes": 2}
    problems = _problems(plan_eks_node_pool, {**eks, "pool": {**p5, "capacity": [{"source": "flex-start"}]}})
    assert "valid here: on-demand, spot, reservation, capacity-block" in problems["pool.capacity[0].source"]
    problems = _problems(
        plan_eks_node_pool,
        {**eks, "pool": {**p5, "capacity": [{"source": "capacity-block", "reservation": "r-1"}]}},
    )
    assert "Capacity Block ID" in problems["pool.capacity[0].reservation"]
    aks = {"resource_group_name": "rg", "cluster_name": "c"}
    nc = {"name": "a100", "machine_type": "Standard_NC24ads_A100_v4", "max_nodes": 2}
    problems = _problems(
        plan_aks_node_pool,
        {**aks, "pool": {**nc, "capacity": [{"source": "reservation", "reservation": "crg"}]}},
    )
    assert "capacity reservation group ID" in problems["pool.capacity[0].reservation"]
    problems = _problems(
        plan_aks_node_pool,
        {**aks, "pool": {**nc, "capacity": [{"source": "reservation", "reservation": "x", "project": "p"}]}},
    )
    assert "GKE only" in problems["pool.capacity[0].project"]


def test_older_spellings_keep_their_plans() -> None:
    old = plan_gke_node_pool({**GKE, "pool": {**H100, "reservation": "h100-res"}})
    new = plan_gke_node_pool(
        {**GKE, "pool": {**H100, "capacity": [{"source": "reservation", "reservation": "h100-res"}]}}
    )
    assert old.physical_name == new.physical_name
    assert old.reservation_affinity == new.reservation_affinity
    spot = plan_gke_node_pool({**GKE, "pool": {**H100, "spot": True}})
    assert (
        spot.pool.sources == new.pool.sources[:0] + spot.pool.sources and spot.pool.primary.source == "spot"
    )


def test_aks_chain_pools_refuse_the_operators_driver_in_the_stack() -> None:
    """A fallback chain on AKS is a NAP pool: with the GPU Operator owning the driver the stack refuses it,
    as ``AksNapGpuNodePool`` does, instead of planning ``gpu.mode: None`` beside ``driver.enabled: true``."""
    from gpu_platform.errors import ConfigError
    from gpu_platform.stack import load_platform

    doc = yaml.safe_load((PROJECT / "Pulumi.aks-nap.yaml").read_text())
    raw = {k.split(":", 1)[1]: v for k, v in doc["config"].items() if k.startswith("gpu-platform:")}
    load_platform(dict(raw))  # the fixture gives the driver to the cloud: fine
    raw["gpuOperator"] = {"driver": {"owner": "operator"}}
    with pytest.raises(ConfigError) as err:
        load_platform(raw)
    found = dict(err.value.problems)
    reason = found["gpu-platform:gpuOperator.driver.owner"]
    assert "a100-nap" in reason and "cannot own the driver on NAP pools" in reason


def test_aks_reservation_group_gets_the_identity_and_role_aks_requires(aks_nap: Plan) -> None:
    """AKS consumes a capacity reservation group only through a user-assigned control-plane identity with
    Contributor on the group's resource group (Microsoft, "Use capacity reservation groups with AKS"); a
    system-assigned cluster planned the pool but could never create it."""
    cluster = aks_nap.one("azure-native:containerservice:ManagedCluster")
    assert cluster.inputs["identity"]["type"] == "UserAssigned"
    (identity,) = aks_nap.by_type("azure-native:managedidentity:UserAssignedIdentity")
    (role,) = aks_nap.by_type("azure-native:authorization:RoleAssignment")
    group_rg = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-capacity"
    assert role.inputs["scope"] == group_rg
    assert role.inputs["roleDefinitionId"].endswith("/roleDefinitions/b24988ac-6181-42a0-ab88-20f7382dd24c")
    assert role.inputs["principalType"] == "ServicePrincipal"
    assert role.urn in cluster.depends_on  # the cluster is created once its identity may use the group
    assert identity.inputs["resourceGroupName"] == cluster.inputs["resourceGroupName"]


def test_aks_without_reservations_keeps_its_system_identity() -> None:
    from gpu_platform.offline import run_plan

    doc = yaml.safe_load((PROJECT / "Pulumi.aks-nap.yaml").read_text())
    raw = doc["config"]
    raw["gpu-platform:gpuPools"] = [p for p in raw["gpu-platform:gpuPools"] if p["name"] != "h100-crg"]
    plan = run_plan(PROJECT, "aks-nap", config_override=raw)
    cluster = plan.one("azure-native:containerservice:ManagedCluster")
    assert cluster.inputs["identity"] == {"type": "SystemAssigned"}
    assert not plan.by_type("azure-native:authorization:RoleAssignment")
