"""``GpuFleet``'s arguments checked and resolved: each worker's Kueue through the Kueue add-on's own resolver,
then what only a fleet can get wrong (a queue sent where its GPUs are not, a missing job controller, Kueue
releases that differ, a worker too small for the largest job). Every problem names its argument."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from gpu_platform import versions
from gpu_platform.addons.fleet.settings import (
    DEFAULT_DISPATCHER,
    FleetManagerArgs,
    FleetQueuesArgs,
    FleetWorkerArgs,
    GpuFleetArgs,
)
from gpu_platform.addons.kueue.args_checks import resolve_kueue_args
from gpu_platform.addons.kueue.checks import KueueSpec, QueueIndex
from gpu_platform.addons.kueue.plan import all_units, nominal_shares, system_shares
from gpu_platform.addons.kueue.settings import DEFAULT_INTEGRATIONS, SYSTEM_FLAVOR_NAME
from gpu_platform.args.validate import check_arguments, unknown_key_reason
from gpu_platform.errors import ArgumentsError, Problems
from gpu_platform.pools import GpuPool
from gpu_platform.releases import JOBSET, KUBERAY, LEADER_WORKER_SET, TRAINER

CONTROLLER_FRAMEWORKS: Mapping[str, tuple[str, ...]] = {
    "jobset": JOBSET.kueue_frameworks,
    "leaderWorkerSet": LEADER_WORKER_SET.kueue_frameworks,
    "trainer": TRAINER.kueue_frameworks,
    "kuberay": KUBERAY.kueue_frameworks,
}
"""A job controller -> the Kueue frameworks it brings (``releases``)."""
BUILT_IN_FRAMEWORKS = ("batch/job", "pod", "deployment", "statefulset")
"""Kinds Kubernetes runs itself: no controller to install."""
GPU_RESOURCE = "nvidia.com/gpu"
VERSION = re.compile(r"v\d+\.\d+\.\d+")
_WORKER_KEYS = ("cloud", "pools", "cuda_version", "system_pool", "system_flavor", "gpu_operator")
_QUEUE_ONLY_KEYS = ("workers", "frameworks", "largest_gang_gpus")


@dataclass(frozen=True)
class FleetQueue:
    name: str
    pools: tuple[str, ...]
    workers: tuple[str, ...]
    """Workers it dispatches to, most preferred first."""
    frameworks: tuple[str, ...] = ()
    largest_gang_gpus: int | None = None


@dataclass(frozen=True)
class FleetWorker:
    name: str
    pools: tuple[GpuPool, ...]
    kueue: KueueSpec
    """Its Kueue: the fleet's queues that dispatch to it, over its own pools among theirs, and their teams."""
    namespace: str
    kubeconfig: Any
    kueue_elsewhere: bool = False
    """Kueue is installed outside the fleet (``kueue_version`` given): only the fleet's objects are created."""


@dataclass(frozen=True)
class FleetSpec:
    manager_kubeconfig: Any
    manager_kueue: KueueSpec
    """Every queue and team of the fleet (the manager's flavors and quotas are the workers', ``fleet.plan``)."""
    workers: tuple[FleetWorker, ...]
    queues: tuple[FleetQueue, ...]
    dispatcher: str = DEFAULT_DISPATCHER.value
    kueue_version: str = versions.KUEUE_IMAGE_TAG
    namespace: str = versions.KUEUE.namespace
    manager_kueue_elsewhere: bool = False


def _checked(args: GpuFleetArgs, p: Problems) -> dict[str, Any] | None:
    """The arguments checked against their TypedDicts, the manager and each worker on their own (their
    kubeconfig is an Output: passed through, never read at plan time)."""
    if not isinstance(args, Mapping):
        return check_arguments(GpuFleetArgs, args, p)
    parts = ("manager", "workers")
    known = list(GpuFleetArgs.__annotations__)
    for key in args:
        if key not in known:
            p.add((str(key),), unknown_key_reason(str(key), known, camel=False))
    rest = check_arguments(
        FleetQueuesArgs, {k: v for k, v in args.items() if k in known and k not in parts}, p
    )
    for key in parts:
        if key not in args:
            p.add((key,), "required argument is missing")
    manager = check_arguments(FleetManagerArgs, args.get("manager", {}), p.at("manager"))
    raw = args.get("workers", [])
    if not isinstance(raw, Sequence) or isinstance(raw, str) or not raw:
        p.add(("workers",), "a list of at least one worker")
        raw = []
    workers = [check_arguments(FleetWorkerArgs, w, p.at("workers", i)) for i, w in enumerate(raw)]
    if rest is None or manager is None or p:
        return None
    return {**rest, "manager": manager, "workers": workers}


def _queues(raw: Sequence[Mapping[str, Any]], workers: Sequence[str], p: Problems) -> list[FleetQueue]:
    """The queues with their workers, each named worker known; every queue lists its pools."""
    out = []
    for i, q in enumerate(raw):
        if "pools" not in q or not q["pools"]:
            p.add(
                ("cluster_queues", i, "pools"),
                "a fleet queue lists its pools (each worker's quota is its own pools among them); "
                "valid: pool names of the workers",
            )
        named = tuple(q.get("workers", workers))
        for j, w in enumerate(named):
            if named.index(w) != j:
                p.add(("cluster_queues", i, "workers", j), f"worker {w!r} is named twice")
            elif w not in workers:
                p.add(("cluster_queues", i, "workers", j), f"no worker {w!r}; valid: {', '.join(workers)}")
        if not named:
            p.add(("cluster_queues", i, "workers"), "a queue dispatches to at least one worker")
        if len(named) > 20:
            p.add(("cluster_queues", i, "workers"), "at most 20 (Kueue's MultiKueueConfig limit)")
        gang = q.get("largest_gang_gpus")
        if gang is not None and gang < 1:
            p.add(("cluster_queues", i, "largest_gang_gpus"), "at least 1")
        out.append(
            FleetQueue(q["name"], tuple(q.get("pools", ())), named, tuple(q.get("frameworks", ())), gang)
        )
    return out


def _flavor_problems(queues: Sequence[FleetQueue], pools: Mapping[str, Sequence[str]], p: Problems) -> None:
    """A queue sent to a worker that has none of its pools: the worker's mirror would have no quota, and every job
    the manager copies there waits forever."""
    for i, q in enumerate(queues):
        for j, w in enumerate(q.workers):
            if w in pools and q.pools and not set(q.pools) & set(pools[w]):
                p.add(
                    ("cluster_queues", i, "workers", j),
                    f"worker {w!r} has none of this queue's pools ({', '.join(q.pools)}; its pools: "
                    f"{', '.join(pools[w]) or 'none'}): jobs dispatched there never start. Dispatch the queue "
                    f"only to workers with its GPUs, or add one of its pools to {{{{pools}}}}",
                )


def _framework_problems(args: Mapping[str, Any], queues: Sequence[FleetQueue], p: Problems) -> None:
    """Each framework a queue admits is built in or brought by a controller every cluster of the queue runs."""
    known = {f: c for c, fs in CONTROLLER_FRAMEWORKS.items() for f in fs}
    workers = {w["name"]: (i, w) for i, w in enumerate(args["workers"])}
    for i, q in enumerate(queues):
        for k, framework in enumerate(q.frameworks):
            if framework in BUILT_IN_FRAMEWORKS:
                continue
            controller = known.get(framework)
            if controller is None:
                valid = ", ".join([*BUILT_IN_FRAMEWORKS, *known])
                p.add(
                    ("cluster_queues", i, "frameworks", k), f"unknown framework {framework!r}; valid: {valid}"
                )
                continue
            clusters = [("manager", args["manager"])] + [
                (f"workers[{workers[w][0]}]", workers[w][1]) for w in q.workers if w in workers
            ]
            for where, cluster in clusters:
                if controller not in cluster.get("controllers", ()):
                    p.add(
                        ("cluster_queues", i, "frameworks", k),
                        f"{where} runs no {controller} controller for {framework} (its controllers: "
                        f"{', '.join(cluster.get('controllers', ())) or 'none'}): MultiKueue needs it on the "
                        f"manager and on every worker of the queue; install it there (workloads.{controller}) "
                        "and list it in its controllers",
                    )


def _version_problems(args: Mapping[str, Any], p: Problems) -> str:
    """The one Kueue release of the fleet (the manager's: the library's pin when the fleet installs it); each
    worker running another is refused."""
    pin = versions.KUEUE_IMAGE_TAG
    for where, cluster in [(("manager",), args["manager"])] + [
        (("workers", i), w) for i, w in enumerate(args["workers"])
    ]:
        given = cluster.get("kueue_version")
        if given is not None and not VERSION.fullmatch(given):
            p.add(
                (*where, "kueue_version"), f"{given!r} is not a Kueue release tag; valid: vX.Y.Z, e.g. {pin}"
            )
    version = str(args["manager"].get("kueue_version", pin))
    for i, w in enumerate(args["workers"]):
        theirs = w.get("kueue_version", pin)
        if theirs != version and VERSION.fullmatch(theirs) and VERSION.fullmatch(version):
            how = "the Kueue the fleet installs" if "kueue_version" not in w else "its Kueue"
            p.add(
                ("workers", i, "kueue_version"),
                f"{theirs} ({how}) differs from the manager's Kueue {version} ({{{{manager.kueue_version}}}}; "
                f"unset: the fleet installs {pin}): the manager copies Workloads to its workers in its own API, "
                "so every cluster of a fleet runs the same Kueue release",
            )
    return version


def _worker_args(
    raw: Mapping[str, Any], queues: Sequence[FleetQueue], fleet: Mapping[str, Any]
) -> dict[str, Any]:
    """The worker's ``KueueArgs``: its queues, each over its own pools among the queue's, and their teams."""
    names = {pool["name"] for pool in raw["pools"]}
    mine = {q.name for q in queues if raw["name"] in q.workers}
    cluster_queues = []
    for q in fleet["cluster_queues"]:
        if q["name"] not in mine:
            continue
        queue = {k: v for k, v in q.items() if k not in _QUEUE_ONLY_KEYS}
        queue["pools"] = [name for name in q["pools"] if name in names]
        shares = queue.get("pool_share_percent")
        if shares:
            queue["pool_share_percent"] = {k: v for k, v in shares.items() if k in names}
        cluster_queues.append(queue)
    args: dict[str, Any] = {k: raw[k] for k in _WORKER_KEYS if k in raw}
    args.update(
        cluster_queues=cluster_queues,
        teams=[t for t in fleet["teams"] if t["cluster_queue"] in mine],
        integrations=integrations(queues),
    )
    if "priority_classes" in fleet:
        args["priority_classes"] = fleet["priority_classes"]
    return args


def integrations(queues: Sequence[FleetQueue]) -> list[str]:
    """Kueue's ``integrations.frameworks`` on every cluster: the defaults and what the queues admit."""
    return list(dict.fromkeys([*DEFAULT_INTEGRATIONS, *(f for q in queues for f in q.frameworks)]))


def _resolve_worker(raw: Mapping[str, Any], kueue_args: Mapping[str, Any], i: int, p: Problems) -> Any:
    """The worker's pools and Kueue, by the Kueue add-on's resolver; its problems filed under ``workers[i]``."""
    try:
        return resolve_kueue_args(kueue_args)  # type: ignore[arg-type]
    except ArgumentsError as exc:
        for path, reason in exc.problems:
            if path.split(".")[0].split("[")[0] in _WORKER_KEYS:  # the worker's own argument
                p.add(("workers", i, path), reason)
            else:  # a queue or team as this worker runs it
                p.add(("workers", i), f"{path}: {reason} (in the worker's Kueue: the queues it runs)")
        return None


def queue_units(pools: Sequence[GpuPool], spec: KueueSpec) -> dict[str, dict[str, dict[str, int]]]:
    """Queue -> flavor -> resource -> the queue's nominal base units on one worker (the same numbers its
    ClusterQueue gets from ``kueue.plan``), the system flavor included."""
    index = QueueIndex(spec.cluster_queues, pools, spec.dra_compute_domains)
    used = {pool.name for q in spec.cluster_queues for pool in index.own(q)}
    units = all_units(pools, spec.capacity_basis, used)
    nominal = nominal_shares(spec.cluster_queues, index, units)
    system: list[dict[str, int] | None] = [*system_shares(spec)] or [None] * len(spec.cluster_queues)
    out: dict[str, dict[str, dict[str, int]]] = {}
    for q, own, share in zip(spec.cluster_queues, nominal, system, strict=True):
        flavors = {SYSTEM_FLAVOR_NAME: dict(share)} if share is not None else {}
        flavors.update({name: dict(u) for name, u in own.items()})
        out[q.name] = flavors
    return out


def _gang_problems(queues: Sequence[FleetQueue], workers: Sequence[FleetWorker], p: Problems) -> None:
    """A worker whose share of a queue holds fewer GPUs than the queue's largest job: the manager admits the job
    and copies it there, where it can never start."""
    by_name = {w.name: w for w in workers}
    for i, q in enumerate(queues):
        if q.largest_gang_gpus is None:
            continue
        for j, name in enumerate(q.workers):
            worker = by_name.get(name)
            if worker is None:
                continue
            flavors = queue_units(worker.pools, worker.kueue).get(q.name, {})
            gpus = sum(units.get(GPU_RESOURCE, 0) for units in flavors.values())
            if gpus < q.largest_gang_gpus:
                p.add(
                    ("cluster_queues", i, "largest_gang_gpus"),
                    f"{q.largest_gang_gpus} GPUs, but worker {name!r} (cluster_queues[{i}].workers[{j}]) holds "
                    f"{gpus} {GPU_RESOURCE} in this queue at most: a job that large would be dispatched there and "
                    "never start; raise that worker's pools' max_nodes or drop it from the queue's workers",
                )


def resolve_fleet_args(args: GpuFleetArgs, problems: Problems | None = None) -> FleetSpec:
    """Every problem of the fleet's arguments at once (``ArgumentsError``), else its resolved spec. With
    ``problems`` (a manager stack's ``fleet`` section), they are filed there and raised as ``ConfigError``."""
    p = problems if problems is not None else Problems()
    stop = p.raise_for_arguments if problems is None else p.raise_for_config
    checked = _checked(args, p)
    if checked is None:
        stop()
    assert checked is not None
    names = [w["name"] for w in checked["workers"]]
    for i, name in enumerate(names):
        if names.index(name) != i:
            p.add(("workers", i, "name"), f"worker {name!r} is named twice")
    queues = _queues(checked["cluster_queues"], names, p)
    _flavor_problems(
        queues, {w["name"]: [pool["name"] for pool in w["pools"]] for w in checked["workers"]}, p
    )
    _framework_problems(checked, queues, p)
    version = _version_problems(checked, p)
    if p:
        stop()
    workers = []
    for i, raw in enumerate(checked["workers"]):
        resolved = _resolve_worker(raw, _worker_args(raw, queues, checked), i, p)
        if resolved is not None:
            pools, spec, namespace = resolved
            kubeconfig, elsewhere = args["workers"][i]["kubeconfig"], "kueue_version" in raw
            workers.append(FleetWorker(raw["name"], tuple(pools), spec, namespace, kubeconfig, elsewhere))
    _gang_problems(queues, workers, p)
    stop()
    manager = _manager_kueue(queues, checked["teams"], workers)
    dispatcher = str(checked.get("dispatcher", DEFAULT_DISPATCHER.value))
    return FleetSpec(
        args["manager"]["kubeconfig"],
        manager,
        tuple(workers),
        tuple(queues),
        dispatcher,
        version,
        manager_kueue_elsewhere="kueue_version" in checked["manager"],
    )


def _manager_kueue(
    queues: Sequence[FleetQueue], teams: Sequence[Mapping[str, Any]], workers: Sequence[FleetWorker]
) -> KueueSpec:
    """The manager's Kueue: every queue (as its workers resolved it, over all its pools) and team of the fleet,
    the first worker's settings otherwise, and no system flavor: the manager runs no job."""
    resolved = {q.name: q for w in workers for q in w.kueue.cluster_queues}
    by_team = {t.name: t for w in workers for t in w.kueue.teams}
    return replace(
        workers[0].kueue,
        cluster_queues=tuple(replace(resolved[q.name], pools=q.pools) for q in queues if q.name in resolved),
        teams=tuple(by_team[t["name"]] for t in teams if t["name"] in by_team),
        system_flavor=None,
    )
