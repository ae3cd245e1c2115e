"""The fleet's plan: the manager's quota is the sum of its workers', every worker mirrors namespaces and
LocalQueues, one AdmissionCheck and MultiKueueConfig per queue, every object valid against Kueue's CRDs.

Cohorts across a fleet: the manager's ClusterQueues carry the sums of their workers' borrowing and lending
limits, and list their cohort peers' flavors (nominal 0) as the workers do, so a job that must borrow is admitted
by the manager as it would be by a worker; every queue valid against Kueue's CRD and webhook at the pin."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gpu_platform.addons.fleet.checks import resolve_fleet_args
from gpu_platform.addons.fleet.plan import FleetPlan, fleet_plan
from tests.addons.fleet.fleet_args import H100, fleet
from tests.support import crds
from tests.support.kueue import webhook_problems


def _plan(**changes: Any) -> FleetPlan:
    return fleet_plan(resolve_fleet_args(fleet(**changes)))  # type: ignore[arg-type]


def _cq(objects: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(o for o in objects if o["metadata"]["name"] == name)


def _quotas(cq: dict[str, Any]) -> dict[str, dict[str, Any]]:
    (group,) = cq["spec"]["resourceGroups"]
    return {f["name"]: {r["name"]: r["nominalQuota"] for r in f["resources"]} for f in group["flavors"]}


@pytest.fixture(scope="module")
def plan() -> FleetPlan:
    return _plan()


def test_manager_quota_is_the_sum_of_the_workers(plan: FleetPlan) -> None:
    manager = _quotas(_cq(plan.manager.objects.cluster_queues, "inference"))
    gke = _quotas(_cq(plan.workers["gke-h100"].objects.cluster_queues, "inference"))
    eks = _quotas(_cq(plan.workers["eks-l4"].objects.cluster_queues, "inference"))
    # 4 x g6.12xlarge (4 L4) on EKS; half of 2 x a3-highgpu-8g (8 H100) on GKE, shared with `training`.
    assert manager["l4"]["nvidia.com/gpu"] == eks["l4"]["nvidia.com/gpu"] == 16
    assert manager["h100"]["nvidia.com/gpu"] == gke["h100"]["nvidia.com/gpu"] == 8
    assert manager["h100"]["cpu"] == gke["h100"]["cpu"] and manager["l4"]["memory"] == eks["l4"]["memory"]
    assert list(manager) == ["l4", "h100"]  # the queue's order


def test_manager_queues_dispatch_through_multikueue(plan: FleetPlan) -> None:
    for cq in plan.manager.objects.cluster_queues:
        name = cq["metadata"]["name"]
        assert cq["spec"]["admissionChecksStrategy"] == {"admissionChecks": [{"name": f"{name}-multikueue"}]}
    checks = {o["metadata"]["name"]: o["spec"] for o in plan.manager.objects.admission_checks}
    assert checks["training-multikueue"] == {
        "controllerName": "kueue.x-k8s.io/multikueue",
        "parameters": {
            "apiGroup": "kueue.x-k8s.io",
            "kind": "MultiKueueConfig",
            "name": "training-multikueue",
        },
    }
    configs = {o["metadata"]["name"]: o["spec"]["clusters"] for o in plan.multikueue_configs}
    assert configs == {"training-multikueue": ["gke-h100"], "inference-multikueue": ["eks-l4", "gke-h100"]}
    clusters = {o["metadata"]["name"]: o["spec"] for o in plan.multikueue_clusters}
    assert clusters["eks-l4"] == {
        "clusterSource": {
            "kubeConfig": {"locationType": "Secret", "location": "eks-l4-multikueue-kubeconfig"}
        }
    }


def test_manager_flavors_select_no_nodes(plan: FleetPlan) -> None:
    assert [(f["metadata"]["name"], f["spec"]) for f in plan.manager.objects.flavors] == [
        ("h100", {}),
        ("l4", {}),
    ]


def test_workers_mirror_the_namespaces_and_local_queues_of_their_queues(plan: FleetPlan) -> None:
    def lqs(objects: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
        return {
            (o["metadata"]["namespace"], o["metadata"]["name"], o["spec"]["clusterQueue"]) for o in objects
        }

    manager = lqs(plan.manager.objects.local_queues)
    assert manager == {("research", "default", "training"), ("serving", "default", "inference")}
    assert lqs(plan.workers["gke-h100"].objects.local_queues) == manager
    assert lqs(plan.workers["eks-l4"].objects.local_queues) == {("serving", "default", "inference")}
    labels = {
        n["metadata"]["name"]: n["metadata"]["labels"] for n in plan.workers["eks-l4"].objects.namespaces
    }
    assert labels == {"serving": {"gpu-platform.io/cluster-queue": "inference"}}
    # The worker's flavor is its pool's: node labels and the GPU taint's toleration.
    (flavor,) = plan.workers["eks-l4"].objects.flavors
    assert flavor["metadata"]["name"] == "l4" and flavor["spec"]["tolerations"][0]["key"] == "nvidia.com/gpu"


def test_a_quota_change_reaches_every_worker_and_the_manager_in_one_plan() -> None:
    before, after = (
        _plan(),
        _plan(
            workers=[
                {**fleet()["workers"][0], "pools": [{**fleet()["workers"][0]["pools"][0], "max_nodes": 4}]},
                fleet()["workers"][1],
            ]
        ),
    )

    def gpus(p: FleetPlan) -> tuple[Any, Any]:
        worker = _quotas(_cq(p.workers["gke-h100"].objects.cluster_queues, "training"))["h100"]
        manager = _quotas(_cq(p.manager.objects.cluster_queues, "training"))["h100"]
        return worker["nvidia.com/gpu"], manager["nvidia.com/gpu"]

    assert gpus(before) == (8, 8) and gpus(after) == (16, 16)


def test_manager_configuration_names_the_dispatcher_and_the_queues_frameworks() -> None:
    plan = _plan(dispatcher="Incremental")
    conf = yaml.safe_load(plan.manager.values["managerConfig"]["controllerManagerConfigYaml"])
    assert conf["multiKueue"] == {"dispatcherName": "kueue.x-k8s.io/multikueue-dispatcher-incremental"}
    assert conf["integrations"]["frameworks"] == ["batch/job", "pod", "deployment", "jobset.x-k8s.io/jobset"]
    worker = yaml.safe_load(plan.workers["eks-l4"].values["managerConfig"]["controllerManagerConfigYaml"])
    assert "multiKueue" not in worker and worker["integrations"] == conf["integrations"]


def test_every_custom_resource_is_valid_against_kueues_crds(plan: FleetPlan) -> None:
    objects = [
        *plan.manager.objects.custom_resources(),
        *plan.multikueue_configs,
        *plan.multikueue_clusters,
        *(o for w in plan.workers.values() for o in w.objects.custom_resources()),
    ]
    assert {o["kind"] for o in objects} >= {"MultiKueueConfig", "MultiKueueCluster", "AdmissionCheck"}
    for obj in objects:
        assert crds.problems_of(obj) == [], obj
        if obj["kind"] == "ClusterQueue":
            assert list(webhook_problems(obj)) == [], obj


L4G = {"name": "l4g", "machine_type": "g2-standard-8", "min_nodes": 0, "max_nodes": 2}
"""1 L4 per g2-standard-8 on GKE: 2 GPUs."""


@pytest.fixture(scope="module")
def cohort_plan() -> FleetPlan:
    args = fleet()
    args["workers"][0]["pools"] = [dict(H100), dict(L4G)]
    training, inference = args["cluster_queues"]
    training.update(cohort="ml", borrowing_limit_percent=50)
    inference.update(pools=["l4", "l4g"], cohort="ml", lending_limit_percent=50)
    return fleet_plan(resolve_fleet_args(args))  # type: ignore[arg-type]


def _limits(objects: list[dict[str, Any]], name: str, resource: str = "nvidia.com/gpu") -> dict[str, Any]:
    (group,) = _cq(objects, name)["spec"]["resourceGroups"]
    return {
        f["name"]: {
            k: v for k, v in next(r for r in f["resources"] if r["name"] == resource).items() if k != "name"
        }
        for f in group["flavors"]
    }


def test_the_manager_sums_the_lending_limits_of_the_workers(cohort_plan: FleetPlan) -> None:
    manager = _limits(cohort_plan.manager.objects.cluster_queues, "inference")
    # l4: 4 x g6.12xlarge on EKS, lends half; l4g: 2 on GKE, lends 1; h100: training's, borrowed at nominal 0.
    assert manager == {
        "l4": {"nominalQuota": 16, "lendingLimit": 8},
        "l4g": {"nominalQuota": 2, "lendingLimit": 1},
        "h100": {"nominalQuota": 0},
    }
    eks = _limits(cohort_plan.workers["eks-l4"].objects.cluster_queues, "inference")
    gke = _limits(cohort_plan.workers["gke-h100"].objects.cluster_queues, "inference")
    assert eks == {"l4": manager["l4"]} and gke == {"l4g": manager["l4g"], "h100": manager["h100"]}


def test_the_manager_lists_the_peer_flavors_a_queue_borrows(cohort_plan: FleetPlan) -> None:
    manager = _limits(cohort_plan.manager.objects.cluster_queues, "training")
    # Borrowing limit: half of each flavor's capacity (16 H100; 2 L4 of inference's pool on the same worker).
    assert manager == {
        "h100": {"nominalQuota": 16, "borrowingLimit": 8},
        "l4g": {"nominalQuota": 0, "borrowingLimit": 1},
    }
    assert manager == _limits(cohort_plan.workers["gke-h100"].objects.cluster_queues, "training")
    memory = _limits(cohort_plan.manager.objects.cluster_queues, "training", "memory")
    worker_memory = _limits(cohort_plan.workers["gke-h100"].objects.cluster_queues, "training", "memory")
    assert memory == worker_memory and "borrowingLimit" in memory["h100"]
    assert _cq(cohort_plan.manager.objects.cluster_queues, "training")["spec"]["cohortName"] == "ml"
    assert [f["metadata"]["name"] for f in cohort_plan.manager.objects.flavors] == ["h100", "l4g", "l4"]


def test_the_manager_queues_are_valid_against_kueues_crd_and_webhook(cohort_plan: FleetPlan) -> None:
    for cq in cohort_plan.manager.objects.cluster_queues:
        assert crds.problems_of(cq) == [], cq
        assert list(webhook_problems(cq)) == [], cq


def test_without_a_cohort_no_limit_is_written(plan: FleetPlan) -> None:
    for cq in plan.manager.objects.cluster_queues:
        for flavor in cq["spec"]["resourceGroups"][0]["flavors"]:
            for resource in flavor["resources"]:
                assert set(resource) == {"name", "nominalQuota"}, cq["metadata"]["name"]
