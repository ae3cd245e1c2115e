"""Cohorts across a fleet: the manager's ClusterQueues carry the sums of their workers' borrowing and lending
limits, and list their cohort peers' flavors (nominal 0) as the workers do, so a job that must borrow is admitted
by the manager as it would be by a worker; every queue valid against Kueue's CRD and webhook at the pin."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.addons.fleet.checks import resolve_fleet_args
from gpu_platform.addons.fleet.plan import FleetPlan, fleet_plan
from tests.addons.fleet.fleet_args import H100, fleet
from tests.support import crds
from tests.support.kueue import webhook_problems

L4G = {"name": "l4g", "machine_type": "g2-standard-8", "min_nodes": 0, "max_nodes": 2}
"""1 L4 per g2-standard-8 on GKE: 2 GPUs."""


@pytest.fixture(scope="module")
def plan() -> FleetPlan:
    args = fleet()
    args["workers"][0]["pools"] = [dict(H100), dict(L4G)]
    training, inference = args["cluster_queues"]
    training.update(cohort="ml", borrowing_limit_percent=50)
    inference.update(pools=["l4", "l4g"], cohort="ml", lending_limit_percent=50)
    return fleet_plan(resolve_fleet_args(args))  # type: ignore[arg-type]


def _limits(objects: list[dict[str, Any]], name: str, resource: str = "nvidia.com/gpu") -> dict[str, Any]:
    cq = next(o for o in objects if o["metadata"]["name"] == name)
    (group,) = cq["spec"]["resourceGroups"]
    return {
        f["name"]: {
            k: v for k, v in next(r for r in f["resources"] if r["name"] == resource).items() if k != "name"
        }
        for f in group["flavors"]
    }


def test_the_manager_sums_the_lending_limits_of_the_workers(plan: FleetPlan) -> None:
    manager = _limits(plan.manager.objects.cluster_queues, "inference")
    # l4: 4 x g6.12xlarge on EKS, lends half; l4g: 2 on GKE, lends 1; h100: training's, borrowed at nominal 0.
    assert manager == {
        "l4": {"nominalQuota": 16, "lendingLimit": 8},
        "l4g": {"nominalQuota": 2, "lendingLimit": 1},
        "h100": {"nominalQuota": 0},
    }
    eks = _limits(plan.workers["eks-l4"].objects.cluster_queues, "inference")
    gke = _limits(plan.workers["gke-h100"].objects.cluster_queues, "inference")
    assert eks == {"l4": manager["l4"]} and gke == {"l4g": manager["l4g"], "h100": manager["h100"]}


def test_the_manager_lists_the_peer_flavors_a_queue_borrows(plan: FleetPlan) -> None:
    manager = _limits(plan.manager.objects.cluster_queues, "training")
    # Borrowing limit: half of each flavor's capacity (16 H100; 2 L4 of inference's pool on the same worker).
    assert manager == {
        "h100": {"nominalQuota": 16, "borrowingLimit": 8},
        "l4g": {"nominalQuota": 0, "borrowingLimit": 1},
    }
    assert manager == _limits(plan.workers["gke-h100"].objects.cluster_queues, "training")
    memory = _limits(plan.manager.objects.cluster_queues, "training", "memory")
    worker_memory = _limits(plan.workers["gke-h100"].objects.cluster_queues, "training", "memory")
    assert memory == worker_memory and "borrowingLimit" in memory["h100"]
    cq = next(o for o in plan.manager.objects.cluster_queues if o["metadata"]["name"] == "training")
    assert cq["spec"]["cohortName"] == "ml"
    assert [f["metadata"]["name"] for f in plan.manager.objects.flavors] == ["h100", "l4g", "l4"]


def test_the_manager_queues_are_valid_against_kueues_crd_and_webhook(plan: FleetPlan) -> None:
    for cq in plan.manager.objects.cluster_queues:
        assert crds.problems_of(cq) == [], cq
        assert list(webhook_problems(cq)) == [], cq


def test_without_a_cohort_no_limit_is_written(plan: FleetPlan) -> None:
    plain = fleet_plan(resolve_fleet_args(fleet()))  # type: ignore[arg-type]
    for cq in plain.manager.objects.cluster_queues:
        for flavor in cq["spec"]["resourceGroups"][0]["flavors"]:
            for resource in flavor["resources"]:
                assert set(resource) == {"name", "nominalQuota"}, cq["metadata"]["name"]
