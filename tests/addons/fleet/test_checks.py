"""What only a fleet can get wrong, each refused naming its argument: a queue sent where its GPUs are not, a
missing job controller, Kueue releases that differ, a worker too small for the queue's largest job."""

from __future__ import annotations

from typing import Any

from gpu_platform.addons.fleet.checks import resolve_fleet_args
from tests.addons.fleet.fleet_args import fleet
from tests.support.refusals import arg_problems


def _refused(**changes: Any) -> dict[str, str]:
    return arg_problems(resolve_fleet_args, fleet(**changes))


def _queue(i: int, **changes: Any) -> list[dict[str, Any]]:
    queues = fleet()["cluster_queues"]
    queues[i] = {**queues[i], **changes}
    return queues


def _worker(i: int, **changes: Any) -> list[dict[str, Any]]:
    workers = fleet()["workers"]
    workers[i] = {**workers[i], **changes}
    return workers


def test_a_queue_dispatched_to_a_worker_without_its_gpus_is_refused() -> None:
    problems = _refused(cluster_queues=_queue(0, workers=["gke-h100", "eks-l4"], frameworks=[]))
    assert list(problems) == ["cluster_queues[0].workers[1]"]
    assert (
        "worker 'eks-l4' has none of this queue's pools (h100; its pools: l4)"
        in problems["cluster_queues[0].workers[1]"]
    )


def test_a_worker_without_the_controller_of_a_framework_the_queue_admits_is_refused() -> None:
    problems = _refused(workers=_worker(0, controllers=[]))
    reason = problems["cluster_queues[0].frameworks[0]"]
    assert "workers[0] runs no jobset controller for jobset.x-k8s.io/jobset" in reason
    assert "manager" not in reason.split(" runs ")[0]


def test_the_manager_needs_the_controller_too() -> None:
    problems = _refused(manager={"kubeconfig": "k"})
    assert "manager runs no jobset controller" in problems["cluster_queues[0].frameworks[0]"]


def test_an_unknown_framework_is_refused_with_the_valid_ones() -> None:
    problems = _refused(cluster_queues=_queue(0, frameworks=["kubeflow.org/mpijob"]))
    assert (
        "unknown framework 'kubeflow.org/mpijob'; valid: batch/job"
        in problems["cluster_queues[0].frameworks[0]"]
    )


def test_kueue_releases_that_differ_across_the_fleet_are_refused() -> None:
    problems = _refused(workers=_worker(1, kueue_version="v0.18.0"))
    assert list(problems) == ["workers[1].kueue_version"]
    assert (
        "v0.18.0 (its Kueue) differs from the manager's Kueue v0.19.2" in problems["workers[1].kueue_version"]
    )


def test_a_manager_on_another_kueue_refuses_the_workers_the_fleet_installs() -> None:
    problems = _refused(manager={**fleet()["manager"], "kueue_version": "v0.18.0"})
    assert sorted(problems) == ["workers[0].kueue_version", "workers[1].kueue_version"]
    assert "v0.19.2 (the Kueue the fleet installs) differs" in problems["workers[0].kueue_version"]


def test_a_kueue_version_is_a_release_tag() -> None:
    problems = _refused(workers=_worker(1, kueue_version="0.19.2"))
    assert "'0.19.2' is not a Kueue release tag; valid: vX.Y.Z" in problems["workers[1].kueue_version"]


def test_a_worker_that_can_never_run_the_largest_gang_is_refused() -> None:
    # gke-h100: 2 x 8 H100, split evenly between `training` and `inference`: 8 for training.
    problems = _refused(cluster_queues=_queue(0, largest_gang_gpus=16))
    reason = problems["cluster_queues[0].largest_gang_gpus"]
    assert "16 GPUs, but worker 'gke-h100' (cluster_queues[0].workers[0]) holds 8 nvidia.com/gpu" in reason


def test_the_largest_gang_that_fits_is_accepted() -> None:
    spec = resolve_fleet_args(fleet(cluster_queues=_queue(0, largest_gang_gpus=8)))  # type: ignore[arg-type]
    assert spec.queues[0].largest_gang_gpus == 8


def test_unknown_duplicate_and_missing_names_are_refused() -> None:
    problems = _refused(
        cluster_queues=_queue(0, workers=["gke-h100", "gke-h100", "aks"]),
        workers=[*fleet()["workers"], fleet()["workers"][1]],
    )
    assert "no worker 'aks'; valid: gke-h100, eks-l4" in problems["cluster_queues[0].workers[2]"]
    assert "named twice" in problems["cluster_queues[0].workers[1]"]
    assert "named twice" in problems["workers[2].name"]
    queues = fleet()["cluster_queues"]
    del queues[1]["pools"]
    assert "a fleet queue lists its pools" in _refused(cluster_queues=queues)["cluster_queues[1].pools"]


def test_a_workers_own_problem_is_filed_under_that_worker() -> None:
    problems = _refused(workers=_worker(1, pools=[{"name": "l4", "machine_type": "g6.nope", "max_nodes": 1}]))
    assert list(problems) == ["workers[1].pools[0].machine_type"]
    assert "'g6.nope' is not an EKS GPU machine type" in problems["workers[1].pools[0].machine_type"]


def test_type_errors_name_the_key() -> None:
    problems = _refused(dispatcher="Sometimes", workers=_worker(0, pools="h100"))
    assert "dispatcher" in problems and "workers[0].pools" in problems
