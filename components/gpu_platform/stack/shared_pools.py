"""Time-slicing and MPS isolate no memory: one pod can take a whole card and crash its neighbours. Between pods
of one team that is the team's own risk; across teams it is an outage one team causes another. So a
time-sliced or MPS pool that pods of more than one team namespace can reach (a Kueue team whose ClusterQueue owns
or may borrow it from an owner that lends it, a KServe service placed on it) is refused; isolated fractions (HAMi) and MIG are not."""

from __future__ import annotations

from collections.abc import Sequence

from gpu_platform.addons.kserve.service_checks import KServeSpec
from gpu_platform.addons.kueue.checks import KueueSpec, QueueIndex
from gpu_platform.cloud_facts.profile import PoolProblems
from gpu_platform.pools import GpuPool

UNISOLATED_MODES = ("time-slicing", "mps")
"""Sharing modes that leave a card's memory (and faults) shared by every pod on it."""


def pool_users(
    pools: Sequence[GpuPool], kueue: KueueSpec | None, kserve: KServeSpec | None
) -> dict[str, dict[str, list[str]]]:
    """Pool name -> namespace -> who puts pods there (``team ml-a``, ``service chat``), for the unisolated pools."""
    shared = [p for p in pools if p.sharing.mode in UNISOLATED_MODES]
    users: dict[str, dict[str, list[str]]] = {p.name: {} for p in shared}
    if not shared:
        return users
    if kueue is not None:
        index = QueueIndex(kueue.cluster_queues, pools)
        queues = {q.name: q for q in kueue.cluster_queues}
        # (cohort, pool) a queue of that cohort lends: an owner with lendingLimitPercent 0 lends nothing.
        lent = {
            (q.cohort, p.name)
            for q in kueue.cluster_queues
            if q.cohort is not None and q.lending_limit_percent != 0
            for p in index.own(q)
        }
        for team in kueue.teams:
            queue = queues.get(team.cluster_queue)
            if queue is None:
                continue
            borrowed = [p for p in index.peers(queue) if (queue.cohort, p.name) in lent]
            reach = index.own(queue) + (borrowed if queue.borrowing_limit_percent != 0 else [])
            for pool in reach:
                if pool.name in users:
                    users[pool.name].setdefault(team.namespace, []).append(f"team {team.name}")
    for _, request in kserve.services if kserve is not None else ():
        if request.pool.name in users:
            users[request.pool.name].setdefault(request.namespace, []).append(f"service {request.name}")
    return users


def shared_pool_problems(
    pools: Sequence[GpuPool], kueue: KueueSpec | None, kserve: KServeSpec | None, at: PoolProblems
) -> None:
    """A time-sliced or MPS pool reached from more than one namespace: refused at its ``sharing.mode``, naming
    the pool, the namespaces and who in each puts pods there."""
    by_name = {p.name: p for p in pools}
    for name, namespaces in pool_users(pools, kueue, kserve).items():
        if len(namespaces) < 2:
            continue
        pool = by_name[name]
        who = "; ".join(f"{ns} ({', '.join(users)})" for ns, users in sorted(namespaces.items()))
        at(pool.index).add(
            ("sharing", "mode"),
            f"pool '{name}' shares each GPU by {pool.sharing.mode}, which isolates no memory, and pods of "
            f"{len(namespaces)} namespaces reach it: {who}; one team's pod can take the whole card and crash "
            "the others'. Use mode 'isolated' (a memory slice per pod, any GPU) or 'mig', or give each team "
            "its own pool",
        )
