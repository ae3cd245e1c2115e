"""Zone stockouts: a pool placed where its GPU machine is not offered, checked against what the cloud publishes.

A pool pinned to a zone without its GPU is refused, naming the zone and the zones of its region that have the
GPU. A pool without zones on a regional GKE cluster would get the cluster's default node locations, which GKE
picks without regard to the GPU; where the GPU is offered in only some of the region's zones, the pool spans
exactly those. Clouds that publish no zone table (``CloudProfile.offered_zones`` is ``None``) are not checked:
the cloud itself refuses the pool at ``pulumi up``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from gpu_platform.catalog.machines import MachineType
from gpu_platform.cloud_facts import profile_of
from gpu_platform.cloud_facts.profile import CloudProfile, PoolProblems
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool


def _machine(machine: MachineType) -> str:
    return f"{machine.name} ({machine.gpu.display})"


def _where_else(profile: CloudProfile, machine: MachineType, region: str, offered: Sequence[str]) -> str:
    if offered:
        return f"zones of {region} that have it: {', '.join(offered)}"
    regions = profile.offering_regions(machine)
    return f"no zone of {region} has it; regions that do: {', '.join(regions) or 'none listed'}"


def offered_zone_problems(pool: GpuPool, p: Problems, region: str | None = None) -> None:
    """Each of the pool's zones that does not offer its machine's GPU (``p`` is the pool's location).

    ``region``: only zones of it are checked (the others are refused as outside the cluster's region already);
    ``None`` checks every zone whose region the zone name says (a node pool component's arguments)."""
    profile = profile_of(pool.cloud)
    if pool.machine is None:
        return
    for j, zone in enumerate(pool.zones):
        where = profile.zone_region(zone)
        if where is None or (region is not None and where != region):
            continue
        offered = profile.offered_zones(pool.machine, where)
        if offered is None or zone in offered:
            continue
        p.add(
            ("zones", j),
            f"'{zone}' does not offer {_machine(pool.machine)}; "
            f"{_where_else(profile, pool.machine, where, offered)} ({profile.offer_source()})",
        )


def region_offer_problems(cloud: str, location: str, pools: Sequence[GpuPool], at: PoolProblems) -> None:
    """Pools without zones placed where their GPU is not offered: a regional cluster's region with no zone that
    has it, or a zonal cluster's zone (``location`` is the cluster's region or zone)."""
    profile = profile_of(cloud)
    zonal = profile.zone_region(location)
    region = zonal or location
    for pool in pools:
        if pool.zones or pool.machine is None:
            continue
        offered = profile.offered_zones(pool.machine, region)
        if offered is None:
            continue
        if zonal is not None and location not in offered:
            at(pool.index).add(
                ("zones",),
                f"not given, so the pool runs in the cluster's zone {location} ({{{{cluster.region}}}}), which does "
                f"not offer {_machine(pool.machine)}; give zones: "
                f"{_where_else(profile, pool.machine, region, offered)} ({profile.offer_source()})",
            )
        elif zonal is None and not offered:
            at(pool.index).add(
                ("machine_type",),
                f"{_machine(pool.machine)} is offered in no zone of {{{{cluster.region}}}} {region}; regions that "
                f"have it: {', '.join(profile.offering_regions(pool.machine)) or 'none listed'} "
                f"({profile.offer_source()})",
            )


def spread_over_gpu_zones(cloud: str, location: str | None, pools: list[GpuPool]) -> None:
    """Pools without zones on a regional cluster, whose GPU is offered in only some of the region's zones, get
    exactly those zones (in place). Pools on reserved capacity keep the cluster's: a reservation is zonal and
    decides where its VMs run. GKE's initial node count is per zone either way (rounded up over named zones,
    repeated in each of the cluster's default zones), so spreading starts no more nodes than the default."""
    if location is None:
        return
    profile = profile_of(cloud)
    if profile.zone_region(location) is not None:
        return  # a zonal cluster: its pools run in its zone unless they name others
    every = profile.region_zones(location)
    for i, pool in enumerate(pools):
        if pool.zones or pool.machine is None or any(s.reserved for s in pool.sources):
            continue
        offered = profile.offered_zones(pool.machine, location)
        if not offered or every is None or set(offered) == set(every):
            continue
        pools[i] = dataclasses.replace(pool, zones=tuple(offered))
