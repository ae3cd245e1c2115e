"""Kueue settings resolved over the pools, and everything Kueue (or physics) would refuse, checked once.

The same checks run for the stack file's ``kueue`` section and for ``KueueArgs``; Kueue's API limits
are those of v0.19.2 (CRD ``maxItems``/``maxProperties`` and the ClusterQueue webhook).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

from gpu_platform.addons.kueue import settings as a
from gpu_platform.catalog.allocatable import MIB_PER_GIB, node_allocatable
from gpu_platform.catalog.cpu_machines import CpuShape
from gpu_platform.cloud_facts import profile_of
from gpu_platform.cloud_facts.profile import PoolProblems
from gpu_platform.errors import Key, Problems
from gpu_platform.formats.durations import go_duration_seconds
from gpu_platform.mirror import Mirror
from gpu_platform.plans.node_daemonsets import GpuOperatorFacts
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cluster import SystemPool
from gpu_platform.resolve.kubernetes import DNS_LABEL, RESERVED_NAMESPACES, is_dns_subdomain, label_problems
from gpu_platform.resolve.pools import ResolvedPools, valid_pools
from gpu_platform.scheduling import SYSTEM_POOL_LABELS, pool_tolerations, selector_labels
from gpu_platform.sharing import COMPUTE_DOMAIN_CHANNEL_RESOURCE, fraction_quota, node_resources

MAX_NODE_LABELS = 8
MAX_TOLERATIONS = 8
MAX_RESOURCE_GROUPS = 16
MAX_COVERED_RESOURCES = 64
MAX_FLAVORS_PER_GROUP = 64
MAX_FLAVOR_RESOURCES_PER_GROUP = 512
MAX_TOTAL_FLAVORS = 256
KNOWN_FRAMEWORKS: tuple[str, ...] = (
    "batch/job",
    "kubeflow.org/mpijob",
    "ray.io/rayjob",
    "ray.io/rayservice",
    "ray.io/raycluster",
    "jobset.x-k8s.io/jobset",
    "kubeflow.org/paddlejob",
    "kubeflow.org/pytorchjob",
    "kubeflow.org/tfjob",
    "kubeflow.org/xgboostjob",
    "kubeflow.org/jaxjob",
    "workload.codeflare.dev/appwrapper",
    "trainer.kubeflow.org/trainjob",
    "sparkoperator.k8s.io/sparkapplication",
    "pod",
    "deployment",
    "statefulset",
    "leaderworkerset.x-k8s.io/leaderworkerset",
)
"""Every ``integrations.frameworks`` name in the chart's values.yaml at 0.19.2 (enabled or commented out)."""
FRAMEWORK_DEPENDENCIES: dict[str, tuple[str, ...]] = {
    "deployment": ("pod",),
    "statefulset": ("pod",),
    "sparkoperator.k8s.io/sparkapplication": ("pod",),
}
"""Kueue refuses to start when an integration's ``DependencyList`` is not enabled too."""


@dataclass(frozen=True)
class Preemption:
    reclaim_within_cohort: str = a.DEFAULT_RECLAIM_WITHIN_COHORT
    borrow_within_cohort: str = a.DEFAULT_BORROW_WITHIN_COHORT
    within_cluster_queue: str = a.DEFAULT_WITHIN_CLUSTER_QUEUE


@dataclass(frozen=True)
class ClusterQueue:
    name: str
    pools: tuple[str, ...] | None = None
    """Owned pools in flavor order; ``None``: every pool; ``()``: none (the queue only borrows)."""
    cohort: str | None = None
    borrowing_limit_percent: int | None = None
    lending_limit_percent: int | None = None
    queueing_strategy: str = a.DEFAULT_QUEUEING_STRATEGY
    preemption: Preemption = field(default_factory=Preemption)
    pool_share_percent: tuple[tuple[str, int], ...] = ()
    """``(pool, percent)``: this queue's share of pools it lists with other queues (none: an even split)."""

    def share_of(self, pool: str) -> int | None:
        """The percent of ``pool`` this queue was given (``None``: none given)."""
        return next((percent for name, percent in self.pool_share_percent if name == pool), None)


@dataclass(frozen=True)
class Team:
    name: str
    namespace: str
    cluster_queue: str
    queue_name: str = a.DEFAULT_LOCAL_QUEUE
    retain_namespace: bool = True


@dataclass(frozen=True)
class PriorityClass:
    name: str
    value: int
    description: str = ""


@dataclass(frozen=True)
class RequeuingStrategy:
    timestamp: str = a.DEFAULT_REQUEUE_TIMESTAMP
    backoff_limit_count: int | None = a.DEFAULT_BACKOFF_LIMIT_COUNT
    """``None``: requeue forever."""
    backoff_base_seconds: int = a.DEFAULT_BACKOFF_BASE_SECONDS
    backoff_max_seconds: int = a.DEFAULT_BACKOFF_MAX_SECONDS


@dataclass(frozen=True)
class WaitForPodsReady:
    enabled: bool = True
    timeout: str = a.DEFAULT_WAIT_TIMEOUT
    block_admission: bool = a.DEFAULT_BLOCK_ADMISSION
    requeuing_strategy: RequeuingStrategy = field(default_factory=RequeuingStrategy)


@dataclass(frozen=True)
class CapacityBasis:
    """How much cpu and memory a GPU node offers pods: the cloud's published reservation (``existing``:
    what the pools declare), the VM memory overhead, and the GPU Operator operands on each node. Kueue's
    quotas and Volcano's queues both size pools from it (``addons.kueue.plan.pool_capacity``)."""

    cloud: str = "existing"
    vm_memory_overhead_percent: Fraction = Fraction(a.DEFAULT_VM_MEMORY_OVERHEAD)
    gpu_operator: GpuOperatorFacts | None = None
    dra_compute_domains: bool = False
    """The DRA kubelet plugin runs its ComputeDomains container too (``dra.computeDomains``)."""
    gpu_health_checks: bool = False
    """node-problem-detector and its tainting remedy run on every GPU node (``observability.healthChecks``)."""


@dataclass(frozen=True)
class SystemFlavor:
    """The CPU nodes CPU-only jobs are admitted to, and the total cpu/memory they may request."""

    node_labels: Mapping[str, str]
    cpu_millicores: int | None = None
    """Given total (``system_flavor.cpus``); ``None``: the system pool's allocatable x ``max_nodes``."""
    memory_mib: int | None = None
    machine_type: str | None = None
    shape: CpuShape | None = None
    """The system pool's machine, when the quota is derived from it."""
    max_nodes: int = 0


@dataclass(frozen=True)
class KueueSpec:
    """Kueue over the pools with every default applied."""

    cluster_queues: tuple[ClusterQueue, ...]
    """The configured queues, or the default ``gpu`` queue over every pool."""
    teams: tuple[Team, ...] = ()
    priority_classes: tuple[PriorityClass, ...] = ()
    wait_for_pods_ready: WaitForPodsReady = field(default_factory=WaitForPodsReady)
    integrations: tuple[str, ...] = a.DEFAULT_INTEGRATIONS
    values: Mapping[str, Any] = field(default_factory=dict)
    explicit_queues: bool = False
    cloud: str = "existing"
    """How node allocatable is known: the cloud's published reservation, or declared (``existing``)."""
    system_flavor: SystemFlavor | None = None
    vm_memory_overhead_percent: Fraction = Fraction(a.DEFAULT_VM_MEMORY_OVERHEAD)
    gpu_operator: GpuOperatorFacts | None = None
    """The GPU Operator whose operands' requests come off each GPU node; ``None``: it is not installed."""
    dra_compute_domains: bool = False
    """The DRA driver runs ComputeDomains (its kubelet plugin's second container is on each DRA node)."""
    gpu_health_checks: bool = False
    """The GPU health checks' pod is on each GPU node (``observability.healthChecks``)."""
    mirror: Mirror | None = None
    """Where the component's chart and images come from instead of upstream (the stack passes its own)."""

    @property
    def capacity_basis(self) -> CapacityBasis:
        return CapacityBasis(
            self.cloud,
            self.vm_memory_overhead_percent,
            self.gpu_operator,
            self.dra_compute_domains,
            self.gpu_health_checks,
        )

    @cached_property
    def _local_queue_set(self) -> frozenset[tuple[str, str]]:
        return frozenset((t.namespace, t.queue_name) for t in self.teams)

    @cached_property
    def _queues_by_namespace(self) -> dict[str, list[str]]:
        out: dict[str, dict[str, None]] = {}
        for t in self.teams:
            out.setdefault(t.namespace, {})[t.queue_name] = None
        return {namespace: list(queues) for namespace, queues in out.items()}

    def local_queues(self) -> frozenset[tuple[str, str]]:
        """``(namespace, LocalQueue)`` of every team (computed once: every service asks for its own)."""
        return self._local_queue_set

    def namespace_queues(self, namespace: str) -> list[str]:
        """The LocalQueues of the teams in ``namespace`` (empty: no Kueue team there), in team order."""
        return list(self._queues_by_namespace.get(namespace, ()))


def queue_pools(queue: ClusterQueue, pools: Sequence[GpuPool]) -> list[GpuPool]:
    """Pools whose capacity the queue owns (all or part of), in the queue's order (Kueue tries flavors in
    order)."""
    if queue.pools is None:
        return list(pools)
    by_name = {p.name: p for p in pools}
    return [by_name[name] for name in queue.pools if name in by_name]


def pool_owners(queues: Sequence[ClusterQueue], pools: Sequence[str]) -> dict[str, int]:
    """Pool -> index of a ClusterQueue whose nominal quota it is: the first queue that lists it (a queue
    without ``pools`` takes every pool; one with ``pools: []`` owns none). The one place that says which pools
    Kueue owns; Volcano schedules the others. ``pools`` are those Kueue and Volcano may count at all:
    ``without_exclusive`` has taken out the pools Slurm owns outright."""
    known = set(pools)
    out: dict[str, int] = {}
    for i, queue in enumerate(queues):
        for name in pools if queue.pools is None else queue.pools:
            if name in known:
                out.setdefault(name, i)
        if queue.pools is None:
            break  # every pool has its owner now
    return out


def without_exclusive(pools: ResolvedPools, exclusive: Collection[str]) -> ResolvedPools:
    """The pools Kueue and Volcano may count: all but those a scheduler owns outright (``exclusive``, Slurm's:
    slurmd holds every GPU of those nodes). Their names join ``broken``, so a queue or team that names one is
    told once, by the owner's resolver (``addons.slurm.checks``), that the pool is taken, not that it is no pool."""
    taken = set(exclusive)
    if not taken:
        return pools
    return ResolvedPools([p for p in pools.pools if p.name not in taken], pools.broken | taken)


def given_cluster_queues(raw: Mapping[str, Any]) -> list[ClusterQueue]:
    """The ``kueue`` section's queues and the pools they list, unchecked (so Volcano's checks can run even when
    the section has problems of its own), or the default queue over every pool."""
    given = [
        ClusterQueue(q["name"], None if q.get("pools") is None else tuple(q["pools"]))
        for q in raw.get("cluster_queues") or ()
    ]
    return given or [ClusterQueue(a.DEFAULT_CLUSTER_QUEUE)]


class QueueIndex:
    """Each queue's own pools and its cohort's pools, computed once over all queues: linear in the queues and
    the pools they list, so the checks and the plan never rescan every queue for every queue."""

    def __init__(
        self, queues: Sequence[ClusterQueue], pools: Sequence[GpuPool], compute_domains: bool = False
    ) -> None:
        self._all = list(pools)
        self._compute_domains = compute_domains
        self._by_name = {p.name: p for p in pools}
        members: dict[str, dict[str, GpuPool]] = {}
        for q in queues:
            if q.cohort is not None:
                for pool in self.own(q):
                    members.setdefault(q.cohort, {}).setdefault(pool.name, pool)
        self._cohorts = {cohort: list(by_name.values()) for cohort, by_name in members.items()}
        self._covered: dict[str | None, list[str]] = {}
        self._cohort_topology_only: dict[str, bool] = {}

    def own(self, queue: ClusterQueue) -> list[GpuPool]:
        """``queue_pools``: the pools whose capacity the queue owns (all or its share), in its order."""
        if queue.pools is None:
            return self._all
        return [self._by_name[name] for name in queue.pools if name in self._by_name]

    def cohort_pools(self, queue: ClusterQueue) -> list[GpuPool]:
        """Every pool some queue of ``queue``'s cohort owns, in queue order (``queue``'s own included)."""
        return self._cohorts.get(queue.cohort, []) if queue.cohort is not None else []

    def peers(self, queue: ClusterQueue) -> list[GpuPool]:
        """``cohort_peers``: pools owned by the other queues of the cohort, never nominal here."""
        if queue.cohort is None:
            return []
        own = {p.name for p in self.own(queue)}
        return [p for p in self.cohort_pools(queue) if p.name not in own]

    def topology_aware_only(self, queue: ClusterQueue) -> bool:
        """Every GPU flavor the queue lists (its own pools and its cohort's) is topology-aware: Kueue then treats
        the queue as TAS-only and gives every pod set topology-aware scheduling, even without a topology
        request, so its system flavor must be topology-aware too (``checkPodSetAndFlavorMatchForTAS``)."""
        own = self.own(queue)
        if not own or any(p.topology is None for p in own):
            return False
        if queue.cohort is None:
            return True
        cached = self._cohort_topology_only.get(queue.cohort)
        if cached is None:
            cached = all(p.topology is not None for p in self.cohort_pools(queue))
            self._cohort_topology_only[queue.cohort] = cached
        return cached

    def flavor_count(self, queue: ClusterQueue) -> int:
        """``len(own) + len(peers)`` without listing the peers: own pools are all in the cohort's pools."""
        own = self.own(queue)
        if queue.cohort is None:
            return len(own)
        return len(own) + len(self.cohort_pools(queue)) - len({p.name for p in own})

    def covered(self, queue: ClusterQueue) -> list[str]:
        """``covered_resources`` of the queue's own and peer pools (the cohort's pools, when it has one)."""
        if queue.cohort is not None:
            key: str | None = queue.cohort
            if key not in self._covered:
                self._covered[key] = covered_resources(self.cohort_pools(queue), self._compute_domains)
            return self._covered[key]
        if queue.pools is None:
            if None not in self._covered:
                self._covered[None] = covered_resources(self._all, self._compute_domains)
            return self._covered[None]
        return covered_resources(self.own(queue), self._compute_domains)


def cohort_peers(
    queue: ClusterQueue, queues: Sequence[ClusterQueue], pools: Sequence[GpuPool]
) -> list[GpuPool]:
    """Pools owned by the other queues of ``queue``'s cohort: borrowable, never nominal here. For many
    queues build one ``QueueIndex`` instead: this call is linear in every queue's pools."""
    return QueueIndex(queues, pools).peers(queue)


def covered_resources(pools: Sequence[GpuPool], compute_domains: bool = False) -> list[str]:
    """``cpu``, ``memory``, then every extended resource any of the pools advertises (sorted): GPU resources
    and EFA devices, and with ComputeDomains the DRA pools' channels. A job asking for a resource no flavor
    covers is never admitted."""
    names = {name for p in pools for name in (*node_resources(p), *fraction_quota(p))}
    if compute_domains and any(p.dra for p in pools):
        names.add(COMPUTE_DOMAIN_CHANNEL_RESOURCE)
    return ["cpu", "memory", *sorted(names)]


INT32_MAX = 2**31 - 1
"""Kueue's configuration fields ``backoffLimitCount``, ``backoffBaseSeconds`` and ``backoffMaxSeconds`` are
``*int32`` (apis/config/v1beta2): a larger number makes the controller refuse its configuration at start."""
MAX_GO_DURATION_SECONDS = (2**63 - 1) // 10**9
"""Go's ``time.Duration`` is int64 nanoseconds (about 292 years): a longer timeout does not parse."""


def _requeuing(raw: Mapping[str, Any], p: Problems) -> RequeuingStrategy:
    limit = raw.get("backoff_limit_count", a.DEFAULT_BACKOFF_LIMIT_COUNT)
    if limit < -1:
        p.add(("backoff_limit_count",), f"{limit} is out of range; -1 (forever) or more")
    elif limit > INT32_MAX:
        p.add(("backoff_limit_count",), f"{limit} is past Kueue's 32-bit field (at most {INT32_MAX})")
    base = raw.get("backoff_base_seconds", a.DEFAULT_BACKOFF_BASE_SECONDS)
    top = raw.get("backoff_max_seconds", a.DEFAULT_BACKOFF_MAX_SECONDS)
    for key, value in (("backoff_base_seconds", base), ("backoff_max_seconds", top)):
        if value < 1:
            p.add((key,), f"{value} is out of range; at least 1")
        elif value > INT32_MAX:
            p.add((key,), f"{value} is past Kueue's 32-bit field (at most {INT32_MAX} seconds)")
    return RequeuingStrategy(
        raw.get("timestamp", a.DEFAULT_REQUEUE_TIMESTAMP), None if limit == -1 else limit, base, top
    )


def cold_start(pools: Sequence[GpuPool]) -> bool:
    """A pool's pods may wait for a new node (it autoscales) or a MIG reboot (the operator partitions it)."""
    return any(
        pool.min_nodes < pool.max_nodes
        or (pool.sharing.mode == "mig" and pool.sharing.managed_by == "operator")
        for pool in pools
    )


def default_wait_timeout(pools: Sequence[GpuPool]) -> str:
    """``waitForPodsReady.timeout`` when none is given: 30m when pods may wait for a node, else 10m."""
    return a.DEFAULT_COLD_WAIT_TIMEOUT if cold_start(pools) else a.DEFAULT_WAIT_TIMEOUT


def _run_limit_problems(timeout: str, wait: Fraction, pools: Sequence[GpuPool], p: Problems) -> None:
    """Nodes the cloud reclaims after a maximum run (GKE flex-start, queued provisioning) must outlive Kueue's
    wait for a job's pods (``wait`` seconds): otherwise a job still starting loses its nodes before Kueue
    requeues it."""
    for pool in pools:
        for source in pool.sources:
            if source.max_run_hours is not None and wait >= source.max_run_hours * 3600:
                p.add(
                    ("timeout",),
                    f"'{timeout}' is not shorter than pool '{pool.name}''s {source.source} run limit of "
                    f"{source.max_run_hours}h (capacity maxRunHours): the nodes would be reclaimed while Kueue "
                    "still waits for the job's pods",
                )


def _wait(raw: Mapping[str, Any], pools: Sequence[GpuPool], p: Problems) -> WaitForPodsReady:
    timeout = raw.get("timeout", default_wait_timeout(pools))
    seconds = go_duration_seconds(timeout)  # a metav1.Duration: Go's time.ParseDuration grammar
    if seconds is None or seconds <= 0:
        p.add(("timeout",), f"{timeout!r} is not a positive duration like '10m', '1h30m' or '90s'")
    elif seconds > MAX_GO_DURATION_SECONDS:
        p.add(("timeout",), f"{timeout!r} is longer than a Go duration can hold (about 2562047h)")
    elif raw.get("enabled", True):
        _run_limit_problems(timeout, seconds, pools, p)
    return WaitForPodsReady(
        raw.get("enabled", True),
        timeout,
        raw.get("block_admission", a.DEFAULT_BLOCK_ADMISSION),
        _requeuing(raw.get("requeuing_strategy", {}), p.at("requeuing_strategy")),
    )


def _queue(raw: Mapping[str, Any], p: Problems) -> ClusterQueue:
    if not DNS_LABEL.match(raw["name"]) or not raw["name"][0].isalpha():
        p.add(
            ("name",),
            f"{raw['name']!r} is not a valid name: lowercase letters, digits and dashes, starting with a letter",
        )
    cohort = raw.get("cohort")
    if cohort is not None and not is_dns_subdomain(cohort):
        p.add(("cohort",), f"'{cohort}' is not a valid cohort name (DNS subdomain)")
    borrow, lend = raw.get("borrowing_limit_percent"), raw.get("lending_limit_percent")
    if borrow is not None and borrow < 0:
        p.add(("borrowing_limit_percent",), f"{borrow} is out of range; at least 0")
    if lend is not None and not 0 <= lend <= 100:
        p.add(("lending_limit_percent",), f"{lend} is out of range; 0 to 100")
    if cohort is None and borrow is not None:
        p.add(("borrowing_limit_percent",), "needs a cohort to borrow from")
    if cohort is None and lend is not None:
        p.add(("lending_limit_percent",), "needs a cohort to lend to")
    pre = raw.get("preemption", {})
    preemption = Preemption(
        pre.get("reclaim_within_cohort", a.DEFAULT_RECLAIM_WITHIN_COHORT),
        pre.get("borrow_within_cohort", a.DEFAULT_BORROW_WITHIN_COHORT),
        pre.get("within_cluster_queue", a.DEFAULT_WITHIN_CLUSTER_QUEUE),
    )
    if preemption.reclaim_within_cohort == "Never" and preemption.borrow_within_cohort != "Never":
        p.add(
            ("preemption", "borrow_within_cohort"),
            "must be 'Never' when {{reclaim_within_cohort}} is 'Never' (Kueue rejects the combination)",
        )
    shares = raw.get("pool_share_percent") or {}
    for pool, percent in shares.items():
        if not 1 <= percent <= 100:
            p.add(
                ("pool_share_percent", Key(pool)),
                f"{percent} is out of range; 1 to 100 percent of the pool (a queue that should only borrow "
                "the pool does not list it, and borrows it in the cohort)",
            )
    return ClusterQueue(
        raw["name"],
        None if "pools" not in raw else tuple(raw["pools"]),
        cohort,
        borrow,
        lend,
        raw.get("queueing_strategy", a.DEFAULT_QUEUEING_STRATEGY),
        preemption,
        tuple(shares.items()),
    )


def _queue_pools_problems(queues: Sequence[ClusterQueue], pools: ResolvedPools, p: Problems) -> None:
    names = [pl.name for pl in pools.pools]
    known = set(names)
    valid = valid_pools(names)
    first: dict[str, int] = {}
    for i, q in enumerate(queues):
        if first.setdefault(q.name, i) != i:
            p.add((i, "name"), f"'{q.name}' is used by more than one ClusterQueue")
        listed: set[str] = set()
        for j, name in enumerate(q.pools or ()):
            if name in listed:
                p.add((i, "pools", j), f"'{name}' is listed twice")
            elif name not in known and name not in pools.broken:
                p.add((i, "pools", j), f"'{name}' is not a GPU pool; {valid}")
            listed.add(name)
    _every_pool_problems(queues, names, p)
    _share_problems(queues, names, p)
    _borrow_only_problems(queues, known, p)


def _owns_some(queue: ClusterQueue, known: Collection[str]) -> bool:
    return bool(known) if queue.pools is None else any(name in known for name in queue.pools)


def _every_pool_problems(queues: Sequence[ClusterQueue], names: Sequence[str], p: Problems) -> None:
    """A queue without ``pools`` takes every pool, so it must be the only queue with a quota of its own. The
    refusal says what to write: its pools, listed (a pool several queues list is split between them), or
    ``pools: []`` (a queue that only borrows)."""
    if not names:
        return
    listing = [q.name for q in queues if q.pools is not None and _owns_some(q, set(names))]
    every: list[str] = []
    write = ", ".join(names) if len(names) <= 8 else f"{', '.join(names[:3])}, ..., {names[-1]}"
    for i, q in enumerate(queues):
        if q.pools is not None:
            continue
        if every:
            conflict = f"ClusterQueue '{every[0]}' takes every pool too"
        elif listing:
            one = len(listing) == 1
            whose = f"ClusterQueue {_few(listing)} lists" if one else f"ClusterQueues {_few(listing)} list"
            conflict = f"{whose} pools of {'its' if one else 'their'} own"
        else:
            every.append(q.name)
            continue
        every.append(q.name)
        p.add(
            (i, "pools"),
            f"not given, so this queue takes every pool, but {conflict}; only one queue may leave {{{{pools}}}} "
            f"out. Write this queue's pools, {{{{pools}}}}: [{write}] (a pool several queues list is split "
            "between them: evenly, or by {{pool_share_percent}}; in one {{cohort}} each borrows the others' idle "
            "share), or {{pools}}: [] for a queue that only borrows the idle pools of its {{cohort}}",
        )


def _share_problems(queues: Sequence[ClusterQueue], names: Sequence[str], p: Problems) -> None:
    """``pool_share_percent``: shares of pools the queue lists, and the shares of a pool add up to all of it."""
    known = set(names)
    listers: dict[str, list[int]] = {}
    for i, q in enumerate(queues):
        for name in dict.fromkeys(names if q.pools is None else q.pools):
            if name in known:
                listers.setdefault(name, []).append(i)
    for i, q in enumerate(queues):
        own = names if q.pools is None else q.pools
        for pool, percent in q.pool_share_percent:
            where = (i, "pool_share_percent", Key(pool))
            if pool not in own:
                p.add(where, f"'{pool}' is not one of this queue's pools; valid: {', '.join(own) or 'none'}")
            elif len(listers.get(pool, ())) == 1 and percent != 100:
                p.add(
                    where,
                    f"this is the only ClusterQueue listing pool '{pool}', so its quota is all of the pool: remove "
                    "the share, or list the pool under the other queues that share it",
                )
    for pool, owners in listers.items():
        given = [queues[i].share_of(pool) for i in owners]
        if (
            len(owners) < 2
            or all(g is None for g in given)
            or any(g is not None and not 1 <= g <= 100 for g in given)
        ):
            continue
        if None in given:
            without = owners[given.index(None)]
            sharing = [queues[i].name for i, g in zip(owners, given, strict=True) if g is not None]
            p.add(
                (without, "pool_share_percent"),
                f"has no share of pool '{pool}', which ClusterQueue {_few(sharing)} gives a share of: give every "
                "queue listing the pool its share, or none (an even split)",
            )
        elif (total := sum(g for g in given if g is not None)) != 100:
            detail = ", ".join(f"'{queues[i].name}' {g}" for i, g in zip(owners, given, strict=True))
            p.add(
                (owners[0], "pool_share_percent", Key(pool)),
                f"the shares of pool '{pool}' add up to {total} ({detail}); they must add up to 100, the whole "
                "pool, so its quotas promise exactly what its nodes hold",
            )


def _borrow_only_problems(queues: Sequence[ClusterQueue], known: Collection[str], p: Problems) -> None:
    """A queue with ``pools: []`` has no quota of its own: it needs a cohort whose queues have pools to lend."""
    lending = {q.cohort for q in queues if q.cohort is not None and _owns_some(q, known)}
    for i, q in enumerate(queues):
        if q.pools != ():
            continue
        if q.cohort is None:
            p.add(
                (i, "pools"),
                "[] gives this queue no quota of its own, and it has no cohort to borrow from: set {{cohort}} to "
                "the cohort of the queues whose pools it may borrow, or list its pools",
            )
        elif q.cohort not in lending:
            p.add(
                (i, "pools"),
                f"[] gives this queue no quota of its own, but no queue of cohort '{q.cohort}' has a pool to lend: "
                "list its pools, or put it in the cohort of the queues that have them",
            )


def _few(names: Sequence[str]) -> str:
    shown = ", ".join(f"'{n}'" for n in names[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _limit_problems(queue: ClusterQueue, index: QueueIndex, p: Problems, system_flavor: bool = False) -> None:
    """Kueue's size limits on the ClusterQueue the library would generate for ``queue``."""
    gpu_flavors = index.flavor_count(queue)
    covered = index.covered(queue)
    n_flavors = gpu_flavors + int(system_flavor)
    what = (
        f"{n_flavors} flavors ({gpu_flavors} pools and the system flavor)"
        if system_flavor
        else f"{n_flavors} pools"
    )
    if len(covered) > MAX_COVERED_RESOURCES:
        p.add(
            ("resources",),
            f"{len(covered)} distinct resources ({', '.join(covered)}); Kueue allows {MAX_COVERED_RESOURCES} per resource group",
        )
    if n_flavors > MAX_FLAVORS_PER_GROUP:
        p.add(("pools",), f"{what}; Kueue allows {MAX_FLAVORS_PER_GROUP} flavors per queue")
    combos = n_flavors * len(covered)
    if combos > MAX_FLAVOR_RESOURCES_PER_GROUP:
        p.add(
            ("pools",),
            f"{what} x {len(covered)} resources = {combos} quotas; Kueue allows "
            f"{MAX_FLAVOR_RESOURCES_PER_GROUP} per resource group: split the pools over queues",
        )


def _teams(raw: Sequence[Mapping[str, Any]], queues: Sequence[ClusterQueue], p: Problems) -> list[Team]:
    names = {q.name for q in queues}
    valid = ", ".join(sorted(names))
    out: list[Team] = []
    first: dict[tuple[str, str, str], Team] = {}
    ns_queue: dict[str, tuple[int, str]] = {}
    for i, t in enumerate(raw):
        here = p.at(i)
        team = Team(
            t["name"],
            t.get("namespace", t["name"]),
            t["cluster_queue"],
            t.get("queue_name", a.DEFAULT_LOCAL_QUEUE),
            t.get("retain_namespace", True),
        )
        if not DNS_LABEL.match(team.name):
            here.add(("name",), f"{team.name!r} is not a valid name: lowercase letters, digits and dashes")
        if team.cluster_queue not in names:
            here.add(
                ("cluster_queue",),
                f"'{team.cluster_queue}' is not a ClusterQueue; valid: {valid}",
            )
        if not DNS_LABEL.match(team.namespace):
            here.add(("namespace",), f"'{team.namespace}' is not a valid namespace name (DNS label)")
        elif team.namespace in RESERVED_NAMESPACES:
            where = ("namespace",) if "namespace" in t else ("name",)
            here.add(
                where,
                f"'{team.namespace}' is {RESERVED_NAMESPACES[team.namespace]}; give the team its own namespace",
            )
        key = (team.namespace, team.queue_name, team.cluster_queue)
        same = first.setdefault(key, team)
        if same is not team and same.name == team.name:
            here.add(("name",), f"team '{team.name}' is listed twice")
        elif same is not team:
            reason = f"LocalQueue '{team.queue_name}' in '{team.namespace}' is already team '{same.name}''s"
            here.add(("queue_name",), reason)
        if team.namespace in ns_queue and ns_queue[team.namespace][1] != team.cluster_queue:
            j, other = ns_queue[team.namespace]
            here.add(
                ("cluster_queue",),
                f"namespace '{team.namespace}' already belongs to ClusterQueue '{other}' (teams[{j}]); a namespace "
                "is admitted by one ClusterQueue: give this team its own namespace",
            )
        ns_queue.setdefault(team.namespace, (i, team.cluster_queue))
        if not is_dns_subdomain(team.queue_name):
            here.add(("queue_name",), f"'{team.queue_name}' is not a valid LocalQueue name")
        out.append(team)
    return out


def _priority_classes(raw: Sequence[Mapping[str, Any]] | None, p: Problems) -> list[PriorityClass]:
    if raw is None:
        return [PriorityClass(*pc) for pc in a.DEFAULT_PRIORITY_CLASSES]
    out: list[PriorityClass] = []
    seen: set[str] = set()
    for i, pc in enumerate(raw):
        if not is_dns_subdomain(pc["name"]):
            p.add((i, "name"), f"'{pc['name']}' is not a valid object name (DNS subdomain)")
        if pc["name"] in seen:
            p.add((i, "name"), f"'{pc['name']}' is defined twice")
        seen.add(pc["name"])
        if not -(2**31) <= pc["value"] < 2**31:
            p.add((i, "value"), "must fit in a 32-bit integer")
        out.append(PriorityClass(pc["name"], pc["value"], pc.get("description", "")))
    return out


def _integrations(raw: Sequence[str], p: Problems) -> None:
    for i, fw in enumerate(raw):
        if fw not in KNOWN_FRAMEWORKS:
            p.add((i,), f"'{fw}' is not a Kueue 0.19 integration; valid: {', '.join(KNOWN_FRAMEWORKS)}")
        for dep in FRAMEWORK_DEPENDENCIES.get(fw, ()):
            if dep not in raw:
                p.add((i,), f"'{fw}' needs the '{dep}' integration enabled too")


def _pool_problems(cloud: str, pools: Sequence[GpuPool], at: PoolProblems) -> None:
    for pool in pools:
        if len(selector_labels(pool)) > MAX_NODE_LABELS:
            at(pool.index).add((), f"its flavor would carry more than {MAX_NODE_LABELS} node labels")
        tolerations = pool_tolerations(pool)
        if len(tolerations) > MAX_TOLERATIONS:
            at(pool.index).add(
                ("taints",),
                f"{len(tolerations)} tolerations (GPU taint, these taints, cloud taints); a Kueue ResourceFlavor "
                f"takes at most {MAX_TOLERATIONS}",
            )
        for key, value in (("cpus_per_node", pool.vcpus), ("memory_gib_per_node", pool.memory_gib)):
            if value is None:
                at(pool.index).add(
                    (key,), "Kueue quotas need the node's cpu and memory on an existing cluster"
                )


def node_allocatable_units(
    cloud: str, machine_type: str, vcpus: int, memory_gib: Fraction | float, overhead: Fraction
) -> tuple[int, int]:
    """``(millicores, MiB)`` one node of a library-made pool offers pods (``catalog.allocatable``)."""
    profile = profile_of(cloud)
    alloc = node_allocatable(
        profile, vcpus, memory_gib, profile.default_max_pods(machine_type, vcpus), overhead
    )
    return alloc.cpu_millicores, alloc.memory_mib


SYSTEM_FLAVOR_FIX = (
    "{{system_flavor.cpus}} and {{system_flavor.memory_gib}}, or {{system_flavor.enabled}} false"
)


def _system_flavor_value_problems(
    raw: Mapping[str, Any], pools: Sequence[GpuPool], at: PoolProblems, p: Problems
) -> None:
    for key in ("cpus", "memory_gib"):
        value = raw.get(key)
        if value is not None and value < 1:
            p.add((key,), f"{value} is out of range; at least 1")
    for key, value in (raw.get("node_labels") or {}).items():
        for part, reason in label_problems(key, value):
            p.add(("node_labels", key), reason if part == "key" else f"value {reason}")
    for pool in pools:
        if pool.name in (a.SYSTEM_FLAVOR_NAME, a.SYSTEM_TOPOLOGY_FLAVOR_NAME):
            at(pool.index).add(
                ("name",),
                f"'{pool.name}' is the name of Kueue's system flavor; rename the pool or set "
                "{{kueue.system_flavor.enabled}} false",
            )


def _system_pool_flavor(
    cloud: str, cpus: int | None, memory: int | None, system_pool: SystemPool, overhead: Fraction, p: Problems
) -> SystemFlavor:
    """The system flavor over the cluster's own system pool; given totals may not exceed what it holds."""
    shape = profile_of(cloud).cpu_shape(system_pool.machine_type)
    if shape is None and (cpus is None or memory is None):
        p.add(
            (),
            f"the size of the system pool's machine '{system_pool.machine_type}' is not known to the library, "
            f"so its Kueue quota cannot be derived: set {SYSTEM_FLAVOR_FIX}",
        )
    elif shape is not None:
        cpu_m, mem_mib = node_allocatable_units(
            cloud, system_pool.machine_type, shape.vcpus, shape.memory_gib, overhead
        )
        n = system_pool.max_nodes
        for key, value, total, unit, name in (
            ("cpus", cpus, cpu_m * n, 1000, "cores"),
            ("memory_gib", memory, mem_mib * n, MIB_PER_GIB, "GiB"),
        ):
            if value is not None and value * unit > total:
                p.add(
                    (key,),
                    f"{value} is more than the system pool holds: {n} x {system_pool.machine_type} offer "
                    f"{total / unit:.1f} {name} to pods",
                )
    return SystemFlavor(
        dict(SYSTEM_POOL_LABELS),
        None if cpus is None else cpus * 1000,
        None if memory is None else memory * MIB_PER_GIB,
        system_pool.machine_type,
        shape,
        system_pool.max_nodes,
    )


def _system_flavor(
    cloud: str,
    raw: Mapping[str, Any],
    system_pool: SystemPool | None,
    overhead: Fraction,
    pools: Sequence[GpuPool],
    at: PoolProblems,
    p: Problems,
) -> SystemFlavor | None:
    """The system flavor from ``kueue.system_flavor`` and the cluster's system pool (``None``: none known)."""
    labels, cpus, memory = raw.get("node_labels"), raw.get("cpus"), raw.get("memory_gib")
    if raw.get("enabled") is False:
        for key in ("node_labels", "cpus", "memory_gib"):
            if key in raw:
                p.add((key,), "has no effect with {{system_flavor.enabled}} false; remove it")
        return None
    _system_flavor_value_problems(raw, pools, at, p)
    if labels is None and system_pool is None:
        if raw.get("enabled") or cpus is not None or memory is not None:
            p.add(
                ("node_labels",),
                "required on an existing or attached cluster: the labels of the CPU nodes CPU-only jobs may "
                "use (the library made no system pool here)",
            )
        return None
    if labels is None:
        assert system_pool is not None
        return _system_pool_flavor(cloud, cpus, memory, system_pool, overhead, p)
    for key, value in (("cpus", cpus), ("memory_gib", memory)):
        if value is None:
            p.add(
                (key,),
                "required with {{system_flavor.node_labels}}: the total CPU-only jobs may request there",
            )
    return SystemFlavor(
        dict(labels), None if cpus is None else cpus * 1000, None if memory is None else memory * MIB_PER_GIB
    )


def _overhead(cloud: str, raw: Mapping[str, Any], p: Problems) -> Fraction:
    value = raw.get("vm_memory_overhead_percent", a.DEFAULT_VM_MEMORY_OVERHEAD)
    if not profile_of(cloud).kueue_vm_overhead and "vm_memory_overhead_percent" in raw:
        p.add(
            ("vm_memory_overhead_percent",),
            "not used on an existing cluster, whose pools declare their allocatable memory; remove it",
        )
    elif not 0 <= value <= 50:
        p.add(
            ("vm_memory_overhead_percent",),
            f"{value} is out of range; 0 to 50 (percent of the node's memory)",
        )
    return Fraction(value).limit_denominator(1000)


def resolve_kueue(
    cloud: str,
    raw: Mapping[str, Any],
    pools: ResolvedPools,
    at: PoolProblems,
    p: Problems,
    system_pool: SystemPool | None = None,
    gpu_operator: GpuOperatorFacts | None = None,
    compute_domains: bool = False,
) -> KueueSpec | None:
    """The Kueue settings over the resolved pools (``p`` is where the settings live). ``system_pool``: the
    system pool of a cluster the library creates (``None`` on existing and attached clusters);
    ``gpu_operator``: the operator whose operands run on the GPU nodes (``None``: not installed);
    ``compute_domains``: DRA ComputeDomains are on, so each DRA pool's channel is one more covered resource."""
    before = p.count()
    _pool_problems(cloud, pools.pools, at)
    wait = _wait(raw.get("wait_for_pods_ready", {}), pools.pools, p.at("wait_for_pods_ready"))
    overhead = _overhead(cloud, raw, p)
    system = _system_flavor(
        cloud, raw.get("system_flavor", {}), system_pool, overhead, pools.pools, at, p.at("system_flavor")
    )
    explicit = [_queue(q, p.at("cluster_queues", i)) for i, q in enumerate(raw.get("cluster_queues", ()))]
    queues = explicit or [ClusterQueue(a.DEFAULT_CLUSTER_QUEUE)]
    _queue_pools_problems(explicit, pools, p.at("cluster_queues"))
    index = QueueIndex(queues, pools.pools, compute_domains)
    for i, q in enumerate(queues):
        where = p.at("cluster_queues", i) if explicit else p.at("cluster_queues")
        _limit_problems(q, index, where, system_flavor=system is not None)
    teams = _teams(raw.get("teams", ()), queues, p.at("teams"))
    classes = _priority_classes(raw.get("priority_classes"), p.at("priority_classes"))
    integrations = tuple(raw.get("integrations", a.DEFAULT_INTEGRATIONS))
    _integrations(integrations, p.at("integrations"))
    if p.count() != before:
        return None
    return KueueSpec(
        cluster_queues=tuple(queues),
        teams=tuple(teams),
        priority_classes=tuple(classes),
        wait_for_pods_ready=wait,
        integrations=integrations,
        values=dict(raw.get("values", {})),
        explicit_queues=bool(explicit),
        cloud=cloud,
        system_flavor=system,
        vm_memory_overhead_percent=overhead,
        gpu_operator=gpu_operator,
    )
