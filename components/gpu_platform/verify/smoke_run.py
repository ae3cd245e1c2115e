"""Submit the smoke Jobs (``smoke.smoke_jobs``, ``nccl.nccl_jobs`` with their Services) to the cluster, wait for
them (bounded), read their outcome (and rank 0's log of an all-reduce) and delete them: the only part of verify
that writes to the cluster, and only with ``--smoke``."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from gpu_platform.verify import nccl
from gpu_platform.verify.expected import Expected
from gpu_platform.verify.finding import SMOKE, Finding, info
from gpu_platform.verify.reader import TIMEOUT_SECONDS, cluster_errors
from gpu_platform.verify.smoke import SmokeJob, outcome, skipped_findings, smoke_jobs

POLL_SECONDS = 5.0
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
"""The annotation of an Indexed Job's pod that holds its index (kubernetes v1.33
``staging/src/k8s.io/api/batch/v1/types.go``, ``JobCompletionIndexAnnotation``)."""
Live = dict[str, Any] | str
"""A Job as the API last returned it, or the API server's reason for refusing to create it (or its Service)."""


def _done(live: Live) -> bool:
    """Finished (every completion succeeded, or a pod failed), or never created (``live`` is then why)."""
    if isinstance(live, str):
        return True
    status = live.get("status") or {}
    completions = (live.get("spec") or {}).get("completions") or 1
    return bool((status.get("succeeded") or 0) >= completions or status.get("failed"))


def _succeeded(live: Live) -> bool:
    return not isinstance(live, str) and _done(live) and not (live.get("status") or {}).get("failed")


def _error(exc: Any) -> str:
    return f"{exc.status} {exc.reason}"


def _create(batch: Any, namespace: str, manifest: dict[str, Any]) -> Live:
    """The created Job, or the API server's reason for refusing it (a missing namespace, an admission webhook)."""
    from kubernetes.client.exceptions import ApiException

    try:
        created = batch.api_client.sanitize_for_serialization(
            batch.create_namespaced_job(namespace, manifest, _request_timeout=TIMEOUT_SECONDS)
        )
    except ApiException as exc:
        return _error(exc)
    return dict(created)


def _create_gang(core: Any, batch: Any, job: nccl.NcclJob) -> Live:
    """The all-reduce's Service, then its Job (the pods resolve each other through the Service)."""
    from kubernetes.client.exceptions import ApiException

    try:
        core.create_namespaced_service(job.queue.namespace, job.service, _request_timeout=TIMEOUT_SECONDS)
    except ApiException as exc:
        return f"its Service: {_error(exc)}"
    return _create(batch, job.queue.namespace, job.manifest)


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


def _delete_service(core: Any, namespace: str, name: str) -> None:
    from kubernetes.client.exceptions import ApiException

    try:
        core.delete_namespaced_service(name, namespace, _request_timeout=TIMEOUT_SECONDS)
    except ApiException as exc:
        if exc.status != 404:
            raise


def gang_result(core: Any, job: nccl.NcclJob) -> nccl.NcclResult:
    """Where the all-reduce's pods ran (by index) and what rank 0 printed; a log the API server cannot fetch (the
    kubelet unreachable, the pod gone) leaves the bandwidth unknown rather than failing verify."""
    from kubernetes.client.exceptions import ApiException

    pods = core.list_namespaced_pod(
        job.queue.namespace,
        label_selector=f"{nccl.JOB_NAME_LABEL}={job.name}",
        _preload_content=False,
        _request_timeout=TIMEOUT_SECONDS,
    )
    items = json.loads(pods.data).get("items") or []
    by_index = sorted(
        items,
        key=lambda p: int(((p.get("metadata") or {}).get("annotations") or {}).get(COMPLETION_INDEX, 0)),
    )
    nodes = tuple(str((p.get("spec") or {}).get("nodeName") or "") for p in by_index)
    if not by_index:
        return nccl.NcclResult(nodes=nodes, unread="no pods")
    try:
        log = core.read_namespaced_pod_log(
            by_index[0]["metadata"]["name"],
            job.queue.namespace,
            container="nccl",
            _request_timeout=TIMEOUT_SECONDS,
        )
    except ApiException as exc:
        return nccl.NcclResult(nodes=nodes, unread=f"rank 0's log: {_error(exc)}")
    ranks, busbw, network = nccl.parse_log(str(log))
    return nccl.NcclResult(nodes=nodes, busbw_gbps=busbw, ranks=ranks, network=network)


def _await(
    batch: Any,
    jobs: Sequence[SmokeJob | nccl.NcclJob],
    live: dict[int, Live],
    timeout: float,
    started: float,
    clock: Callable[[], float],
) -> None:
    """Poll every created Job until all are done or ``timeout`` seconds pass since ``started``."""
    while clock() - started < timeout:
        for j in jobs:
            if not _done(obj := live[id(j)]):
                assert not isinstance(obj, str)
                live[id(j)] = _read(batch, j.queue.namespace, obj["metadata"]["name"])
        if all(_done(obj) for obj in live.values()):
            return
        time.sleep(POLL_SECONDS)


def _gang_findings(job: nccl.NcclJob, live: Live, waited: float, result: nccl.NcclResult) -> list[Finding]:
    found = nccl.nccl_outcome(job, live, waited, result)
    if found:
        return found
    want = f"an NCCL all-reduce across {nccl.NODES} nodes"
    return [
        info(SMOKE, job.subject, f"Job {job.queue.namespace}/{job.name}", want, nccl.describe(job, result))
    ]


def run_smoke(
    client: Any, expected: Expected, timeout: float, clock: Callable[[], float] = time.monotonic
) -> list[Finding]:
    """Every smoke Job submitted, awaited until all are done or ``timeout`` seconds pass, then deleted."""
    from kubernetes import client as k8s

    batch, core = k8s.BatchV1Api(client), k8s.CoreV1Api(client)
    jobs, skipped = smoke_jobs(expected)
    gangs, gangs_skipped = nccl.nccl_jobs(expected)
    submitted: list[SmokeJob | nccl.NcclJob] = [*jobs, *gangs]
    results: dict[int, nccl.NcclResult] = {}
    with cluster_errors():
        live: dict[int, Live] = {id(j): _create(batch, j.queue.namespace, j.manifest) for j in jobs}
        live.update({id(g): _create_gang(core, batch, g) for g in gangs})
        started = clock()
        try:
            _await(batch, submitted, live, timeout, started, clock)
            results = {id(g): gang_result(core, g) for g in gangs if _succeeded(live[id(g)])}
        finally:
            for j in submitted:
                if not isinstance(obj := live[id(j)], str):
                    _delete(batch, j.queue.namespace, obj["metadata"]["name"])
            for g in gangs:
                _delete_service(core, g.queue.namespace, g.name)
    waited = clock() - started
    return (
        [f for j in jobs for f in outcome(j, live[id(j)], waited)]
        + [
            f
            for g in gangs
            for f in _gang_findings(g, live[id(g)], waited, results.get(id(g), nccl.NcclResult()))
        ]
        + skipped_findings(skipped)
        + nccl.skipped_findings(gangs_skipped)
    )
