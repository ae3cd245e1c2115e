"""Cluster plans per cloud: network layout, system pool and settings, checked before anything exists."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.args.cluster import (
    DEFAULT_AKS_OS_SKU,
    DEFAULT_RELEASE_CHANNEL,
    DEFAULT_VPC_CIDR,
    AksClusterArgs,
    EksClusterArgs,
    GkeClusterArgs,
)
from gpu_platform.args.validate import check_arguments
from gpu_platform.driver import AKS_IMAGES
from gpu_platform.errors import Problems
from gpu_platform.plans.names import digest
from gpu_platform.resolve.cluster import SystemPool, network_problem, region_of, system_pool_problems

EKS_MAX_DEFAULT_ZONES = 3
"""Zones used when none are given."""


@dataclass(frozen=True)
class ClusterPlan:
    name: str
    system_pool: SystemPool
    inputs: Mapping[str, Any] = field(default_factory=dict)
    """Pass-through arguments (project, versions, CIDR allow-lists), possibly Outputs."""

    @property
    def protect(self) -> bool:
        """Network, control plane and system pool are protected from deletion unless told otherwise."""
        return bool(self.inputs.get("protect", True))

    def system_pool_name(self, *fixed: Any) -> str:
        """``system-<digest>``: a change the cloud cannot make in place gets a new name, so the new system
        pool is created before the old one is deleted."""
        return f"system-{digest(self.system_pool.machine_type, *fixed)}"


def _common(
    cloud: str, tp: Any, args: Any, cidr_key: str
) -> tuple[Problems, dict[str, Any] | None, SystemPool | None]:
    p = Problems()
    checked = check_arguments(tp, args, p)
    if checked is None:
        p.raise_for_arguments()
    assert checked is not None
    system = system_pool_problems(cloud, checked.get("system_pool", {}), p.at("system_pool"))
    if reason := network_problem(checked.get(cidr_key, DEFAULT_VPC_CIDR), cloud):
        p.add((cidr_key,), reason)
    return p, checked, system


# --- GKE ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GkeClusterPlan(ClusterPlan):
    location: str = ""
    region: str = ""
    release_channel: str = DEFAULT_RELEASE_CHANNEL
    nodes_cidr: str = ""
    services_cidr: str = ""
    pods_cidr: str = ""
    deletion_protection: bool = True


def split_network(cidr: str) -> tuple[str, str, str]:
    """Nodes /20, services /20 and pods (upper half) inside one VPC CIDR, never overlapping."""
    net = ipaddress.ip_network(cidr)
    small = list(net.subnets(new_prefix=20))
    pods = list(net.subnets(prefixlen_diff=1))[1]
    return str(small[0]), str(small[1]), str(pods)


def gke_cluster_plan(name: str, system: SystemPool, settings: Mapping[str, Any]) -> GkeClusterPlan:
    """The plan from checked settings (``GkeClusterArgs`` keys)."""
    nodes, services, pods = split_network(settings.get("network_cidr", DEFAULT_VPC_CIDR))
    return GkeClusterPlan(
        name=settings.get("cluster_name", name),
        system_pool=system,
        inputs=dict(settings),
        location=settings["location"],
        region=region_of(settings["location"]),
        release_channel=settings.get("release_channel", DEFAULT_RELEASE_CHANNEL),
        nodes_cidr=nodes,
        services_cidr=services,
        pods_cidr=pods,
        deletion_protection=settings.get("deletion_protection", settings.get("protect", True)),
    )


def plan_gke_cluster(name: str, args: GkeClusterArgs) -> GkeClusterPlan:
    p, checked, system = _common("gke", GkeClusterArgs, args, "network_cidr")
    p.raise_for_arguments()
    assert checked is not None and system is not None
    return gke_cluster_plan(name, system, checked)


# --- EKS ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EksClusterPlan(ClusterPlan):
    vpc_cidr: str = DEFAULT_VPC_CIDR
    zones: tuple[str, ...] = ()
    """Empty: the region's first available zones, read at deploy time."""
    region: str | None = None


EKS_MAX_ZONES = 6
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


def plan_eks_cluster(name: str, args: EksClusterArgs) -> EksClusterPlan:
    p, checked, system = _common("eks", EksClusterArgs, args, "vpc_cidr")
    zones = tuple(checked.get("availability_zones", ())) if checked else ()
    if zones and not 2 <= len(zones) <= EKS_MAX_ZONES:
        p.add(("availability_zones",), f"EKS needs two to {EKS_MAX_ZONES} zones here (got {len(zones)})")
    elif len(set(zones)) != len(zones):
        p.add(("availability_zones",), "a zone is listed twice")
    p.raise_for_arguments()
    assert checked is not None and system is not None
    return eks_cluster_plan(name, system, checked)


# --- AKS ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AksClusterPlan(ClusterPlan):
    vnet_cidr: str = DEFAULT_VPC_CIDR
    nodes_cidr: str = ""
    os_sku: str = DEFAULT_AKS_OS_SKU


def plan_aks_cluster(name: str, args: AksClusterArgs) -> AksClusterPlan:
    p, checked, system = _common("aks", AksClusterArgs, args, "vnet_cidr")
    os_sku = checked.get("os_sku", DEFAULT_AKS_OS_SKU) if checked else DEFAULT_AKS_OS_SKU
    if os_sku not in AKS_IMAGES:
        p.add(("os_sku",), f"{os_sku!r} is not valid; valid: {', '.join(AKS_IMAGES)}")
    p.raise_for_arguments()
    assert checked is not None and system is not None
    return aks_cluster_plan(name, system, checked)


def aks_cluster_plan(name: str, system: SystemPool, settings: Mapping[str, Any]) -> AksClusterPlan:
    """The plan from checked settings (``AksClusterArgs`` keys)."""
    cidr = settings.get("vnet_cidr", DEFAULT_VPC_CIDR)
    return AksClusterPlan(
        name=name,
        system_pool=system,
        inputs=dict(settings),
        vnet_cidr=cidr,
        nodes_cidr=str(next(ipaddress.ip_network(cidr).subnets(new_prefix=20))),
        os_sku=settings.get("os_sku", DEFAULT_AKS_OS_SKU),
    )
