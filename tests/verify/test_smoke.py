"""``--smoke``: a CUDA sample Job per pool through a queue that admits its GPUs, and what its outcome reports."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from gpu_platform import versions
from gpu_platform.verify.load import load_expected
from gpu_platform.verify.smoke import outcome, smoke_jobs
from tests.support.verify import REPO, stack_expectation


def test_dev_smokes_its_l4_pool_through_the_team_queue() -> None:
    (job,), skipped = smoke_jobs(stack_expectation("dev"))
    assert skipped == {}
    assert (job.pool, job.queue.namespace, job.queue.name, job.resource) == (
        "l4-spot",
        "ml-dev",
        "default",
        "nvidia.com/gpu",
    )
    manifest = job.manifest
    assert manifest["metadata"]["namespace"] == "ml-dev"
    assert manifest["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "default"
    assert manifest["spec"]["suspend"] is True
    pod = manifest["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"gpu-platform.io/pool": "l4-spot", "gpu-platform.io/gpu": "l4"}
    assert pod["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    (container,) = pod["containers"]
    assert container["image"] == versions.CUDA_SAMPLE_IMAGE
    assert container["resources"]["limits"] == {"nvidia.com/gpu": "1"}


def test_prod_smokes_a_mig_slice_and_tolerates_the_training_taint() -> None:
    jobs, _ = smoke_jobs(stack_expectation("prod"))
    by_pool = {j.pool: j for j in jobs}
    assert by_pool["h100-inference"].resource == "nvidia.com/mig-1g.10gb"
    assert by_pool["h100-inference"].queue.cluster_queue == "inference"
    training = by_pool["h100-training"]
    assert training.queue.cluster_queue == "training"
    tolerations = training.manifest["spec"]["template"]["spec"]["tolerations"]
    assert {
        "key": "dedicated",
        "operator": "Equal",
        "value": "training",
        "effect": "NoSchedule",
    } in tolerations


def test_a_pool_no_queue_admits_gets_no_job() -> None:
    expected = stack_expectation("dev")
    queues = tuple(
        dataclasses.replace(
            q, quotas={k: (0 if k[1] == "nvidia.com/gpu" else v) for k, v in q.quotas.items()}
        )
        for q in expected.cluster_queues
    )
    jobs, skipped = smoke_jobs(dataclasses.replace(expected, cluster_queues=queues))
    assert jobs == []
    assert skipped == {"l4-spot": "no LocalQueue's ClusterQueue has a nvidia.com/gpu quota on its flavor"}


def test_the_sample_comes_from_the_stack_mirror(tmp_path: Path) -> None:
    (tmp_path / "mirror.yaml").write_text(
        "config:\n  gpu-platform:mirror:\n    images: registry.acme/mirror\n"
    )
    expected = load_expected(REPO, "dev", tmp_path / "mirror.yaml")
    assert expected.smoke_image == "registry.acme/mirror/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0"


def test_each_outcome_is_reported() -> None:
    (job,), _ = smoke_jobs(stack_expectation("dev"))
    meta = {"name": "gpu-platform-smoke-l4-spot-x1", "namespace": "ml-dev"}
    assert outcome(job, {"metadata": meta, "status": {"succeeded": 1}}, 30) == []
    failed = {"metadata": meta, "status": {"failed": 1, "conditions": [
        {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit"}
    ]}}  # fmt: skip
    waiting = {"metadata": meta, "spec": {"suspend": True}, "status": {}}
    running = {"metadata": meta, "spec": {"suspend": False}, "status": {"active": 1}}
    found = [f.found for case in (failed, waiting, running) for f in outcome(job, case, 600)]
    assert found == [
        "failed (BackoffLimitExceeded: Job has reached the specified backoff limit)",
        "not admitted by Kueue within 600s",
        "admitted, not finished within 600s",
    ]
    (not_created,) = outcome(job, "404 Not Found", 0)
    assert (not_created.severity, not_created.subject, not_created.object, not_created.found) == (
        "error",
        "smoke on pool l4-spot",
        "Job ml-dev/gpu-platform-smoke-l4-spot-",
        "the Job could not be created (404 Not Found)",
    )
