"""Kueue objects from the pools: quotas equal physical capacity, flavors select and tolerate their pool.

Expected numbers are computed here from first principles (GPUs per node x units per GPU x nodes),
never by calling the capacity function under test.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.config import ConfigError, load_platform
from gpu_platform.config.kueue import KueueConfig
from gpu_platform.config.stack import resolve_pools
from gpu_platform.operators import kueue_objects as ko
from gpu_platform.pools import GpuPool

H100_NODE = {"gpu": "h100-80gb", "gpus_per_node": 8, "cpus_per_node": 208, "memory_gib_per_node": 1872}


def pools(*specs: dict[str, Any], cloud: str = "existing") -> list[GpuPool]:
    return resolve_pools(cloud, [dict(s) for s in specs])


def queue(objects: ko.KueueObjects, name: str) -> dict[str, Any]:
    return next(q for q in objects.cluster_queues if q["metadata"]["name"] == name)


def quotas(cq: dict[str, Any], flavor: str) -> dict[str, Any]:
    """``resource -> nominalQuota`` of one flavor in a ClusterQueue (one resource group)."""
    (group,) = cq["spec"]["resourceGroups"]
    f = next(f for f in group["flavors"] if f["name"] == flavor)
    return {r["name"]: r["nominalQuota"] for r in f["resources"]}


def build(ps: list[GpuPool], **kueue: Any) -> ko.KueueObjects:
    cfg = KueueConfig.model_validate(kueue)
    assert ko.problems(ps, cfg) == []
    return ko.build(ps, cfg)


# --- quotas == physical capacity ---------------------------------------------------------------


def test_plain_pool_quota_is_nodes_times_gpus_cpu_and_memory() -> None:
    objs = build(pools({"name": "h100", "max_nodes": 2, **H100_NODE}))
    assert quotas(queue(objs, "gpu"), "h100") == {
        "cpu": 2 * 208,
        "memory": f"{2 * 1872}Gi",
        "nvidia.com/gpu": 2 * 8,
    }


def test_cloud_pool_takes_cpu_and_memory_from_the_machine_type() -> None:
    # GKE a3-highgpu-8g: 8 x H100 80GB, 208 vCPU, 1872 GiB (Google's machine table).
    objs = build(pools({"name": "a3", "machine_type": "a3-highgpu-8g", "max_nodes": 4}, cloud="gke"))
    assert quotas(queue(objs, "gpu"), "a3") == {
        "cpu": 4 * 208,
        "memory": f"{4 * 1872}Gi",
        "nvidia.com/gpu": 32,
    }


def test_time_sliced_pool_quota_counts_replicas() -> None:
    # 3 nodes x 1 L4 x 4 replicas = 12 schedulable nvidia.com/gpu.
    ts = {"name": "l4", "gpu": "l4", "gpus_per_node": 1, "cpus_per_node": 8, "memory_gib_per_node": 32}
    objs = build(pools({**ts, "max_nodes": 3, "sharing": {"mode": "time-slicing", "replicas": 4}}))
    assert quotas(queue(objs, "gpu"), "l4") == {"cpu": 24, "memory": "96Gi", "nvidia.com/gpu": 12}
    renamed = {"mode": "time-slicing", "replicas": 4, "rename_by_default": True}
    objs = build(pools({**ts, "max_nodes": 3, "sharing": renamed}))
    assert quotas(queue(objs, "gpu"), "l4") == {"cpu": 24, "memory": "96Gi", "nvidia.com/gpu.shared": 12}


def test_mig_mixed_pool_quota_per_profile() -> None:
    one_g = {"mode": "mig", "mig": {"layout": "all-1g.10gb"}}
    objs = build(pools({"name": "mig", "max_nodes": 2, **H100_NODE, "sharing": one_g}))
    # 2 nodes x 8 H100 x 7 instances of 1g.10gb.
    assert quotas(queue(objs, "gpu"), "mig") == {
        "cpu": 416,
        "memory": "3744Gi",
        "nvidia.com/mig-1g.10gb": 112,
    }
    balanced = {"mode": "mig", "mig": {"layout": "all-balanced", "strategy": "mixed"}}
    objs = build(pools({"name": "mig", "max_nodes": 2, **H100_NODE, "sharing": balanced}))
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
    objs = build(pools({"name": "mig", "max_nodes": 3, **H100_NODE, "sharing": single}))
    # Single strategy: each of the 2 instances per GPU is advertised as nvidia.com/gpu; 3 x 8 x 2.
    assert quotas(queue(objs, "gpu"), "mig") == {"cpu": 624, "memory": "5616Gi", "nvidia.com/gpu": 48}


def test_mixed_pools_share_one_group_and_list_zero_for_what_they_lack() -> None:
    objs = build(
        pools(
            {"name": "h100", "max_nodes": 2, **H100_NODE},
            {
                "name": "mig",
                "max_nodes": 1,
                **H100_NODE,
                "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb"}},
            },
        )
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


def _everything(objs: ko.KueueObjects, cfg: KueueConfig) -> dict[str, Any]:
    docs = [*objs.custom_resources(), *objs.namespaces, ko.manager_configuration(cfg)]
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
        ps = pools(
            {"name": "h100", "max_nodes": h100_max, **H100_NODE},
            {**mig, "max_nodes": 1},
            {**l4, "max_nodes": 2},
        )
        cfg = KueueConfig.model_validate(spec)
        return _everything(ko.build(ps, cfg), cfg)

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
    ps = pools({"name": "a", "max_nodes": 2, **H100_NODE}, {"name": "b", "max_nodes": 1, **H100_NODE})
    return build(
        ps,
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
    objs = build(pools({"name": "a", "max_nodes": 1, **H100_NODE}), cluster_queues=[{"name": "solo"}])
    spec = queue(objs, "solo")["spec"]
    assert "cohortName" not in spec
    assert all(
        set(r) == {"name", "nominalQuota"}
        for f in spec["resourceGroups"][0]["flavors"]
        for r in f["resources"]
    )


# --- flavors select and tolerate their pool -----------------------------------------------------


def test_flavor_selects_the_pool_and_tolerates_every_taint() -> None:
    ps = pools(
        {
            "name": "spot-a100",
            "machine_type": "Standard_NC24ads_A100_v4",
            "max_nodes": 2,
            "spot": True,
            "taints": [{"key": "team", "value": "ml", "effect": "NoSchedule"}],
        },
        cloud="aks",
    )
    (flavor,) = build(ps).flavors
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
        pools({"name": "a", "max_nodes": 1, **H100_NODE}),
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
    objs = build(pools({"name": "a", "max_nodes": 1, **H100_NODE}))
    values = {pc["metadata"]["name"]: pc["value"] for pc in objs.priority_classes}
    assert values == {"inference-high": 1000, "training": 500, "batch-low": 100}
    assert all("spec" not in pc for pc in objs.priority_classes)


# --- Configuration ------------------------------------------------------------------------------


def test_configuration_enables_gang_admission_by_default() -> None:
    conf = ko.manager_configuration(KueueConfig())
    assert conf["apiVersion"] == "config.kueue.x-k8s.io/v1beta2"
    assert conf["waitForPodsReady"] == {
        "timeout": "10m",
        "blockAdmission": True,
        "requeuingStrategy": {
            "timestamp": "Eviction",
            "backoffLimitCount": 5,
            "backoffBaseSeconds": 60,
            "backoffMaxSeconds": 3600,
        },
    }
    assert "enable" not in conf["waitForPodsReady"]  # v1beta2: presence enables it
    assert {"batch/job", "jobset.x-k8s.io/jobset", "kubeflow.org/pytorchjob", "ray.io/rayjob"} <= set(
        conf["integrations"]["frameworks"]
    )


def test_configuration_without_gang_admission_or_backoff_limit() -> None:
    off = ko.manager_configuration(KueueConfig.model_validate({"wait_for_pods_ready": {"enabled": False}}))
    assert "waitForPodsReady" not in off
    forever = KueueConfig.model_validate(
        {"wait_for_pods_ready": {"requeuing_strategy": {"backoff_limit_count": None}}}
    )
    assert (
        "backoffLimitCount" not in ko.manager_configuration(forever)["waitForPodsReady"]["requeuingStrategy"]
    )


# --- problems -----------------------------------------------------------------------------------


def _problems(ps: list[GpuPool], **kueue: Any) -> dict[str, str]:
    from gpu_platform.config.errors import format_path

    return {format_path(loc): reason for loc, reason in ko.problems(ps, KueueConfig.model_validate(kueue))}


def test_a_pool_is_the_quota_of_one_queue_only() -> None:
    ps = pools({"name": "a", "max_nodes": 1, **H100_NODE})
    found = _problems(ps, cluster_queues=[{"name": "x", "pools": ["a"]}, {"name": "y", "pools": ["a"]}])
    assert "cluster_queues[1].pools[0]" in found
    assert "already the quota of ClusterQueue 'x'" in found["cluster_queues[1].pools[0]"]


def test_more_than_eight_tolerations_is_refused_naming_the_taints() -> None:
    taints = [{"key": f"t{i}", "value": "x"} for i in range(8)]
    found = _problems(pools({"name": "a", "max_nodes": 1, **H100_NODE, "taints": taints}))
    assert "at most 8" in found["pools[0].taints"]


def test_namespace_shared_by_teams_of_different_queues_is_refused() -> None:
    ps = pools({"name": "a", "max_nodes": 1, **H100_NODE}, {"name": "b", "max_nodes": 1, **H100_NODE})
    found = _problems(
        ps,
        cluster_queues=[{"name": "x", "pools": ["a"]}, {"name": "y", "pools": ["b"]}],
        teams=[
            {"name": "t1", "namespace": "shared", "cluster_queue": "x"},
            {"name": "t2", "namespace": "shared", "cluster_queue": "y"},
        ],
    )
    assert "already belongs to ClusterQueue 'x'" in found["teams[1].cluster_queue"]


def test_queue_limits_are_checked_on_the_generated_object() -> None:
    flavors = [
        {"name": f"f{i}", "resources": [{"name": f"r{j}", "nominalQuota": 1} for j in range(9)]}
        for i in range(60)
    ]
    obj = {
        "spec": {"resourceGroups": [{"coveredResources": [f"r{j}" for j in range(9)], "flavors": flavors}]}
    }
    (problem,) = ko.queue_limit_problems(obj)
    assert problem[0] == "pools" and "540 quotas" in problem[1]
    many = {"spec": {"resourceGroups": [{"coveredResources": ["cpu"], "flavors": []}] * 17}}
    assert ("resourceGroups", "17 resource groups; Kueue allows 16") in ko.queue_limit_problems(many)


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
    paths = {path for path, _ in err.value.problems}
    assert {
        "gpu-platform:kueue.clusterQueues[1].pools",
        "gpu-platform:kueue.clusterQueues[1].preemption.borrowWithinCohort",
        "gpu-platform:kueue.integrations[1]",
    } <= paths


def test_names_kueue_would_reject_are_reported() -> None:
    ps = pools({"name": "a", "max_nodes": 1, **H100_NODE})
    found = _problems(
        ps,
        cluster_queues=[{"name": "x", "pools": ["a", "a"], "cohort": "Not_A_Name"}],
        teams=[{"name": "t", "cluster_queue": "x", "queue_name": "Bad Queue"}],
        integrations=["batch/job", "kubeflow.org/unknownjob"],
    )
    assert found["cluster_queues[0].pools[1]"] == "'a' is listed twice"
    assert "cluster_queues[0].cohort" in found
    assert "teams[0].queue_name" in found
    assert found["integrations[1]"].startswith("'kubeflow.org/unknownjob' is not a Kueue 0.19 integration")
