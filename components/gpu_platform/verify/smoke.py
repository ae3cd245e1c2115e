"""``--smoke``: a CUDA sample Job per pool, submitted through a queue that admits the pool's GPUs, planned as
manifests from the expectation (the pool's selector, tolerations and GPU resource; the queue's flavor and quota).

NVIDIA's vectorAdd sample on one GPU (or one MIG slice, one shared replica) proves the driver, the container
toolkit, the device plugin and Kueue's admission onto the pool's flavor, end to end. Pools with no queue that
admits their GPUs, and DRA pools (their GPUs are claimed, not requested), get no job.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gpu_platform.policy_model.kube import parse_quantity
from gpu_platform.scheduling import POOL_LABEL
from gpu_platform.verify.expected import Expected, ExpectedLocalQueue, ExpectedPool
from gpu_platform.verify.finding import SMOKE, Finding, error, warning

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
"""The label that submits a Job to a LocalQueue (kubernetes-sigs/kueue ``apis/kueue/constants``)."""
MANAGED_BY = {"app.kubernetes.io/managed-by": "gpu-platform-verify"}
DEADLINE_SECONDS = 600
"""How long a smoke Job may run once admitted (``activeDeadlineSeconds``)."""


@dataclass(frozen=True)
class SmokeJob:
    pool: str
    queue: ExpectedLocalQueue
    resource: str
    """The GPU resource it requests one unit of."""
    manifest: dict[str, Any]

    @property
    def subject(self) -> str:
        return f"smoke on pool {self.pool}"


def gpu_resource(pool: ExpectedPool) -> str | None:
    """The pool's first NVIDIA resource (``nvidia.com/gpu``, a MIG profile, a shared replica), if it has one."""
    return next((r for r in sorted(pool.allocatable) if r.startswith("nvidia.com/")), None)


def queue_for(expected: Expected, pool: ExpectedPool, resource: str) -> ExpectedLocalQueue | None:
    """A LocalQueue whose ClusterQueue gives the pool's flavor a quota of ``resource``."""
    flavors = {f.name for f in expected.flavors if f.node_labels.get(POOL_LABEL) == pool.name}
    admitting = {
        q.name
        for q in expected.cluster_queues
        for (flavor, name), quota in q.quotas.items()
        if flavor in flavors and name == resource and (parse_quantity(quota) or 0) > 0
    }
    return next((lq for lq in expected.local_queues if lq.cluster_queue in admitting), None)


def cuda_sample_job(
    expected: Expected, pool: ExpectedPool, queue: ExpectedLocalQueue, resource: str
) -> dict[str, Any]:
    """The Job: suspended until Kueue admits it, one GPU of ``resource``, on the pool's nodes only."""
    container = {
        "name": "vectoradd",
        "image": expected.smoke_image,
        "resources": {
            "requests": {"cpu": "100m", "memory": "256Mi", resource: "1"},
            "limits": {resource: "1"},
        },
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "generateName": f"gpu-platform-smoke-{pool.name}"[:57].rstrip("-") + "-",
            "namespace": queue.namespace,
            "labels": {QUEUE_LABEL: queue.name, **MANAGED_BY},
        },
        "spec": {
            "suspend": True,
            "backoffLimit": 0,
            "activeDeadlineSeconds": DEADLINE_SECONDS,
            "template": {
                "metadata": {"labels": dict(MANAGED_BY)},
                "spec": {
                    "restartPolicy": "Never",
                    "nodeSelector": dict(pool.selector),
                    "tolerations": [dict(t) for t in pool.tolerations],
                    "containers": [container],
                },
            },
        },
    }


def smoke_jobs(expected: Expected) -> tuple[list[SmokeJob], dict[str, str]]:
    """The Jobs, and the pools that get none with why."""
    jobs, skipped = [], {}
    for pool in expected.pools:
        resource = gpu_resource(pool)
        if resource is None:
            skipped[pool.name] = "no GPU extended resource (a DRA pool): not smoke-tested"
            continue
        queue = queue_for(expected, pool, resource)
        if queue is None:
            skipped[pool.name] = f"no LocalQueue's ClusterQueue has a {resource} quota on its flavor"
            continue
        jobs.append(SmokeJob(pool.name, queue, resource, cuda_sample_job(expected, pool, queue, resource)))
    return jobs, skipped


def outcome(job: SmokeJob, live: dict[str, Any] | str, waited: float) -> list[Finding]:
    """What a submitted Job's last state says: nothing when it succeeded, else why not (``live``: the Job as the API
    returned it after ``waited`` seconds, or the API server's reason for refusing to create it)."""
    want = f"vectorAdd passes on one {job.resource} through LocalQueue {job.queue.namespace}/{job.queue.name}"
    if isinstance(live, str):
        obj = f"Job {job.queue.namespace}/{job.manifest['metadata']['generateName']}"
        return [error(SMOKE, job.subject, obj, want, f"the Job could not be created ({live})")]
    obj = f"Job {job.queue.namespace}/{(live.get('metadata') or {}).get('name', '')}"
    status = live.get("status") or {}
    if status.get("succeeded"):
        return []
    failed = [
        c for c in status.get("conditions") or [] if c.get("type") == "Failed" and c.get("status") == "True"
    ]
    if failed or status.get("failed"):
        said = f"{failed[0].get('reason')}: {failed[0].get('message')}" if failed else "a pod failed"
        return [error(SMOKE, job.subject, obj, want, f"failed ({said})")]
    if (live.get("spec") or {}).get("suspend"):
        return [error(SMOKE, job.subject, obj, want, f"not admitted by Kueue within {waited:.0f}s")]
    return [error(SMOKE, job.subject, obj, want, f"admitted, not finished within {waited:.0f}s")]


def skipped_findings(skipped: dict[str, str]) -> list[Finding]:
    """A warning per pool that got no smoke Job."""
    return [
        warning(SMOKE, f"smoke on pool {pool}", f"pool {pool}", "a smoke Job", why)
        for pool, why in skipped.items()
    ]
