"""Volcano's team queues resolved over the pools, and every check of the ``volcano`` section written once.

The model mirrors Kueue's (``addons.kueue.checks``): a pool's capacity is the ``deserved`` share of exactly one team,
as it is the nominal quota of exactly one ClusterQueue, and a pool or a namespace belongs to Kueue or to
Volcano, never both, so the two schedulers never manage the same workloads or promise the same GPUs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gpu_platform.addons.kueue.checks import CapacityBasis, given_cluster_queues, pool_owners
from gpu_platform.addons.workloads.checks import node_selector_problems, values_toleration_problems
from gpu_platform.addons.workloads.settings import DEFAULT_VOLCANO_BORROWING, VolcanoArgs
from gpu_platform.args.validate import check_arguments
from gpu_platform.cloud_facts.profile import PoolProblems
from gpu_platform.errors import Problems
from gpu_platform.mirror import Mirror
from gpu_platform.pools import GpuPool
from gpu_platform.releases import VOLCANO, scheduling_namespaces
from gpu_platform.resolve.cluster_pools import resolve_cluster_pools
from gpu_platform.resolve.kubernetes import DNS_LABEL, RESERVED_NAMESPACES
from gpu_platform.resolve.mirror import resolve_mirror
from gpu_platform.resolve.pools import ResolvedPools, check_cuda_default, valid_pools
from gpu_platform.sharing import ISOLATED

RESERVED_QUEUES = frozenset({"default", "root"})
"""Queues Volcano creates and owns itself."""
CONTROLLER_NAMESPACES: dict[str, str] = scheduling_namespaces()
"""The workload controllers' and Volcano's namespaces: no Volcano team's (Kueue's refuse only
``RESERVED_NAMESPACES`` for now; ``addons.scheduling_namespaces``)."""


@dataclass(frozen=True)
class VolcanoTeam:
    name: str
    namespace: str
    pools: tuple[str, ...]
    """Pools whose capacity is the team's ``deserved`` share."""
    borrowing: bool = DEFAULT_VOLCANO_BORROWING


@dataclass(frozen=True)
class VolcanoSpec:
    """Volcano over its pools with every default applied."""

    pools: tuple[GpuPool, ...]
    """The pools Volcano schedules (every pool that is no Kueue queue's quota)."""
    teams: tuple[VolcanoTeam, ...] = ()
    values: Mapping[str, Any] = field(default_factory=dict)
    capacity_basis: CapacityBasis = field(default_factory=CapacityBasis)
    """How a node's cpu and memory are counted, as for Kueue's quotas."""
    node_selector: Mapping[str, str] | None = None
    """Where Volcano's own pods run when the component is given ``node_selector``; the stack places them with
    the other controllers instead (``workloads.node_selector``)."""
    mirror: Mirror | None = None
    """Where the component's chart and images come from instead of upstream (the stack passes its own)."""

    def team_pools(self, team: VolcanoTeam) -> list[GpuPool]:
        by_name = {p.name: p for p in self.pools}
        return [by_name[n] for n in team.pools if n in by_name]

    def capability_pools(self, team: VolcanoTeam) -> list[GpuPool]:
        """What the team may use: its own pools, and with ``borrowing`` every Volcano pool."""
        return list(self.pools) if team.borrowing else self.team_pools(team)


def kueue_owned_pools(kueue: Mapping[str, Any], pools: Sequence[GpuPool]) -> dict[str, str]:
    """Pool -> the Kueue ClusterQueue whose quota it is (from the raw ``kueue`` section, so it works even when
    that section has problems of its own)."""
    queues = given_cluster_queues(kueue)
    return {pool: queues[i].name for pool, i in pool_owners(queues, [p.name for p in pools]).items()}


def kueue_namespaces(kueue: Mapping[str, Any]) -> dict[str, int]:
    """Kueue team namespace -> index of the first team in ``kueue.teams``."""
    out: dict[str, int] = {}
    for i, t in enumerate(kueue.get("teams", ())):
        out.setdefault(t.get("namespace", t["name"]), i)
    return out


def _pool_problems(pools: Sequence[GpuPool], at: PoolProblems) -> None:
    for pool in pools:
        for key, value in (("cpus_per_node", pool.vcpus), ("memory_gib_per_node", pool.memory_gib)):
            if value is None:
                at(pool.index).add(
                    (key,), "Volcano queues need the node's cpu and memory on an existing cluster"
                )


def _isolated_pool_problems(pools: Sequence[GpuPool], at: PoolProblems) -> None:
    """Volcano cannot place HAMi's isolated fractions: HAMi's webhook leaves a pod whose ``schedulerName`` is
    another scheduler's alone (Project-HAMi/HAMi v2.10.0 ``pkg/scheduler/webhook.go``), no node advertises
    ``nvidia.com/gpumem`` (HAMi's scheduler extender accounts it), and HAMi's device plugin allocates only a pod
    its scheduler has bound and annotated (``pkg/device-plugin/nvidiadevice/nvinternal/plugin/server.go``,
    ``Allocate``). Volcano's own answer (Project-HAMi/volcano-vgpu-device-plugin, ``volcano.sh/vgpu-*``
    resources) is a different device plugin with other resource names, which the isolated mode does not install."""
    for pool in pools:
        if pool.sharing.mode == ISOLATED:
            at(pool.index).add(
                ("sharing", "mode"),
                f"pool '{pool.name}' is isolated, and with {{{{volcano.enabled}}}} Volcano schedules every GPU pool "
                "that is no Kueue ClusterQueue's quota, this one too: Volcano cannot place isolated fractions (HAMi's webhook leaves pods "
                "with schedulerName volcano to Volcano, no node advertises nvidia.com/gpumem, and HAMi's device "
                "plugin only allocates pods HAMi's scheduler placed), so they would never start. Make the pool a "
                "Kueue ClusterQueue's ({{kueue.cluster_queues}}), give it mode 'mig' or 'none', or turn Volcano off",
            )


@dataclass
class _Seen:
    """What earlier teams took: names, namespaces, deserved pools."""

    names: list[str] = field(default_factory=list)
    namespaces: dict[str, str] = field(default_factory=dict)
    deserved_by: dict[str, str] = field(default_factory=dict)


def _team_namespace(team: VolcanoTeam, kueue_ns: Mapping[str, int], seen: _Seen, here: Problems) -> None:
    """A team's namespace: a valid name, no controller's or Kubernetes' own, not Kueue's, not another team's."""
    if not DNS_LABEL.match(team.namespace):
        here.add(("namespace",), f"'{team.namespace}' is not a valid namespace name (DNS label)")
    elif (
        owner := RESERVED_NAMESPACES.get(team.namespace) or CONTROLLER_NAMESPACES.get(team.namespace)
    ) is not None:
        here.add(("namespace",), f"'{team.namespace}' is {owner}, never a team's")
    elif team.namespace in kueue_ns:
        here.add(
            ("namespace",),
            f"namespace '{team.namespace}' is a Kueue team's (kueue.teams[{kueue_ns[team.namespace]}]); Kueue "
            "and Volcano never manage the same namespace: give this team its own",
        )
    elif team.namespace in seen.namespaces:
        here.add(
            ("namespace",),
            f"namespace '{team.namespace}' already belongs to team '{seen.namespaces[team.namespace]}'",
        )


def _team_names(
    team: VolcanoTeam, own_namespace: bool, kueue_ns: Mapping[str, int], seen: _Seen, here: Problems
) -> None:
    """``own_namespace``: the team gives ``namespace``; otherwise it is the name, and a refused name says it all."""
    before = here.count()
    if not DNS_LABEL.match(team.name):
        here.add(("name",), f"{team.name!r} is not a valid queue name: lowercase letters, digits and dashes")
    elif team.name in RESERVED_QUEUES:
        here.add(("name",), f"'{team.name}' is a queue Volcano creates itself; choose another name")
    elif team.name in seen.names:
        here.add(("name",), f"'{team.name}' is used by more than one team")
    # Without its own namespace, the namespace is the name: a refused name is one mistake, said once.
    if own_namespace or here.count() == before:
        _team_namespace(team, kueue_ns, seen, here)
    seen.names.append(team.name)
    seen.namespaces.setdefault(team.namespace, team.name)


def _team_pools(
    team: VolcanoTeam,
    explicit: bool,
    pools: ResolvedPools,
    kueue_pools: Mapping[str, str],
    seen: _Seen,
    here: Problems,
) -> None:
    names = [pl.name for pl in pools.pools]
    if not team.pools:
        here.add(
            ("pools",),
            "no GPU pool is left for Volcano: every pool is the quota of a Kueue ClusterQueue; give "
            "{{kueue.cluster_queues}} explicit pools or set {{kueue.enabled}} to false",
        )
    for j, name in enumerate(team.pools):
        where: tuple[str | int, ...] = ("pools", j) if explicit else ("pools",)
        if name in team.pools[:j]:
            here.add(where, f"'{name}' is listed twice")
        elif name not in names:
            if name not in pools.broken:
                here.add(where, f"'{name}' is not a GPU pool; {valid_pools(names)}")
        elif name in kueue_pools:
            here.add(
                where,
                f"pool '{name}' is the quota of Kueue ClusterQueue '{kueue_pools[name]}'; a pool is scheduled by "
                "Kueue or by Volcano, never both, or both would promise the same GPUs",
            )
        elif name in seen.deserved_by:
            here.add(
                where,
                f"pool '{name}' is already the deserved share of team '{seen.deserved_by[name]}'; a pool's capacity "
                "is deserved by one team only (the other teams borrow it while it is idle)",
            )
        else:
            seen.deserved_by[name] = team.name


def resolve_volcano(
    raw: Mapping[str, Any],
    pools: ResolvedPools,
    at: PoolProblems,
    p: Problems,
    kueue: Mapping[str, Any] | None = None,
) -> VolcanoSpec | None:
    """The ``volcano`` settings over the resolved pools (``p`` is at them); ``kueue`` is the raw ``kueue``
    section when the stack installs Kueue too."""
    before = p.count()
    kueue_pools = kueue_owned_pools(kueue, pools.pools) if kueue is not None else {}
    kueue_ns = kueue_namespaces(kueue) if kueue is not None else {}
    mine = [pl for pl in pools.pools if pl.name not in kueue_pools]
    if kueue is not None and not mine and not raw.get("teams"):
        p.add(
            ("enabled",),
            "every GPU pool is the quota of a Kueue ClusterQueue, so Volcano would schedule GPUs Kueue has already "
            "promised: give {{kueue.cluster_queues}} explicit pools (Volcano gets the others) or set "
            "{{kueue.enabled}} to false",
        )
    _isolated_pool_problems(mine, at)
    seen = _Seen()
    teams: list[VolcanoTeam] = []
    for i, t in enumerate(raw.get("teams", ())):
        team = VolcanoTeam(
            t["name"],
            t.get("namespace", t["name"]),
            tuple(t.get("pools") or [pl.name for pl in mine]),
            t.get("borrowing", DEFAULT_VOLCANO_BORROWING),
        )
        _team_names(team, "namespace" in t, kueue_ns, seen, p.at("teams", i))
        _team_pools(team, bool(t.get("pools")), pools, kueue_pools, seen, p.at("teams", i))
        teams.append(team)
    if teams:
        _pool_problems(mine, at)
    if p.count() != before:
        return None
    basis = CapacityBasis(cloud=raw.get("cloud", "existing"))
    return VolcanoSpec(
        pools=tuple(mine), teams=tuple(teams), values=dict(raw.get("values", {})), capacity_basis=basis
    )


def resolve_volcano_args(args: VolcanoArgs) -> VolcanoSpec:
    """``Volcano``'s arguments checked and resolved like the stack file's ``volcano``, with where Volcano's own
    pods run; ``ArgumentsError`` lists every problem with its argument path."""
    p = Problems()
    checked = check_arguments(VolcanoArgs, args, p)
    if checked is None:
        p.raise_for_arguments()
    assert checked is not None
    check_cuda_default(checked.get("cuda_version"), p.at("cuda_version"))
    if "node_selector" in checked:
        node_selector_problems(checked["node_selector"], p.at("node_selector"))
    values_toleration_problems(VOLCANO.key, checked.get("values"), p.at("values"))
    at = lambda i: p.at("pools", i)  # noqa: E731
    resolved = resolve_cluster_pools(checked["cloud"], checked["pools"], checked.get("cuda_version"), at)
    spec = resolve_volcano(checked, resolved, at, p)
    mirror = resolve_mirror(checked.get("mirror"), p.at("mirror"))
    p.raise_for_arguments()
    assert spec is not None
    return replace(spec, node_selector=dict(checked.get("node_selector", {})), mirror=mirror)
