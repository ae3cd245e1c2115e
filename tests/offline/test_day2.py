"""Day 2: the routine edits a platform team makes never destroy data or capacity.

Each test plans a repository stack, edits its config the way a team would, plans again and diffs the
two plans with ``gpu_platform.offline.diff`` (the same code as ``gpu-platform diff``). Across every edit:
no cluster, network or subnet is deleted or replaced; no namespace is deleted; no release that owns CRDs
is deleted; node pools are only replaced create-before-delete.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from gpu_platform.offline import plan_document, run_plan
from gpu_platform.offline.diff import Change, PlanDiff, diff_plans
from tests.conftest import REPO, stack_file_config

INFRA = (
    "aws:eks/cluster:Cluster",
    "aws:ec2/vpc:Vpc",
    "aws:ec2/subnet:Subnet",
    "aws:ec2/natGateway:NatGateway",
    "gcp:container/cluster:Cluster",
    "gcp:compute/network:Network",
    "gcp:compute/subnetwork:Subnetwork",
    "azure-native:containerservice:ManagedCluster",
    "azure-native:network:VirtualNetwork",
    "azure-native:network:Subnet",
)
POOLS = (
    "aws:eks/nodeGroup:NodeGroup",
    "gcp:container/nodePool:NodePool",
    "azure-native:containerservice:AgentPool",
)
NAMESPACE = "kubernetes:core/v1:Namespace"
RELEASE = "kubernetes:helm.sh/v3:Release"
CRD_RELEASES = ("kserve-crd", "kueue-helm")
"""Releases whose chart owns CRDs as templates (uninstalling deletes every object of those kinds)."""

Edit = Callable[[dict[str, Any]], None]


def _plan(config: dict[str, Any], stack: str) -> dict[str, Any]:
    return plan_document(run_plan(REPO, stack, config_override=config))


def _diff(stack: str, edit: Edit) -> PlanDiff:
    before = stack_file_config(stack)
    after = copy.deepcopy(before)
    edit(after)
    return diff_plans(_plan(before, stack), _plan(after, stack))


def _gone(c: Change) -> bool:
    return c.action in ("removed", "replaced") and not c.retained


def assert_safe(d: PlanDiff) -> None:
    """The invariants every routine edit keeps."""
    infra = [c for c in d.changes if c.type in INFRA and _gone(c)]
    assert infra == [], f"infrastructure deleted or replaced: {[(c.name, c.action) for c in infra]}"
    namespaces = [c for c in d.changes if c.type == NAMESPACE and _gone(c)]
    assert namespaces == [], f"namespaces deleted: {[c.name for c in namespaces]}"
    crds = [c for c in d.changes if c.type == RELEASE and c.name in CRD_RELEASES and _gone(c)]
    assert crds == [], f"CRD releases deleted: {[c.name for c in crds]}"
    first = [c for c in d.changes if c.type in POOLS and c.action == "replaced" and c.delete_first]
    assert first == [], f"pools deleted before their replacement exists: {[c.name for c in first]}"


def _pools(cfg: dict[str, Any]) -> list[dict[str, Any]]:
    pools: list[dict[str, Any]] = cfg["gpu-platform:gpuPools"]
    return pools


def test_add_a_pool_first() -> None:
    def edit(cfg: dict[str, Any]) -> None:
        new = {"name": "l40s-batch", "machineType": "g6e.12xlarge", "maxNodes": 2, "zones": ["us-east-1c"]}
        _pools(cfg).insert(0, new)

    d = _diff("prod", edit)
    assert_safe(d)
    assert {c.name for c in d.of("added") if c.type in POOLS} == {"l40s-batch-nodegroup"}
    assert [c for c in d.changes if c.type in POOLS and c.action != "added"] == []


def test_reorder_pools() -> None:
    d = _diff("prod", lambda cfg: _pools(cfg).reverse())
    assert_safe(d)
    assert [c for c in d.changes if c.type in (*POOLS, *INFRA)] == []


def test_change_one_pools_zones() -> None:
    def edit(cfg: dict[str, Any]) -> None:
        _pools(cfg)[0]["zones"] = ["us-east-1b", "us-east-1c"]

    d = _diff("prod", edit)
    assert_safe(d)
    [pool] = [c for c in d.changes if c.type in POOLS]
    assert pool.name == "h100-inference-nodegroup" and pool.action == "replaced" and not pool.delete_first


def test_rename_a_pool() -> None:
    def edit(cfg: dict[str, Any]) -> None:
        _pools(cfg)[1]["name"] = "h100-train"
        cfg["gpu-platform:kueue"]["clusterQueues"][0]["pools"] = ["h100-train"]

    d = _diff("prod", edit)
    assert_safe(d)
    assert {c.name for c in d.of("added") if c.type in POOLS} == {"h100-train-nodegroup"}
    assert {c.name for c in d.of("removed") if c.type in POOLS} == {"h100-training-nodegroup"}


def test_change_a_mig_layout_is_flagged_but_replaces_nothing() -> None:
    def edit(cfg: dict[str, Any]) -> None:
        _pools(cfg)[0]["sharing"]["mig"]["layout"] = "all-3g.40gb"
        for svc in cfg["gpu-platform:kserve"]["services"]:
            svc["migProfile"] = "3g.40gb"

    d = _diff("prod", edit)
    assert_safe(d)
    assert d.mig_layout_changes, "a MIG layout change evicts GPU pods: the diff must say so"
    assert [c for c in d.changes if c.type in POOLS and c.action == "replaced"] == []


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_bump_the_kubernetes_minor_version(stack: str) -> None:
    def edit(cfg: dict[str, Any]) -> None:
        cfg["gpu-platform:cluster"]["kubernetesVersion"] = "1.34"

    d = _diff(stack, edit)
    assert_safe(d)
    assert [c for c in d.changes if c.type in POOLS and c.action == "replaced"] == []


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_switch_kserve_off(stack: str) -> None:
    d = _diff(stack, lambda cfg: cfg["gpu-platform:kserve"].update(enabled=False, services=[]))
    assert_safe(d)
    [crd] = [c for c in d.changes if c.name == "kserve-crd"]
    assert crd.action == "removed" and crd.retained


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_switch_kueue_off(stack: str) -> None:
    def edit(cfg: dict[str, Any]) -> None:
        cfg["gpu-platform:kueue"] = {"enabled": False}
        for svc in cfg["gpu-platform:kserve"]["services"]:
            svc.pop("queue", None)
            svc.pop("priorityClass", None)

    d = _diff(stack, edit)
    assert_safe(d)
    [release] = [c for c in d.changes if c.name == "kueue-helm"]
    assert release.action == "removed" and release.retained
    # Team namespaces stay in the cluster with everything in them; ones a service still uses stay managed.
    removed = [c for c in d.changes if c.type == NAMESPACE and c.action == "removed"]
    assert all(c.retained for c in removed)
    services = {s["namespace"] for s in stack_file_config(stack)["gpu-platform:kserve"]["services"]}
    assert not {c.name.removeprefix("namespace-") for c in removed} & services


def test_remove_a_team_keeps_its_namespace() -> None:
    def edit(cfg: dict[str, Any]) -> None:
        cfg["gpu-platform:kueue"]["teams"] = [
            t for t in cfg["gpu-platform:kueue"]["teams"] if t["name"] != "research"
        ]

    d = _diff("staging", edit)
    assert_safe(d)
    [ns] = [c for c in d.changes if c.type == NAMESPACE and c.action == "removed"]
    assert ns.name == "namespace-research" and ns.retained


def test_a_team_may_opt_out_of_keeping_its_namespace() -> None:
    def edit(cfg: dict[str, Any]) -> None:
        cfg["gpu-platform:kueue"]["teams"] = [
            t for t in cfg["gpu-platform:kueue"]["teams"] if t["name"] != "research"
        ]

    before = stack_file_config("staging")
    for team in before["gpu-platform:kueue"]["teams"]:
        team["retainNamespace"] = False
    after = copy.deepcopy(before)
    edit(after)
    d = diff_plans(_plan(before, "staging"), _plan(after, "staging"))
    [ns] = [c for c in d.changes if c.type == NAMESPACE and c.action == "removed"]
    assert ns.name == "namespace-research" and not ns.retained and ns.destructive


def test_prod_is_protected_and_dev_is_disposable() -> None:
    for stack, protected in (("prod", True), ("staging", True), ("dev", False)):
        doc = _plan(stack_file_config(stack), stack)
        infra = [r for r in doc["resources"] if r["type"] in (*INFRA, *POOLS)]
        assert infra
        assert {r["options"]["protect"] for r in infra} == {protected}, stack


# --- what the diff flags on the real stacks (issue 20) ---------------------------------------------------


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_switch_kserve_off_does_not_call_cert_manager_destructive(stack: str) -> None:
    """cert-manager keeps its CRDs (crds.keep): its release going loses no Certificate."""
    d = _diff(stack, lambda cfg: cfg["gpu-platform:kserve"].update(enabled=False, services=[]))
    cert = [c for c in d.changes if c.type == RELEASE and c.name.startswith("cert-manager")]
    assert cert and all(not c.destructive for c in cert)


def test_switch_kueue_off_is_flagged_for_stranded_jobs() -> None:
    def edit(cfg: dict[str, Any]) -> None:
        cfg["gpu-platform:kueue"] = {"enabled": False}
        for svc in cfg["gpu-platform:kserve"]["services"]:
            svc.pop("queue", None)
            svc.pop("priorityClass", None)

    d = _diff("prod", edit)
    kinds = {c.type.rsplit(":", 1)[-1] for c in d.disruptive if c.action == "removed"}
    assert {"ClusterQueue", "LocalQueue", "ResourceFlavor"} <= kinds
    assert all(c.flagged for c in d.changes if c.type.startswith("kubernetes:kueue.x-k8s.io/"))


def test_gke_machine_type_change_is_flagged() -> None:
    def edit(cfg: dict[str, Any]) -> None:
        _pools(cfg)[0]["machineType"] = "g2-standard-16"

    d = _diff("dev", edit)
    [pool] = [c for c in d.changes if c.type == "gcp:container/nodePool:NodePool"]
    assert pool.action == "changed" and pool.disruptions, pool
    assert "nodeConfig.machineType: g2-standard-8 -> g2-standard-16" in pool.values
