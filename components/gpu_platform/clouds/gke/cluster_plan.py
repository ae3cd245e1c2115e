"""A GKE cluster's plan: location, release channel and the network split into nodes, services and pods."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpu_platform.args.cluster import DEFAULT_RELEASE_CHANNEL, DEFAULT_VPC_CIDR
from gpu_platform.cloud_facts.gke.profile import region_of
from gpu_platform.plans.clusters import ClusterPlan
from gpu_platform.resolve.cluster import SystemPool


@dataclass(frozen=True)
class GkeClusterPlan(ClusterPlan):
    location: str = ""
    region: str = ""
    release_channel: str = DEFAULT_RELEASE_CHANNEL
    nodes_cidr: str = ""
    services_cidr: str = ""
    pods_cidr: str = ""
    deletion_protection: bool = True
    multi_networking: bool = False
    """``enable_multi_networking``: nodes may have extra NICs (GPUDirect pools); needs Dataplane V2."""
    proxy_subnet_cidr: str | None = None
    """The proxy-only subnet (``REGIONAL_MANAGED_PROXY``) created with the VPC for the managed inference Gateway's
    regional load balancers (``cloud_facts.gke.serving``); ``None``: none is created."""
    gateway_api: bool = False
    """GKE's Gateway API on (``gateway_api_config`` ``CHANNEL_STANDARD``: the Gateway API CRDs and GKE's
    GatewayClasses), for the managed inference Gateway; off, GKE Standard clusters serve neither."""


def split_network(cidr: str) -> tuple[str, str, str]:
    """Nodes /20, services /20 and pods (upper half) inside one VPC CIDR, never overlapping."""
    net = ipaddress.ip_network(cidr)
    small = list(net.subnets(new_prefix=20))
    pods = list(net.subnets(prefixlen_diff=1))[1]
    return str(small[0]), str(small[1]), str(pods)


def gke_cluster_plan(
    name: str,
    system: SystemPool,
    settings: Mapping[str, Any],
    proxy_subnet_cidr: str | None = None,
    gateway_api: bool = False,
) -> GkeClusterPlan:
    """The plan from checked settings (``GkeClusterArgs`` keys); ``proxy_subnet_cidr``: a proxy-only subnet to
    create in the VPC, ``gateway_api``: GKE's Gateway API on (both for the stack's serving section on GKE's
    managed inference Gateway)."""
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
        multi_networking=settings.get("enable_multi_networking", False),
        proxy_subnet_cidr=proxy_subnet_cidr,
        gateway_api=gateway_api,
    )
