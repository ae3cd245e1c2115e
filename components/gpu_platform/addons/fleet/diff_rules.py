"""What ``gpu-platform diff`` flags in a fleet (``gpu_platform.diff_rule``).

Removing a worker deletes its ``MultiKueueCluster`` on the manager: the manager loses the connection, and the jobs
it dispatched there are lost to it; after ``workerLostTimeout`` (15 minutes by default) their workloads are evicted
and queued again from the start (kubernetes-sigs/kueue v0.19.2 ``apis/config/v1beta2/configuration_types.go``,
``WorkerLostTimeout``). Taking a worker off a queue's ``MultiKueueConfig`` stops dispatching there; a queue's
AdmissionCheck going leaves its ClusterQueue inactive (Kueue's ``site/content/en/docs/concepts/multikueue.md``).
"""

from __future__ import annotations

from gpu_platform.diff_rule import DiffRule, changes, gone, kind

GROUP = "kueue.x-k8s.io"

DIFF_RULES: tuple[DiffRule, ...] = (
    gone(
        kind(GROUP, "MultiKueueCluster"),
        "ends running jobs",
        "a worker leaves the fleet: the jobs the manager dispatched there are lost to it, and after "
        "workerLostTimeout their workloads are evicted and requeued from the start; drain the worker first "
        "(take it off every queue's workers, wait for its jobs to finish), then remove it",
    ),
    changes(
        kind(GROUP, "MultiKueueConfig"),
        "strands queued work",
        "a queue's workers change: workloads waiting for a worker taken off are dispatched elsewhere or wait, "
        "and jobs running there are no longer followed by the manager",
        "spec.clusters",
    ),
    gone(
        kind(GROUP, "AdmissionCheck"),
        "strands queued work",
        "the ClusterQueues naming this check stop admitting: their pending workloads wait",
    ),
)
