"""Cross-checks between add-on settings and the resolved pools (Kueue queues, KServe services)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_platform.config.errors import Problems
from gpu_platform.pools import GpuPool
from gpu_platform.sharing import advertised_resources

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
                p.add(["kueue", "clusterQueues", i, "pools", j], f"'{pool}' is not a GPU pool; valid: {', '.join(names)}")
        if q.cohort is None and q.borrowing_limit_percent is not None:
            p.add(["kueue", "clusterQueues", i, "borrowingLimitPercent"], "needs a cohort to borrow from")
        if q.cohort is None and q.lending_limit_percent is not None:
            p.add(["kueue", "clusterQueues", i, "lendingLimitPercent"], "needs a cohort to lend to")
    for i, t in enumerate(k.teams):
        if t.cluster_queue not in queues:
            p.add(["kueue", "teams", i, "clusterQueue"], f"'{t.cluster_queue}' is not a ClusterQueue; valid: {', '.join(sorted(queues))}")
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


def check_kserve(cfg: StackConfig, pools: list[GpuPool], p: Problems) -> None:
    ks = cfg.kserve
    by_name = {pl.name: pl for pl in pools}
    for i, svc in enumerate(ks.services):
        loc: list[str | int] = ["kserve", "services", i]
        if not ks.enabled:
            p.add(loc, "kserve.enabled is false")
            continue
        if svc.gpus != int(svc.gpus) or svc.gpus < 1:
            p.add(
                [*loc, "gpus"],
                f"{svc.gpus} is not a whole number of GPUs >= 1: Kubernetes rejects fractional or zero "
                "extended resources; share a GPU with time-slicing replicas or MIG slices instead",
            )
        pool = by_name.get(svc.pool)
        if pool is None:
            p.add([*loc, "pool"], f"'{svc.pool}' is not a GPU pool; valid: {', '.join(by_name)}")
            continue
        resources = advertised_resources(pool)
        if svc.mig_profile is not None:
            if f"nvidia.com/mig-{svc.mig_profile}" not in resources:
                p.add([*loc, "migProfile"], f"pool '{pool.name}' advertises {', '.join(resources)}")
        elif len(resources) > 1:
            p.add([*loc, "migProfile"], f"pool '{pool.name}' has several MIG profiles; choose one of {', '.join(sorted(p_.removeprefix('nvidia.com/mig-') for p_ in resources))}")
        if svc.gpus == int(svc.gpus) and svc.gpus >= 1:
            per_node = max(resources.values())
            if svc.gpus > per_node:
                p.add([*loc, "gpus"], f"{int(svc.gpus)} units do not fit on one node of '{pool.name}' ({per_node} per node)")


def check_addons(cfg: StackConfig, pools: list[GpuPool], p: Problems) -> None:
    check_kueue(cfg, pools, p)
    check_kserve(cfg, pools, p)
