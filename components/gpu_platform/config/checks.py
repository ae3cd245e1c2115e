"""Cross-checks between add-on settings and the resolved pools (Kueue queues, KServe services)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_platform.config.errors import Problems
from gpu_platform.pools import GpuPool

if TYPE_CHECKING:
    from gpu_platform.config.stack import StackConfig


def check_kueue(cfg: StackConfig, pools: list[GpuPool], p: Problems) -> None:
    k = cfg.kueue
    if not k.enabled:
        return
    names = {pl.name for pl in pools}
    queues = {q.name for q in k.cluster_queues} or {"gpu"}
    for i, q in enumerate(k.cluster_queues):
        for j, pool in enumerate(q.pools):
            if pool not in names:
                p.add(
                    ["kueue", "clusterQueues", i, "pools", j],
                    f"'{pool}' is not a GPU pool; valid: {', '.join(names)}",
                )
        if q.cohort is None and q.borrowing_limit_percent is not None:
            p.add(["kueue", "clusterQueues", i, "borrowingLimitPercent"], "needs a cohort to borrow from")
        if q.cohort is None and q.lending_limit_percent is not None:
            p.add(["kueue", "clusterQueues", i, "lendingLimitPercent"], "needs a cohort to lend to")
    for i, t in enumerate(k.teams):
        if t.cluster_queue not in queues:
            p.add(
                ["kueue", "teams", i, "clusterQueue"],
                f"'{t.cluster_queue}' is not a ClusterQueue; valid: {', '.join(sorted(queues))}",
            )
    for pl in pools:
        if cfg.cloud == "existing" and (pl.vcpus is None or pl.memory_gib is None):
            p.add(
                ["gpuPools", pl.index, "cpusPerNode" if pl.vcpus is None else "memoryGibPerNode"],
                "Kueue quotas need the node's cpu and memory on an existing cluster",
            )
    # What Kueue itself would reject (limits, pool ownership, preemption, integrations), spelled for config.
    from gpu_platform.operators.kueue_objects import stack_config_problems

    for loc, reason in stack_config_problems(pools, k):
        p.add(loc, reason)


_FIELD = {"gpus": "gpus", "mig_profile": "migProfile"}


def check_kserve(cfg: StackConfig, pools: list[GpuPool], p: Problems) -> None:
    """Inference services: whole GPU units of what the pool advertises, known pools, queues, names."""
    from gpu_platform.gpu_requests import gpu_resource, gpu_units_problems, whole_number_problems

    ks = cfg.kserve
    by_name = {pl.name: pl for pl in pools}
    local_queues = (
        {(t.namespace or t.name, t.queue_name) for t in cfg.kueue.teams} if cfg.kueue.enabled else set()
    )
    seen: set[tuple[str, str]] = set()
    for i, svc in enumerate(ks.services):
        loc: list[str | int] = ["kserve", "services", i]
        if not ks.enabled:
            p.add(loc, "kserve.enabled is false")
            continue
        if (svc.namespace, svc.name) in seen:
            p.add([*loc, "name"], f"'{svc.name}' is already used in namespace '{svc.namespace}'")
        seen.add((svc.namespace, svc.name))
        if svc.max_replicas < svc.min_replicas:
            p.add([*loc, "maxReplicas"], f"{svc.max_replicas} is less than minReplicas {svc.min_replicas}")
        if svc.queue is not None:
            if (svc.namespace, svc.queue) not in local_queues:
                p.add(
                    [*loc, "queue"],
                    f"no Kueue LocalQueue '{svc.queue}' in namespace '{svc.namespace}' (kueue.teams)",
                )
            elif not {"pod", "deployment"} <= set(cfg.kueue.integrations):
                p.add(
                    ["kueue", "integrations"], "KServe predictors are Deployments: add 'pod' and 'deployment'"
                )
        pool = by_name.get(svc.pool)
        if pool is None:
            for field, reason in whole_number_problems(svc.gpus):
                p.add([*loc, _FIELD[field]], reason)
            p.add([*loc, "pool"], f"'{svc.pool}' is not a GPU pool; valid: {', '.join(by_name)}")
            continue
        resource, problems = gpu_resource(pool, svc.mig_profile)
        problems += gpu_units_problems(svc.gpus, pool, resource)
        for field, reason in problems:
            p.add([*loc, _FIELD[field]], reason)


def check_addons(cfg: StackConfig, pools: list[GpuPool], p: Problems) -> None:
    check_kueue(cfg, pools, p)
    check_kserve(cfg, pools, p)
