"""``findings(expected, snapshot)``: a cluster that holds the plan has none; each kind of drift is reported, with
what the plan says and what the cluster holds."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpu_platform import versions
from gpu_platform.verify.finding import Finding
from gpu_platform.verify.findings import findings, subjects
from gpu_platform.verify.snapshot import Snapshot, empty_snapshot
from tests.support.verify import planned_snapshot, stack_expectation


def _errors(found: list[Finding]) -> list[tuple[str, str, str, str]]:
    return [(f.check, f.object, f.expected, f.found) for f in found if f.severity == "error"]


def _node(snapshot: Snapshot, pool: str) -> dict[str, Any]:
    return next(n for n in snapshot["nodes"] if n["metadata"]["labels"].get("gpu-platform.io/pool") == pool)


def test_the_dev_expectation_is_the_plan() -> None:
    expected = stack_expectation("dev")
    (pool,) = expected.pools
    assert pool.name == "l4-spot"
    assert pool.taints == ("nvidia.com/gpu=present:NoSchedule",)
    assert pool.allocatable == {"nvidia.com/gpu": 4}  # one L4 time-sliced 4 ways
    assert pool.labels["nvidia.com/device-plugin.config"] == "l4-spot-time-slicing-4"
    (queue,) = expected.cluster_queues
    assert queue.quotas[("l4-spot", "nvidia.com/gpu")] == 12  # 3 nodes x 4 replicas
    operator = next(r for r in expected.releases if r.chart == "gpu-operator")
    assert (operator.namespace, operator.version) == ("gpu-operator", versions.GPU_OPERATOR.version)
    assert expected.operands is not None
    assert expected.operands.apps == ("nvidia-operator-validator", "nvidia-dcgm-exporter")


def test_mig_and_efa_pools_expect_their_resources() -> None:
    pools = {p.name: p for p in stack_expectation("prod").pools}
    assert pools["h100-inference"].allocatable == {
        "nvidia.com/mig-1g.10gb": 16,
        "nvidia.com/mig-2g.20gb": 8,
        "nvidia.com/mig-3g.40gb": 8,
    }
    assert pools["h100-training"].allocatable["vpc.amazonaws.com/efa"] == 32
    assert "dedicated=training:NoSchedule" in pools["h100-training"].taints


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_a_cluster_as_planned_has_no_findings(stack: str) -> None:
    expected = stack_expectation(stack)
    snapshot = planned_snapshot(expected, nodes_per_pool=2)
    assert findings(expected, snapshot) == []


def test_a_missing_gpu_taint_is_reported() -> None:
    expected = stack_expectation("dev")
    snapshot = planned_snapshot(expected)
    _node(snapshot, "l4-spot")["spec"]["taints"] = []
    assert _errors(findings(expected, snapshot)) == [
        ("gpu-nodes", "node l4-spot-0", "taint nvidia.com/gpu=present:NoSchedule", "no nvidia.com/gpu taint")
    ]


def test_a_gpu_taint_with_another_effect_is_reported() -> None:
    expected = stack_expectation("dev")
    snapshot = planned_snapshot(expected)
    _node(snapshot, "l4-spot")["spec"]["taints"] = [
        {"key": "nvidia.com/gpu", "value": "present", "effect": "PreferNoSchedule"}
    ]
    ((_, _, want, found),) = _errors(findings(expected, snapshot))
    assert (want, found) == (
        "taint nvidia.com/gpu=present:NoSchedule",
        "nvidia.com/gpu=present:PreferNoSchedule",
    )


def test_a_wrong_cluster_queue_quota_is_reported() -> None:
    expected = stack_expectation("dev")
    snapshot = planned_snapshot(expected)
    flavors = snapshot["clusterQueues"][0]["spec"]["resourceGroups"][0]["flavors"]
    gpu = next(
        r for f in flavors if f["name"] == "l4-spot" for r in f["resources"] if r["name"] == "nvidia.com/gpu"
    )
    gpu["nominalQuota"] = "8"
    assert _errors(findings(expected, snapshot)) == [
        (
            "kueue",
            "ClusterQueue dev",
            "l4-spot nvidia.com/gpu nominalQuota 12",
            "l4-spot nvidia.com/gpu nominalQuota 8",
        )
    ]


def test_quotas_compare_as_quantities() -> None:
    """``22095m`` and ``22.095`` are one quota: the API server may serve a quantity in another form."""
    expected = stack_expectation("dev")
    snapshot = planned_snapshot(expected)
    flavors = snapshot["clusterQueues"][0]["spec"]["resourceGroups"][0]["flavors"]
    cpu = next(r for f in flavors if f["name"] == "l4-spot" for r in f["resources"] if r["name"] == "cpu")
    assert cpu["nominalQuota"] == "22095m"
    cpu["nominalQuota"] = "22.095"
    assert findings(expected, snapshot) == []


def test_a_node_without_its_gpus_is_reported() -> None:
    expected = stack_expectation("dev")
    snapshot = planned_snapshot(expected)
    _node(snapshot, "l4-spot")["status"]["allocatable"]["nvidia.com/gpu"] = "0"
    assert _errors(findings(expected, snapshot)) == [
        ("gpu-nodes", "node l4-spot-0", "allocatable nvidia.com/gpu = 4", "nvidia.com/gpu = 0")
    ]


def test_a_mig_node_that_advertises_whole_gpus_is_reported() -> None:
    """The MIG manager has not applied the layout: the node shows 8 GPUs and none of the pool's slices."""
    expected = stack_expectation("prod")
    snapshot = planned_snapshot(expected)
    node = _node(snapshot, "h100-inference")
    node["status"]["allocatable"] = {"nvidia.com/gpu": "8", "cpu": "192"}
    errors = _errors(findings(expected, snapshot))
    assert [found for (_, obj, _, found) in errors if obj == "node h100-inference-0"] == [
        "no nvidia.com/mig-1g.10gb",
        "no nvidia.com/mig-2g.20gb",
        "no nvidia.com/mig-3g.40gb",
    ]


def test_a_missing_device_plugin_config_label_is_reported() -> None:
    expected = stack_expectation("dev")
    snapshot = planned_snapshot(expected)
    del _node(snapshot, "l4-spot")["metadata"]["labels"]["nvidia.com/device-plugin.config"]
    assert _errors(findings(expected, snapshot)) == [
        (
            "gpu-nodes",
            "node l4-spot-0",
            "device-plugin config label nvidia.com/device-plugin.config=l4-spot-time-slicing-4",
            "no nvidia.com/device-plugin.config device-plugin config label",
        )
    ]


def test_a_release_at_another_version_is_reported() -> None:
    expected = stack_expectation("dev")
    snapshot = planned_snapshot(expected)
    operator = next(r for r in snapshot["helmReleases"] if r["chart"] == "gpu-operator")
    operator["version"], operator["revision"] = "v25.10.1", 3
    assert _errors(findings(expected, snapshot)) == [
        (
            "releases",
            "release gpu-operator/gpu-operator",
            f"gpu-operator {versions.GPU_OPERATOR.version} deployed",
            "gpu-operator v25.10.1 deployed (revision 3)",
        )
    ]


def test_a_failed_or_missing_release_is_reported() -> None:
    expected = stack_expectation("dev")
    snapshot = planned_snapshot(expected)
    kueue = next(r for r in snapshot["helmReleases"] if r["name"] == "kueue")
    kueue["status"] = "failed"
    snapshot["helmReleases"] = [r for r in snapshot["helmReleases"] if r["name"] != "cert-manager"]
    found = {(obj, got) for (_, obj, _, got) in _errors(findings(expected, snapshot))}
    assert found == {
        ("release kueue-system/kueue", f"kueue {versions.KUEUE.version} failed (revision 1)"),
        ("release cert-manager/cert-manager", "not installed"),
    }


def test_a_cluster_queue_that_is_not_active_is_reported() -> None:
    expected = stack_expectation("dev")
    snapshot = planned_snapshot(expected)
    snapshot["clusterQueues"][0]["status"]["conditions"] = [
        {
            "type": "Active",
            "status": "False",
            "reason": "FlavorNotFound",
            "message": "Can't admit new workloads",
        }
    ]
    assert _errors(findings(expected, snapshot)) == [
        (
            "kueue",
            "ClusterQueue dev",
            "Active=True",
            "Active=False (FlavorNotFound: Can't admit new workloads)",
        )
    ]


def test_a_flavor_with_other_node_labels_is_reported() -> None:
    expected = stack_expectation("dev")
    snapshot = planned_snapshot(expected)
    flavor = next(f for f in snapshot["resourceFlavors"] if f["metadata"]["name"] == "l4-spot")
    flavor["spec"]["nodeLabels"]["gpu-platform.io/gpu"] = "t4"
    ((check, obj, _, found),) = _errors(findings(expected, snapshot))
    assert (check, obj) == ("kueue", "ResourceFlavor l4-spot")
    assert "'gpu-platform.io/gpu': 't4'" in found


def test_a_flavor_no_node_matches_is_a_warning() -> None:
    """A pool scaled to zero has no nodes: its flavor matching none is worth a look, not a failure."""
    expected = stack_expectation("dev")
    snapshot = planned_snapshot(expected)
    snapshot["nodes"] = [
        n for n in snapshot["nodes"] if "gpu-platform.io/pool" not in n["metadata"]["labels"]
    ]
    snapshot["pods"] = []
    found = findings(expected, snapshot)
    assert [(f.severity, f.object) for f in found] == [("warning", "ResourceFlavor l4-spot")]


def test_a_pool_below_its_minimum_is_reported() -> None:
    expected = stack_expectation("staging")  # t4-spot and a100-mig keep one node each
    snapshot = planned_snapshot(expected)
    snapshot["nodes"] = [n for n in snapshot["nodes"] if n["metadata"]["name"] != "a100-mig-0"]
    errors = _errors(findings(expected, snapshot))
    assert (
        "gpu-nodes",
        "pool a100-mig",
        ">= 1 nodes with gpu-platform.io/pool=a100-mig",
        "0 nodes",
    ) in errors


def test_a_gpu_node_without_its_validator_is_reported() -> None:
    expected = stack_expectation("dev")
    snapshot = planned_snapshot(expected)
    for pod in snapshot["pods"]:
        if pod["metadata"]["labels"]["app"] == "nvidia-operator-validator":
            pod["status"]["phase"] = "Pending"
    assert _errors(findings(expected, snapshot)) == [
        (
            "gpu-operator",
            "node l4-spot-0",
            "a running nvidia-operator-validator pod in gpu-operator",
            "nvidia-operator-validator-l4-spot-0 Pending",
        )
    ]


def test_a_gpu_node_of_no_planned_pool_is_a_warning() -> None:
    expected = stack_expectation("dev")
    snapshot = planned_snapshot(expected)
    stray = copy.deepcopy(_node(snapshot, "l4-spot"))
    stray["metadata"]["name"] = "hand-made"
    stray["metadata"]["labels"] = {}
    snapshot["nodes"].append(stray)
    found = findings(expected, snapshot)
    assert [(f.severity, f.object, f.found) for f in found] == [
        ("warning", "node hand-made", "no gpu-platform.io/pool label")
    ]


def test_every_finding_is_under_a_subject() -> None:
    expected = stack_expectation("staging")
    found = findings(expected, empty_snapshot())
    assert found and {(f.check, f.subject) for f in found} <= set(subjects(expected))
