"""A pool's capacity sources: ``capacity`` (or its older spellings ``spot``, ``capacity_type`` and
``reservation``) checked against what the cloud offers, resolved to ``CapacitySource`` entries.

What a cloud accepts comes from its profile (``capacity_sources``, ``chain_sources``,
``reservation_problem``, ``max_run_sources``): nothing here names a cloud. docs/capacity.md says which
source suits which job.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_platform.cloud_facts import clouds_where, profile_of
from gpu_platform.cloud_facts.profile import CloudProfile
from gpu_platform.errors import Problems
from gpu_platform.formats.secret import is_stand_in
from gpu_platform.pools import CapacitySource

LEGACY_KEYS = ("spot", "capacity_type", "reservation")
"""The older spellings of ``capacity``: still accepted alone, never together with it."""
ORDER = ("on-demand", "spot", "reservation", "capacity-block", "flex-start", "queued-provisioning")
"""Sources in the order messages list them."""


def _valid(sources: frozenset[str]) -> str:
    return ", ".join(s for s in ORDER if s in sources)


def _where(source: str, chain: bool) -> str:
    clouds = clouds_where(lambda q: source in (q.chain_sources if chain else q.capacity_sources))
    return " and ".join(q.display for q in clouds)


def _legacy(pool: Mapping[str, Any]) -> tuple[dict[str, Any], ...]:
    """``spot``/``capacity_type``/``reservation`` in the new vocabulary (already checked by ``_check_capacity``)."""
    capacity, reservation = pool.get("capacity_type"), pool.get("reservation")
    if capacity == "CAPACITY_BLOCK":
        return ({"source": "capacity-block", "reservation": reservation},)
    if pool.get("spot") or capacity == "SPOT":
        return ({"source": "spot"},)
    if reservation is not None:
        return ({"source": "reservation", "reservation": reservation},)
    return ({"source": "on-demand"},)


def _check_source(profile: CloudProfile, source: str, chain: bool, p: Problems) -> bool:
    """Whether the cloud takes ``source`` (alone or in a chain); files why not."""
    allowed = profile.chain_sources if chain else profile.capacity_sources
    if chain and not profile.chain_sources:
        served = " and ".join(
            f"{q.display} ({q.chain_served_by})" for q in clouds_where(lambda q: q.chain_sources)
        )
        p.add(
            ("source",),
            f"{profile.display} has no fallback chains (several sources): {served} only; give one",
        )
        return False
    if source in allowed:
        return True
    what = "in a fallback chain" if chain else "a capacity source"
    where = _where(source, chain)
    alone = chain and source in profile.capacity_sources
    extra = f"; '{source}' works as a pool's only source" if alone else ""
    p.add(
        ("source",),
        f"'{source}' is not {what} on {profile.display}{f' ({where} only)' if where else ''}; "
        f"valid here: {_valid(allowed)}{extra}",
    )
    return False


def _check_reservation(
    profile: CloudProfile, pool: Mapping[str, Any], raw: Mapping[str, Any], known: bool, p: Problems
) -> None:
    """A ``reservation``/``capacity-block`` entry: its name or ID, affinity, project and reserved nodes."""
    source, reservation, affinity = raw["source"], raw.get("reservation"), raw.get("affinity")
    affinities = " and ".join(q.display for q in clouds_where(lambda q: q.reservation_affinities))
    if affinity is not None and not profile.reservation_affinities:
        p.add(("affinity",), f"{affinities} only; {profile.display} consumes the named reservation")
    elif affinity is not None and source == "capacity-block":
        p.add(("affinity",), "a Capacity Block is always consumed by name; remove {{affinity}}")
    if affinity == "any":
        if reservation is not None:
            p.add(("reservation",), "affinity 'any' consumes any matching reservation; remove the name")
        if "project" in raw:
            p.add(("project",), "only with affinity 'specific' (a named shared reservation)")
    elif reservation is None:
        p.add(("reservation",), f"source '{source}' needs the reservation to consume")
    elif (
        known
        and not is_stand_in(reservation)
        and (reason := profile.reservation_problem(source, reservation))
    ):
        p.add(("reservation",), reason)
    elif "project" in raw and reservation.startswith("projects/"):
        p.add(
            ("reservation",),
            "names its project (projects/<project>/reservations/...) and {{project}} names one too: give the "
            "project once",
        )
    if "project" in raw and not profile.reservation_affinities:
        p.add(("project",), f"shared reservations of another project: {affinities} only")
    nodes = raw.get("nodes")
    if nodes is not None and not 1 <= nodes <= pool["max_nodes"]:
        p.add(
            ("nodes",),
            f"{nodes} is out of range; must be between 1 and {{{{max_nodes}}}} ({pool['max_nodes']})",
        )


def _run_hours(profile: CloudProfile, raw: Mapping[str, Any], p: Problems) -> int | None:
    """``max_run_hours``, checked; the cloud's maximum for sources it reclaims when none is given."""
    source, hours = raw["source"], raw.get("max_run_hours")
    if hours is None:
        return profile.max_run_hours if source in profile.max_run_sources else None
    if source not in profile.max_run_sources:
        where = " and ".join(
            f"{q.display} {'/'.join(sorted(q.max_run_sources))}"
            for q in clouds_where(lambda q: q.max_run_sources)
        )
        p.add(("max_run_hours",), f"only for sources the cloud reclaims after a run limit ({where})")
    elif not 1 <= hours <= profile.max_run_hours:
        p.add(("max_run_hours",), f"{hours} is out of range; must be between 1 and {profile.max_run_hours}")
    return int(hours)


def _entry(
    cloud: str, pool: Mapping[str, Any], raw: Mapping[str, Any], chain: bool, p: Problems
) -> CapacitySource:
    profile = profile_of(cloud)
    source = raw["source"]
    known = _check_source(profile, source, chain, p)
    if source in ("reservation", "capacity-block"):
        _check_reservation(profile, pool, raw, known, p)
    else:
        for key in ("reservation", "affinity", "project", "nodes"):
            if key in raw:
                p.add((key,), f"only with source reservation or capacity-block (source is '{source}')")
    return CapacitySource(
        source=source,
        reservation=raw.get("reservation"),
        affinity=raw.get("affinity") or "specific",
        project=raw.get("project"),
        nodes=raw.get("nodes"),
        max_run_hours=_run_hours(profile, raw, p),
    )


def resolve_capacity(cloud: str, pool: Mapping[str, Any], p: Problems) -> tuple[CapacitySource, ...]:
    """The pool's sources in order (problems filed under ``capacity[i]``)."""
    raw = pool.get("capacity")
    if raw is None:
        return tuple(_entry(cloud, pool, e, False, Problems()) for e in _legacy(pool))
    given = [k for k in LEGACY_KEYS if k in pool]
    if given:
        older = ", ".join(f"{{{{{k}}}}}" for k in given)
        p.add(("capacity",), f"give {{{{capacity}}}} or its older spelling ({older}), not both")
    if not raw:
        p.add(("capacity",), "list at least one source (on-demand, spot, reservation, ...)")
        return ()
    chain = len(raw) > 1
    out = tuple(_entry(cloud, pool, e, chain, p.at("capacity", i)) for i, e in enumerate(raw))
    seen: set[tuple[str, str | None, str]] = set()
    for i, s in enumerate(out):
        key = (s.source, s.reservation, s.affinity)
        if key in seen:
            p.add(("capacity", i), f"'{s.source}' is listed twice")
        seen.add(key)
    _check_pool(pool, out, p)
    return out


def _check_pool(pool: Mapping[str, Any], sources: tuple[CapacitySource, ...], p: Problems) -> None:
    """What the sources ask of the rest of the pool."""
    held = [s.nodes for s in sources if s.reserved and s.nodes is not None]
    reserved = sum(held)
    if len(held) > 1 and all(n <= pool["max_nodes"] for n in held) and reserved > pool["max_nodes"]:
        p.add(
            ("capacity",),
            f"the reservations hold {reserved} nodes, more than {{{{max_nodes}}}} {pool['max_nodes']}: "
            "Kueue's quota would count nodes the pool never gets",
        )
    names = {s.source for s in sources}
    # In a chain, queued-provisioning is refused at its entry (no cloud's chain_sources has it).
    if "queued-provisioning" in names:
        for key in ("min_nodes", "initial_nodes"):
            if pool.get(key, 0):
                p.add((key,), "queued-provisioning pools start empty and grow per job; must be 0")
    elif "flex-start" in names and len(sources) == 1 and pool.get("min_nodes", 0):
        p.add(("min_nodes",), "flex-start nodes are obtained on demand and reclaimed; must be 0")
