"""Submit the smoke Jobs (``smoke.smoke_jobs``) to the cluster, wait for them (bounded), read their outcome and
delete them: the only part of verify that writes to the cluster, and only with ``--smoke``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from gpu_platform.verify.expected import Expected
from gpu_platform.verify.finding import Finding
from gpu_platform.verify.reader import TIMEOUT_SECONDS, cluster_errors
from gpu_platform.verify.smoke import SmokeJob, outcome, skipped_findings, smoke_jobs

POLL_SECONDS = 5.0


def _done(live: dict[str, Any] | str) -> bool:
    """Finished, or never created (``live`` is then why)."""
    if isinstance(live, str):
        return True
    status = live.get("status") or {}
    return bool(status.get("succeeded") or status.get("failed"))


def _create(batch: Any, job: SmokeJob) -> dict[str, Any] | str:
    """The created Job, or the API server's reason for refusing it (a missing namespace, an admission webhook)."""
    from kubernetes.client.exceptions import ApiException

    try:
        created = batch.api_client.sanitize_for_serialization(
            batch.create_namespaced_job(job.queue.namespace, job.manifest, _request_timeout=TIMEOUT_SECONDS)
        )
    except ApiException as exc:
        return f"{exc.status} {exc.reason}"
    return dict(created)


def _read(batch: Any, namespace: str, name: str) -> dict[str, Any]:
    job = batch.read_namespaced_job(name, namespace, _request_timeout=TIMEOUT_SECONDS)
    return dict(batch.api_client.sanitize_for_serialization(job))


def _delete(batch: Any, namespace: str, name: str) -> None:
    """The Job and its pods (a Job already gone is fine)."""
    from kubernetes.client.exceptions import ApiException

    try:
        batch.delete_namespaced_job(
            name, namespace, propagation_policy="Background", _request_timeout=TIMEOUT_SECONDS
        )
    except ApiException as exc:
        if exc.status != 404:
            raise


def run_smoke(
    client: Any, expected: Expected, timeout: float, clock: Callable[[], float] = time.monotonic
) -> list[Finding]:
    """Every smoke Job submitted, awaited until all are done or ``timeout`` seconds pass, then deleted."""
    from kubernetes import client as k8s

    batch = k8s.BatchV1Api(client)
    jobs, skipped = smoke_jobs(expected)
    with cluster_errors():
        live = {id(j): _create(batch, j) for j in jobs}
        started = clock()
        try:
            while clock() - started < timeout:
                for j in jobs:
                    if not _done(obj := live[id(j)]):
                        assert not isinstance(obj, str)
                        live[id(j)] = _read(batch, j.queue.namespace, obj["metadata"]["name"])
                if all(_done(obj) for obj in live.values()):
                    break
                time.sleep(POLL_SECONDS)
        finally:
            for j in jobs:
                if not isinstance(obj := live[id(j)], str):
                    _delete(batch, j.queue.namespace, obj["metadata"]["name"])
    waited = clock() - started
    return [f for j in jobs for f in outcome(j, live[id(j)], waited)] + skipped_findings(skipped)
