"""An EKS cluster's plan: the VPC split into per-zone private and public subnets that never move."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpu_platform.args.cluster import DEFAULT_VPC_CIDR
from gpu_platform.plans.clusters import ClusterPlan
from gpu_platform.resolve.cluster import SystemPool


@dataclass(frozen=True)
class EksClusterPlan(ClusterPlan):
    vpc_cidr: str = DEFAULT_VPC_CIDR
    zones: tuple[str, ...] = ()
    """Empty: the region's first available zones, read at deploy time."""
    region: str | None = None


PUBLIC_SLOTS = (-3, -2, -1, -4, -5, -6)
"""Public /22 of the zone at each position, counted from the top of the VPC: the first three are where
0.1.0 put them, further zones go below, so appending a zone never moves an existing subnet."""


def zone_cidrs(cidr: str, position: int) -> tuple[str, str]:
    """``(private, public)`` CIDR of the zone at ``position`` in the VPC's zone list: a private /19 counted
    from the bottom of the /16, a public /22 from the top; never overlapping, stable when zones are appended."""
    net = ipaddress.ip_network(cidr)
    private = list(net.subnets(prefixlen_diff=3))[position]
    public = list(net.subnets(prefixlen_diff=6))[PUBLIC_SLOTS[position]]
    return str(private), str(public)


def split_vpc(cidr: str, zones: int) -> tuple[list[str], list[str]]:
    """Private and public CIDRs of the first ``zones`` zones (see ``zone_cidrs``)."""
    pairs = [zone_cidrs(cidr, i) for i in range(zones)]
    return [p for p, _ in pairs], [q for _, q in pairs]


def eks_cluster_plan(name: str, system: SystemPool, settings: Mapping[str, Any]) -> EksClusterPlan:
    """The plan from checked settings (``EksClusterArgs`` keys)."""
    return EksClusterPlan(
        name=name,
        system_pool=system,
        inputs=dict(settings),
        vpc_cidr=settings.get("vpc_cidr", DEFAULT_VPC_CIDR),
        zones=tuple(settings.get("availability_zones", ())),
        region=settings.get("region"),
    )
