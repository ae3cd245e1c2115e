"""A pool's placement settings: Kueue topology-aware scheduling and compact placement, checked once.

- ``topology``: only on machine types whose nodes the cloud labels with their network position
  (``MachineType.topology``); a Topology whose labels no node has leaves Kueue without a domain to place a
  pod set in, so such a job would never be admitted.
- ``gpudirect``: only on machine types with GPUDirect NICs (``MachineType.gpudirect``, GKE A3/A4).
- ``compact_placement``: GKE ``COMPACT`` placement policy or EKS cluster placement group. Both keep the nodes in
  one zone, so the pool names exactly one. (A GKE reservation already places its VMs in its block: the GKE
  profile refuses the two together.) Machines of a rack-scale NVLink domain (A4X) are always placed in one, so
  the setting is refused there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_platform.catalog.gpudirect import GpuDirect
from gpu_platform.catalog.machines import MachineType
from gpu_platform.catalog.topology import NetworkTopology
from gpu_platform.cloud_facts import clouds_where, profile_of
from gpu_platform.cloud_facts.profile import CloudProfile
from gpu_platform.errors import Problems


def _machines_with_topology(cloud: str) -> list[str]:
    return [name for name, m in profile_of(cloud).machines.items() if m.topology is not None]


def pool_topology(
    cloud: str, pool: Mapping[str, Any], machine: MachineType | None, p: Problems
) -> NetworkTopology | None:
    """The machine's network topology when the pool asks for TAS; a problem when the machine has none."""
    if not pool.get("topology"):
        return None
    profile = profile_of(cloud)
    if machine is None:
        if not profile.machines:
            p.add(
                ("topology",),
                f"needs a catalog machine type: the library cannot tell which topology labels "
                f"{profile.display} nodes carry",
            )
        return None
    if machine.topology is None:
        known = _machines_with_topology(cloud)
        which = ", ".join(known) if known else "none on this cloud"
        p.add(
            ("topology",),
            f"{machine.name} nodes carry no network topology labels on {profile.display}; machine types "
            f"that do: {which}",
        )
        return None
    return machine.topology


def pool_compact_placement(
    cloud: str, pool: Mapping[str, Any], machine: MachineType | None, p: Problems
) -> bool:
    if not pool.get("compact_placement"):
        return False
    profile = profile_of(cloud)
    if profile.compact_placement is None:
        where = " and ".join(q.display for q in clouds_where(lambda q: q.compact_placement))
        p.add(("compact_placement",), f"{where} only")
        return False
    if machine is not None and machine.nvlink_domain is not None:
        p.add(
            ("compact_placement",),
            f"{machine.name} pools are always placed in one {machine.nvlink_domain.name} domain (a workload policy "
            "named in a COMPACT placement policy): remove compact_placement",
        )
        return False
    series = profile.compact_placement_series
    if machine is not None and series and not machine.name.startswith(series):
        p.add(
            ("compact_placement",),
            f"{profile.display} documents compact placement for the {', '.join(s.rstrip('-') for s in series)} "
            f"GPU series, not {machine.name}",
        )
    zones = pool.get("zones", ())
    if len(zones) != 1:
        p.add(
            ("zones",),
            f"{profile.compact_placement} keeps the nodes in one zone: give exactly one zone "
            f"(got {len(zones)})",
        )
    return True


def pool_infiniband(cloud: str, pool: Mapping[str, Any], machine: MachineType | None, p: Problems) -> bool:
    if not pool.get("infiniband"):
        return False
    if machine is None or not machine.infiniband:
        known = [name for name, m in profile_of(cloud).machines.items() if m.infiniband]
        which = ", ".join(known) if known else f"none on {profile_of(cloud).display}"
        p.add(("infiniband",), f"needs a machine type with InfiniBand HCAs: {which}")
        return False
    return True


def pool_gpudirect(
    cloud: str, pool: Mapping[str, Any], machine: MachineType | None, p: Problems
) -> GpuDirect | None:
    """The machine's GPUDirect path when the pool asks for it; a problem on machines (or clouds) without one."""
    if not pool.get("gpudirect"):
        return None
    profile = profile_of(cloud)
    known = {name: m.gpudirect for name, m in profile.machines.items() if m.gpudirect is not None}
    if not known:
        where = " and ".join(q.display for q in clouds_where(_has_gpudirect))
        p.add(
            ("gpudirect",),
            f"{where} only (the GPUDirect-TCPX/TCPXO/RDMA NICs of A3 and A4 machines); between nodes "
            f"{_other_fabrics()}",
        )
        return None
    if machine is None or machine.gpudirect is None:
        which = ", ".join(f"{name} ({g.display})" for name, g in known.items())
        p.add(("gpudirect",), f"needs a machine type with GPUDirect NICs: {which}")
        return None
    return machine.gpudirect


def _has_infiniband(profile: CloudProfile) -> bool:
    return any(m.infiniband for m in profile.machines.values())


def _other_fabrics() -> str:
    """Where fast networking between nodes is another pool setting than ``gpudirect``: ``efa``, ``infiniband``."""
    fabrics = [
        (q.display, key)
        for key, has in (("efa", lambda q: q.efa), ("infiniband", _has_infiniband))
        for q in clouds_where(has)
    ]
    return ", ".join(
        f"{display} pools {'get fast networking ' if i == 0 else ''}with {key}"
        for i, (display, key) in enumerate(fabrics)
    )


def _has_gpudirect(profile: CloudProfile) -> bool:
    return any(m.gpudirect is not None for m in profile.machines.values())
