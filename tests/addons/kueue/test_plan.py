"""Kueue objects from the pools: quotas equal what the nodes offer, flavors select and tolerate their pool.

Expected numbers are computed here from first principles (GPUs per node x units per GPU x nodes),
never by calling the capacity function under test. The pools are mostly existing-cluster pools, which
declare their allocatable cpu and memory, with the GPU Operator switched off: their cpu/memory quota is
then exactly the declared figures x nodes. Cloud allocatable and the operator's per-node requests are
tested in test_kueue_allocatable.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.addons.kueue import plan as ko
from gpu_platform.addons.kueue.checks import KueueSpec
from gpu_platform.errors import ArgumentsError, ConfigError
from gpu_platform.stack import load_platform
from tests.support.plans import plan_kueue

H100_NODE = {"gpu": "h100-80gb", "gpus_per_node": 8, "cpus_per_node": 208, "memory_gib_per_node": 1872}


NO_OPERATOR = {"enabled": False}
"""No GPU Operator on the existing clusters here: nothing is taken off the declared allocatable."""


def plan(*pools: dict[str, Any], cloud: str = "existing", **kueue: Any) -> ko.KueuePlan:
    """The Kueue plan for these pools and settings; every check runs (an ``ArgumentsError`` fails the test)."""
    kueue.setdefault("gpu_operator", NO_OPERATOR)
    return plan_kueue({"cloud": cloud, "pools": [dict(p) for p in pools], **kueue})  # type: ignore[typeddict-item]


def build(*pools: dict[str, Any], cloud: str = "existing", **kueue: Any) -> ko.KueueObjects:
    return plan(*pools, cloud=cloud, **kueue).objects


def settings(**kueue: Any) -> KueueSpec:
    """Kueue settings resolved over one plain H100 pool."""
    return plan({"name": "a", "max_nodes": 1, **H100_NODE}, **kueue).spec


def queue(objects: ko.KueueObjects, name: str) -> dict[str, Any]:
    return next(q for q in objects.cluster_queues if q["metadata"]["name"] == name)


def quotas(cq: dict[str, Any], flavor: str) -> dict[str, Any]:
    """``resource -> nominalQuota`` of one flavor in a ClusterQueue (one resource group)."""
    (group,) = cq["spec"]["resourceGroups"]
    f = next(f for f in group["flavors"] if f["name"] == flavor)
    return {r["name"]: r["nominalQuota"] for r in f["resources"]}


# --- quotas == physical capacity ---------------------------------------------------------------


def test_plain_pool_quota_is_nodes_times_gpus_cpu_and_memory() -> None:
    objs = build({"name": "h100", "max_nodes": 2, **H100_NODE})
    assert quotas(queue(objs, "gpu"), "h100") == {
        "cpu": 2 * 208,
        "memory": f"{2 * 1872}Gi",
        "nvidia.com/gpu": 2 * 8,
    }


def test_time_sliced_pool_quota_counts_replicas() -> None:
    # 3 nodes x 1 L4 x 4 replicas = 12 schedulable nvidia.com/gpu.
    ts = {"name": "l4", "gpu": "l4", "gpus_per_node": 1, "cpus_per_node": 8, "memory_gib_per_node": 32}
    objs = build({**ts, "max_nodes": 3, "sharing": {"mode": "time-slicing", "replicas": 4}})
    assert quotas(queue(objs, "gpu"), "l4") == {"cpu": 24, "memory": "96Gi", "nvidia.com/gpu": 12}
    renamed = {"mode": "time-slicing", "replicas": 4, "rename_by_default": True}
    objs = build({**ts, "max_nodes": 3, "sharing": renamed})
    assert quotas(queue(objs, "gpu"), "l4") == {"cpu": 24, "memory": "96Gi", "nvidia.com/gpu.shared": 12}


def test_mig_mixed_pool_quota_per_profile() -> None:
    one_g = {"mode": "mig", "mig": {"layout": "all-1g.10gb"}}
    objs = build({"name": "mig", "max_nodes": 2, **H100_NODE, "sharing": one_g})
    # 2 nodes x 8 H100 x 7 instances of 1g.10gb.
    assert quotas(queue(objs, "gpu"), "mig") == {
        "cpu": 416,
        "memory": "3744Gi",
        "nvidia.com/mig-1g.10gb": 112,
    }
    balanced = {"mode": "mig", "mig": {"layout": "all-balanced", "strategy": "mixed"}}
    objs = build({"name": "mig", "max_nodes": 2, **H100_NODE, "sharing": balanced})
    # all-balanced on H100: 2 x 1g.10gb + 1 x 2g.20gb + 1 x 3g.40gb per GPU; 16 GPUs.
    assert quotas(queue(objs, "gpu"), "mig") == {
        "cpu": 416,
        "memory": "3744Gi",
        "nvidia.com/mig-1g.10gb": 32,
        "nvidia.com/mig-2g.20gb": 16,
        "nvidia.com/mig-3g.40gb": 16,
    }


def test_mig_single_pool_quota_is_instances_as_nvidia_gpu() -> None:
    single = {"mode": "mig", "mig": {"layout": "all-3g.40gb", "strategy": "single"}}
    objs = build({"name": "mig", "max_nodes": 3, **H100_NODE, "sharing": single})
    # Single strategy: each of the 2 instances per GPU is advertised as nvidia.com/gpu; 3 x 8 x 2.
    assert quotas(queue(objs, "gpu"), "mig") == {"cpu": 624, "memory": "5616Gi", "nvidia.com/gpu": 48}


def test_mixed_pools_share_one_group_and_list_zero_for_what_they_lack() -> None:
    objs = build(
        {"name": "h100", "max_nodes": 2, **H100_NODE},
        {
            "name": "mig",
            "max_nodes": 1,
            **H100_NODE,
            "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb"}},
        },
    )
    cq = queue(objs, "gpu")
    (group,) = cq["spec"]["resourceGroups"]
    assert group["coveredResources"] == ["cpu", "memory", "nvidia.com/gpu", "nvidia.com/mig-1g.10gb"]
    for flavor in group["flavors"]:
        assert [r["name"] for r in flavor["resources"]] == group["coveredResources"]
    assert quotas(cq, "h100")["nvidia.com/mig-1g.10gb"] == 0
    assert quotas(cq, "mig") == {
        "cpu": 208,
        "memory": "1872Gi",
        "nvidia.com/gpu": 0,
        "nvidia.com/mig-1g.10gb": 56,
    }


def _flatten(value: Any, path: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(_flatten(v, f"{path}.{k}" if path else k))
        return out
    if isinstance(value, list):
        out = {}
        for i, v in enumerate(value):
            key = v.get("name", i) if isinstance(v, dict) else i
            out.update(_flatten(v, f"{path}[{key}]"))
        return out
    return {path: value}


def _everything(p: ko.KueuePlan) -> dict[str, Any]:
    docs = [*p.objects.custom_resources(), *p.objects.namespaces, ko.manager_configuration(p.spec)]
    return _flatten({f"{d['kind']}/{d.get('metadata', {}).get('name', '')}": d for d in docs})


def test_raising_max_nodes_changes_only_that_pools_quota() -> None:
    spec = {
        "cluster_queues": [
            {"name": "research", "pools": ["h100", "mig"]},
            {"name": "batch", "pools": ["l4"]},
        ],
        "teams": [{"name": "ml", "cluster_queue": "research"}, {"name": "etl", "cluster_queue": "batch"}],
    }
    l4 = {"name": "l4", "gpu": "l4", "gpus_per_node": 1, "cpus_per_node": 8, "memory_gib_per_node": 32}
    mig = {"name": "mig", **H100_NODE, "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb"}}}

    def snapshot(h100_max: int) -> dict[str, Any]:
        return _everything(
            plan(
                {"name": "h100", "max_nodes": h100_max, **H100_NODE},
                {**mig, "max_nodes": 1},
                {**l4, "max_nodes": 2},
                **spec,
            )
        )

    before, after = snapshot(2), snapshot(3)
    assert before.keys() == after.keys()
    changed = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
    prefix = "ClusterQueue/research.spec.resourceGroups[0].flavors[h100].resources"
    assert changed == {
        f"{prefix}[cpu].nominalQuota": (416, 624),
        f"{prefix}[memory].nominalQuota": ("3744Gi", "5616Gi"),
        f"{prefix}[nvidia.com/gpu].nominalQuota": (16, 24),
    }


# --- cohorts: borrowing without counting a pool twice -------------------------------------------


def _two_team_cohort(**limits: Any) -> ko.KueueObjects:
    return build(
        {"name": "a", "max_nodes": 2, **H100_NODE},
        {"name": "b", "max_nodes": 1, **H100_NODE},
        cluster_queues=[
            {"name": "team-a", "pools": ["a"], "cohort": "ml", **limits},
            {"name": "team-b", "pools": ["b"], "cohort": "ml", **limits},
        ],
    )


def test_cohort_peers_list_each_others_pools_with_zero_nominal_quota() -> None:
    objs = _two_team_cohort()
    a, b = queue(objs, "team-a"), queue(objs, "team-b")
    assert a["spec"]["cohortName"] == "ml" and b["spec"]["cohortName"] == "ml"
    assert [f["name"] for f in a["spec"]["resourceGroups"][0]["flavors"]] == ["a", "b"]
    assert [f["name"] for f in b["spec"]["resourceGroups"][0]["flavors"]] == ["b", "a"]
    assert quotas(a, "a")["nvidia.com/gpu"] == 16 and quotas(a, "b")["nvidia.com/gpu"] == 0
    assert quotas(b, "b")["nvidia.com/gpu"] == 8 and quotas(b, "a")["nvidia.com/gpu"] == 0
    # Summed over the cohort, each pool is counted exactly once.
    for pool, gpus in (("a", 16), ("b", 8)):
        assert sum(quotas(q, pool)["nvidia.com/gpu"] for q in (a, b)) == gpus
    # No limits configured: nothing set (Kueue: unlimited borrowing, full lending).
    for r in a["spec"]["resourceGroups"][0]["flavors"][1]["resources"]:
        assert "borrowingLimit" not in r and "lendingLimit" not in r


def test_borrowing_and_lending_limits_are_percent_of_pool_capacity() -> None:
    objs = _two_team_cohort(borrowing_limit_percent=50, lending_limit_percent=30)
    a = queue(objs, "team-a")
    (group,) = a["spec"]["resourceGroups"]
    own, peer = ({r["name"]: r for r in f["resources"]} for f in group["flavors"])
    # Peer pool b: 1 node x 8 GPUs; may borrow half.
    assert peer["nvidia.com/gpu"] == {"name": "nvidia.com/gpu", "nominalQuota": 0, "borrowingLimit": 4}
    assert peer["cpu"]["borrowingLimit"] == 104 and peer["memory"]["borrowingLimit"] == "936Gi"
    # Own pool a: 16 GPUs, lends at most 30%, rounded down to whole units (4.8 -> 4 GPUs).
    gpu = {"name": "nvidia.com/gpu", "nominalQuota": 16, "borrowingLimit": 8, "lendingLimit": 4}
    assert own["nvidia.com/gpu"] == gpu
    assert own["cpu"]["lendingLimit"] == "124800m"  # 30% of 416 cores
    assert own["memory"]["lendingLimit"] == f"{2 * 1872 * 1024 * 30 // 100}Mi"


def test_queue_without_cohort_has_no_cohort_or_limits() -> None:
    objs = build({"name": "a", "max_nodes": 1, **H100_NODE}, cluster_queues=[{"name": "solo"}])
    spec = queue(objs, "solo")["spec"]
    assert "cohortName" not in spec
    assert all(
        set(r) == {"name", "nominalQuota"}
        for f in spec["resourceGroups"][0]["flavors"]
        for r in f["resources"]
    )


# --- two teams on one pool: shares that add up to the pool, or a queue that only borrows ---------------

L4_TS = {
    "name": "l4",
    "gpu": "l4",
    "gpus_per_node": 1,
    "cpus_per_node": 8,
    "memory_gib_per_node": 32,
    "max_nodes": 3,
    "sharing": {"mode": "time-slicing", "replicas": 4},
}
"""3 nodes x 1 L4 x 4 replicas: 12 nvidia.com/gpu, 24 cores, 96Gi."""


def _flavor_names(cq: dict[str, Any]) -> list[str]:
    return [f["name"] for f in cq["spec"]["resourceGroups"][0]["flavors"]]


def test_two_queues_listing_one_pool_split_it_evenly_and_borrow_each_other_s_idle_half() -> None:
    objs = build(
        L4_TS,
        cluster_queues=[
            {"name": "team-a", "pools": ["l4"], "cohort": "l4-teams"},
            {"name": "team-b", "pools": ["l4"], "cohort": "l4-teams"},
        ],
    )
    a, b = queue(objs, "team-a"), queue(objs, "team-b")
    half = {"cpu": 12, "memory": "48Gi", "nvidia.com/gpu": 6}
    assert quotas(a, "l4") == half and quotas(b, "l4") == half
    # The pool is each queue's own flavor once, never also a peer's flavor with 0.
    assert _flavor_names(a) == ["l4"] and _flavor_names(b) == ["l4"]
    assert a["spec"]["cohortName"] == b["spec"]["cohortName"] == "l4-teams"


def test_pool_shares_are_percent_of_the_pool_and_add_up_to_it_exactly() -> None:
    objs = build(
        L4_TS,
        cluster_queues=[
            {"name": "team-a", "pools": ["l4"], "cohort": "l4", "pool_share_percent": {"l4": 75}},
            {"name": "team-b", "pools": ["l4"], "cohort": "l4", "pool_share_percent": {"l4": 25}},
        ],
    )
    assert quotas(queue(objs, "team-a"), "l4") == {"cpu": 18, "memory": "72Gi", "nvidia.com/gpu": 9}
    assert quotas(queue(objs, "team-b"), "l4") == {"cpu": 6, "memory": "24Gi", "nvidia.com/gpu": 3}
    # Whole units that do not divide: the first queues take the remainder, the sum is the pool.
    odd = {**L4_TS, "sharing": {"mode": "none"}}  # 3 whole L4s over three queues of a third each
    three = build(odd, cluster_queues=[{"name": f"q{i}", "pools": ["l4"], "cohort": "l4"} for i in range(3)])
    assert [quotas(queue(three, f"q{i}"), "l4")["nvidia.com/gpu"] for i in range(3)] == [1, 1, 1]
    two = build(odd, cluster_queues=[{"name": f"q{i}", "pools": ["l4"], "cohort": "l4"} for i in range(2)])
    assert [quotas(queue(two, f"q{i}"), "l4") for i in range(2)] == [
        {"cpu": 12, "memory": "48Gi", "nvidia.com/gpu": 2},
        {"cpu": 12, "memory": "48Gi", "nvidia.com/gpu": 1},
    ]


def test_lending_limit_is_percent_of_the_queue_s_share_and_borrowing_of_the_pool() -> None:
    objs = build(
        L4_TS,
        cluster_queues=[
            {"name": "team-a", "pools": ["l4"], "cohort": "l4", "lending_limit_percent": 50},
            {"name": "team-b", "pools": ["l4"], "cohort": "l4", "borrowing_limit_percent": 25},
        ],
    )
    (a,) = queue(objs, "team-a")["spec"]["resourceGroups"][0]["flavors"]
    (b,) = queue(objs, "team-b")["spec"]["resourceGroups"][0]["flavors"]
    assert {r["name"]: r.get("lendingLimit") for r in a["resources"]} == {
        "cpu": 6,
        "memory": "24Gi",
        "nvidia.com/gpu": 3,
    }
    assert {r["name"]: r.get("borrowingLimit") for r in b["resources"]} == {
        "cpu": 6,
        "memory": "24Gi",
        "nvidia.com/gpu": 3,
    }


def test_a_borrow_only_queue_has_zero_nominal_quota_on_every_pool_of_its_cohort() -> None:
    objs = build(
        L4_TS,
        {"name": "h100", "max_nodes": 1, **H100_NODE},
        cluster_queues=[
            {"name": "owner", "pools": ["l4", "h100"], "cohort": "ml"},
            {"name": "guest", "pools": [], "cohort": "ml", "borrowing_limit_percent": 50},
        ],
    )
    owner, guest = queue(objs, "owner"), queue(objs, "guest")
    assert _flavor_names(guest) == ["l4", "h100"]
    assert quotas(guest, "l4") == {"cpu": 0, "memory": "0Gi", "nvidia.com/gpu": 0}
    assert quotas(owner, "l4") == {"cpu": 24, "memory": "96Gi", "nvidia.com/gpu": 12}
    (group,) = guest["spec"]["resourceGroups"]
    assert {r["name"]: r["borrowingLimit"] for r in group["flavors"][0]["resources"]} == {
        "cpu": 12,
        "memory": "48Gi",
        "nvidia.com/gpu": 6,
    }


def test_nominal_quotas_of_a_pool_add_up_to_its_capacity_over_every_queue() -> None:
    objs = build(
        L4_TS,
        {"name": "h100", "max_nodes": 2, **H100_NODE},
        cluster_queues=[
            {"name": "a", "pools": ["l4", "h100"], "cohort": "x", "pool_share_percent": {"l4": 75}},
            {"name": "b", "pools": ["l4"], "cohort": "x", "pool_share_percent": {"l4": 25}},
            {"name": "c", "pools": [], "cohort": "x"},
            {"name": "d", "pools": ["h100"]},
        ],
    )
    capacity = {"l4": {"nvidia.com/gpu": 12, "cpu": 24}, "h100": {"nvidia.com/gpu": 16, "cpu": 416}}
    for pool, want in capacity.items():
        for resource, total in want.items():
            listed = [
                r["nominalQuota"]
                for cq in objs.cluster_queues
                for f in cq["spec"]["resourceGroups"][0]["flavors"]
                if f["name"] == pool
                for r in f["resources"]
                if r["name"] == resource
            ]
            assert sum(listed) == total, (pool, resource, listed)


def test_shares_and_borrow_only_queues_that_break_the_pool_s_total_are_refused() -> None:
    l4 = dict(L4_TS)
    found = _problems(
        l4,
        {"name": "h100", "max_nodes": 1, **H100_NODE},
        cluster_queues=[
            {"name": "a", "pools": ["l4"], "cohort": "x", "pool_share_percent": {"l4": 60}},
            {"name": "b", "pools": ["l4"], "cohort": "x", "pool_share_percent": {"l4": 30}},
            {"name": "c", "pools": ["h100"], "pool_share_percent": {"h100": 50, "l4": 10}},
            {"name": "d", "pools": []},
            {"name": "e", "pools": [], "cohort": "nobody"},
        ],
    )
    assert set(found) == {
        "cluster_queues[0].pool_share_percent.l4",
        "cluster_queues[2].pool_share_percent.h100",
        "cluster_queues[2].pool_share_percent.l4",
        "cluster_queues[3].pools",
        "cluster_queues[4].pools",
    }
    assert "add up to 90" in found["cluster_queues[0].pool_share_percent.l4"]
    assert "'a' 60, 'b' 30" in found["cluster_queues[0].pool_share_percent.l4"]
    assert "only ClusterQueue listing pool 'h100'" in found["cluster_queues[2].pool_share_percent.h100"]
    assert "not one of this queue's pools" in found["cluster_queues[2].pool_share_percent.l4"]
    assert "no cohort to borrow from" in found["cluster_queues[3].pools"]
    assert "no queue of cohort 'nobody'" in found["cluster_queues[4].pools"]
    # A share out of range is one mistake, said once (not also as a wrong total).
    out_of_range = _problems(
        l4,
        cluster_queues=[
            {"name": "a", "pools": ["l4"], "cohort": "x", "pool_share_percent": {"l4": 100}},
            {"name": "b", "pools": ["l4"], "cohort": "x", "pool_share_percent": {"l4": 0}},
        ],
    )
    assert list(out_of_range) == ["cluster_queues[1].pool_share_percent.l4"]
    assert "1 to 100" in out_of_range["cluster_queues[1].pool_share_percent.l4"]
    # Shares for some of the queues listing a pool only: the others are named.
    partial = _problems(
        l4,
        cluster_queues=[
            {"name": "a", "pools": ["l4"], "cohort": "x", "pool_share_percent": {"l4": 50}},
            {"name": "b", "pools": ["l4"], "cohort": "x"},
        ],
    )
    assert list(partial) == ["cluster_queues[1].pool_share_percent"]
    assert "ClusterQueue 'a' gives a share of" in partial["cluster_queues[1].pool_share_percent"]


# --- flavors select and tolerate their pool -----------------------------------------------------


def test_flavor_selects_the_pool_and_tolerates_every_taint() -> None:
    (flavor,) = build(
        {
            "name": "spot-a100",
            "machine_type": "Standard_NC24ads_A100_v4",
            "max_nodes": 2,
            "spot": True,
            "taints": [{"key": "team", "value": "ml", "effect": "NoSchedule"}],
        },
        cloud="aks",
    ).flavors
    assert flavor["metadata"]["name"] == "spot-a100"
    assert flavor["spec"]["nodeLabels"] == {
        "gpu-platform.io/pool": "spot-a100",
        "gpu-platform.io/gpu": "a100-80gb",
    }
    assert flavor["spec"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "team", "operator": "Equal", "value": "ml", "effect": "NoSchedule"},
        {
            "key": "kubernetes.azure.com/scalesetpriority",
            "operator": "Equal",
            "value": "spot",
            "effect": "NoSchedule",
        },
    ]


def test_team_namespace_carries_the_label_its_queue_selects() -> None:
    objs = build(
        {"name": "a", "max_nodes": 1, **H100_NODE},
        teams=[{"name": "vision", "cluster_queue": "gpu", "queue_name": "train"}],
    )
    (ns,) = objs.namespaces
    (lq,) = objs.local_queues
    selector = queue(objs, "gpu")["spec"]["namespaceSelector"]["matchLabels"]
    assert ns["metadata"]["name"] == "vision"
    assert selector.items() <= ns["metadata"]["labels"].items()
    assert lq["metadata"] == {"name": "train", "namespace": "vision"}
    assert lq["spec"] == {"clusterQueue": "gpu"}


def test_default_priority_classes() -> None:
    objs = build({"name": "a", "max_nodes": 1, **H100_NODE})
    values = {pc["metadata"]["name"]: pc["value"] for pc in objs.priority_classes}
    assert values == {"inference-high": 1000, "training": 500, "batch-low": 100}
    assert all("spec" not in pc for pc in objs.priority_classes)


# --- Configuration ------------------------------------------------------------------------------


def test_configuration_enables_gang_admission_by_default() -> None:
    conf = ko.manager_configuration(settings())
    assert conf["apiVersion"] == "config.kueue.x-k8s.io/v1beta2"
    assert conf["waitForPodsReady"] == {
        # The pool scales from zero (min_nodes 0): pods may wait for a node, so Kueue's own 30m.
        "timeout": "30m",
        # Kueue's own default: admissions are not serialised behind a slow start-up.
        "blockAdmission": False,
        "requeuingStrategy": {
            "timestamp": "Eviction",
            "backoffLimitCount": 5,
            "backoffBaseSeconds": 60,
            "backoffMaxSeconds": 3600,
        },
    }
    assert "enable" not in conf["waitForPodsReady"]  # v1beta2: presence enables it
    # Without integrations the component names no controller it cannot see installed (a framework whose
    # controller is missing leaves Kueue waiting for CRDs that never come): only the controller-free kinds.
    assert conf["integrations"]["frameworks"] == ["batch/job", "pod", "deployment"]


def test_default_timeout_is_short_only_when_pods_never_wait_for_a_node() -> None:
    def timeout(**pool: Any) -> str:
        spec = plan({"name": "a", **H100_NODE, **pool}).spec
        return ko.manager_configuration(spec)["waitForPodsReady"]["timeout"]

    assert timeout(min_nodes=2, max_nodes=2) == "10m"  # fixed size: only image pulls
    assert timeout(min_nodes=1, max_nodes=2) == "30m"  # scale-up
    assert timeout(min_nodes=0, max_nodes=2) == "30m"  # scale from zero
    mig = {"mode": "mig", "mig": {"layout": "all-1g.10gb"}}
    assert timeout(min_nodes=2, max_nodes=2, sharing=mig) == "30m"  # the MIG manager may reboot the node
    spec = plan({"name": "a", **H100_NODE, "max_nodes": 2}, wait_for_pods_ready={"timeout": "45m"}).spec
    assert ko.manager_configuration(spec)["waitForPodsReady"]["timeout"] == "45m"  # given: kept


def test_configuration_without_gang_admission_or_backoff_limit() -> None:
    off = ko.manager_configuration(settings(wait_for_pods_ready={"enabled": False}))
    assert "waitForPodsReady" not in off
    # -1 requeues forever: Kueue's Configuration expresses that by leaving backoffLimitCount out.
    forever = settings(wait_for_pods_ready={"requeuing_strategy": {"backoff_limit_count": -1}})
    strategy = ko.manager_configuration(forever)["waitForPodsReady"]["requeuingStrategy"]
    assert strategy == {"timestamp": "Eviction", "backoffBaseSeconds": 60, "backoffMaxSeconds": 3600}
    # Zero is a real limit (deactivate at the first eviction), not "unset".
    never = settings(wait_for_pods_ready={"requeuing_strategy": {"backoff_limit_count": 0}})
    assert ko.manager_configuration(never)["waitForPodsReady"]["requeuingStrategy"]["backoffLimitCount"] == 0


# --- problems -----------------------------------------------------------------------------------


def _problems(*pools: dict[str, Any], **kueue: Any) -> dict[str, str]:
    """``path -> reason`` of every problem ``plan_kueue`` reports (it must report some)."""
    with pytest.raises(ArgumentsError) as err:
        plan(*pools, **kueue)
    return dict(err.value.problems)


def test_a_queue_without_pools_must_be_the_only_one_and_its_message_says_what_to_write() -> None:
    pools = ({"name": "a", "max_nodes": 1, **H100_NODE}, {"name": "b", "max_nodes": 1, **H100_NODE})
    queues = [{"name": "x", "cohort": "ml"}, {"name": "y", "pools": ["a"], "cohort": "ml"}]
    found = _problems(*pools, cluster_queues=queues)
    assert list(found) == ["cluster_queues[0].pools"]
    reason = found["cluster_queues[0].pools"]
    assert "takes every pool" in reason and "ClusterQueue 'y'" in reason
    # The advice is what to write, and written, it plans: 'x' lists its pools, 'a' is shared with 'y'.
    assert "pools: [a, b]" in reason and "pools: []" in reason
    fixed = build(*pools, cluster_queues=[{**queues[0], "pools": ["a", "b"]}, queues[1]])
    assert quotas(queue(fixed, "x"), "a")["nvidia.com/gpu"] == 4
    assert quotas(queue(fixed, "y"), "a")["nvidia.com/gpu"] == 4
    assert quotas(queue(fixed, "x"), "b")["nvidia.com/gpu"] == 8
    borrow_only = build(*pools, cluster_queues=[{**queues[0], "pools": []}, queues[1]])
    assert quotas(queue(borrow_only, "x"), "a")["nvidia.com/gpu"] == 0


def test_more_than_eight_tolerations_is_refused_naming_the_taints() -> None:
    taints = [{"key": f"t{i}", "value": "x"} for i in range(8)]
    found = _problems({"name": "a", "max_nodes": 1, **H100_NODE, "taints": taints})
    assert "at most 8" in found["pools[0].taints"]


def test_namespace_shared_by_teams_of_different_queues_is_refused() -> None:
    found = _problems(
        {"name": "a", "max_nodes": 1, **H100_NODE},
        {"name": "b", "max_nodes": 1, **H100_NODE},
        cluster_queues=[{"name": "x", "pools": ["a"]}, {"name": "y", "pools": ["b"]}],
        teams=[
            {"name": "t1", "namespace": "shared", "cluster_queue": "x"},
            {"name": "t2", "namespace": "shared", "cluster_queue": "y"},
        ],
    )
    assert "already belongs to ClusterQueue 'x'" in found["teams[1].cluster_queue"]


def _limit_pools(n: int) -> list[dict[str, Any]]:
    """``n`` pools advertising 7 distinct GPU resources between them (9 covered resources with cpu and
    memory): a plain pool, a renamed time-sliced one, five MIG pools of one profile each, then plain."""
    sharing: list[dict[str, Any]] = [
        {},
        {"mode": "time-slicing", "replicas": 2, "rename_by_default": True},
        *({"mode": "mig", "mig": {"layout": f"all-{prof}"}} for prof in ("1g.10gb", "1g.20gb", "2g.20gb")),
        *({"mode": "mig", "mig": {"layout": f"all-{prof}"}} for prof in ("3g.40gb", "7g.80gb")),
    ]
    return [
        {"name": f"p{i}", "max_nodes": 1, **H100_NODE, "sharing": sharing[i] if i < len(sharing) else {}}
        for i in range(n)
    ]


def test_queue_limits_are_checked_on_the_queue_that_would_be_generated() -> None:
    # 60 flavors x 9 covered resources = 540 quotas > Kueue's 512 per resource group.
    found = _problems(*_limit_pools(60), cluster_queues=[{"name": "big"}])
    assert list(found) == ["cluster_queues[0].pools"]
    assert "60 pools x 9 resources = 540 quotas" in found["cluster_queues[0].pools"]
    assert "512" in found["cluster_queues[0].pools"]
    # 56 x 9 = 504 fits: the same queue is generated, in one resource group.
    objs = build(*_limit_pools(56), cluster_queues=[{"name": "big"}])
    (group,) = queue(objs, "big")["spec"]["resourceGroups"]
    assert len(group["coveredResources"]) == 9 and len(group["flavors"]) == 56
    # More than 64 flavors in one queue is refused on its own; the default queue (no cluster_queues
    # given) is reported under cluster_queues, where splitting the pools is configured.
    many = _problems(*({"name": f"p{i}", "max_nodes": 1, **H100_NODE} for i in range(65)))
    assert list(many) == ["cluster_queues.pools"]
    assert "65 pools" in many["cluster_queues.pools"] and "64 flavors" in many["cluster_queues.pools"]


def test_requeue_backoff_limit_below_forever_is_refused() -> None:
    found = _problems(
        {"name": "a", "max_nodes": 1, **H100_NODE},
        wait_for_pods_ready={"requeuing_strategy": {"backoff_limit_count": -2, "backoff_base_seconds": 0}},
    )
    assert set(found) == {
        "wait_for_pods_ready.requeuing_strategy.backoff_limit_count",
        "wait_for_pods_ready.requeuing_strategy.backoff_base_seconds",
    }
    assert "-1 (forever)" in found["wait_for_pods_ready.requeuing_strategy.backoff_limit_count"]


def test_stack_config_reports_kueue_problems_under_its_keys() -> None:
    raw = {
        "cloud": "existing",
        "cluster": {"name": "c", "kubeconfig": "k"},
        "gpuPools": [
            {
                "name": "a",
                "gpu": "h100-80gb",
                "gpusPerNode": 8,
                "cpusPerNode": 208,
                "memoryGibPerNode": 1872,
                "maxNodes": 1,
            }
        ],
        "gpuOperator": {"enabled": False},
        "kueue": {
            "clusterQueues": [
                {"name": "x"},
                {
                    "name": "y",
                    "preemption": {"reclaimWithinCohort": "Never", "borrowWithinCohort": "LowerPriority"},
                },
            ],
            "integrations": ["batch/job", "statefulset"],
        },
    }
    with pytest.raises(ConfigError) as err:
        load_platform(raw)
    found = {path: reason for path, reason in err.value.problems if path.startswith("gpu-platform:kueue.")}
    assert set(found) == {
        "gpu-platform:kueue.clusterQueues[1].pools",
        "gpu-platform:kueue.clusterQueues[1].preemption.borrowWithinCohort",
        "gpu-platform:kueue.integrations[1]",
    }
    assert "ClusterQueue 'x' takes every pool too" in found["gpu-platform:kueue.clusterQueues[1].pools"]
    assert "poolSharePercent" in found["gpu-platform:kueue.clusterQueues[1].pools"]
    assert "'pod'" in found["gpu-platform:kueue.integrations[1]"]


def test_names_kueue_would_reject_are_reported() -> None:
    found = _problems(
        {"name": "a", "max_nodes": 1, **H100_NODE},
        cluster_queues=[{"name": "x", "pools": ["a", "a"], "cohort": "Not_A_Name"}],
        teams=[{"name": "t", "cluster_queue": "x", "queue_name": "Bad Queue"}],
        integrations=["batch/job", "kubeflow.org/unknownjob"],
    )
    assert found["cluster_queues[0].pools[1]"] == "'a' is listed twice"
    assert "cluster_queues[0].cohort" in found
    assert "teams[0].queue_name" in found
    assert found["integrations[1]"].startswith("'kubeflow.org/unknownjob' is not a Kueue 0.19 integration")


def test_kueue_manages_pods_and_deployments_only_in_team_namespaces() -> None:
    """With the pod and Deployment integrations on (KServe's predictors), the chart gives their webhooks
    ``failurePolicy: Fail`` and the Configuration's ``managedJobsNamespaceSelector``: limited to the team
    namespaces, the GPU Operator's and the other operators' Deployments never wait on Kueue's webhook (refused
    while Kueue is not serving, as just after its chart installs the webhooks)."""
    from tests.support.helm import rendered_documents

    plan = plan_kueue(
        {
            "cloud": "existing",
            "pools": [{"name": "a", "max_nodes": 1, **H100_NODE}],
            "teams": [{"name": "vision", "cluster_queue": "gpu"}],
        }
    )
    conf = ko.manager_configuration(plan.spec)
    selector = {"matchExpressions": [{"key": "gpu-platform.io/cluster-queue", "operator": "Exists"}]}
    assert conf["managedJobsNamespaceSelector"] == selector
    (ns,) = plan.objects.namespaces
    assert "gpu-platform.io/cluster-queue" in ns["metadata"]["labels"]
    docs = rendered_documents("kueue-0.19.2", plan.values, "kueue", "kueue-system", skip_without_helm=True)
    (mutating,) = [d for d in docs if d["kind"] == "MutatingWebhookConfiguration"]
    hooks = {h["name"]: h for h in mutating["webhooks"]}
    for name in ("mpod.kb.io", "mdeployment.kb.io"):
        assert hooks[name]["failurePolicy"] == "Fail", name
        assert hooks[name]["namespaceSelector"] == selector, name
