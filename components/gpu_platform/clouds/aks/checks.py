"""Checks of AKS components' own arguments, beside the pool checks every path runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_platform.args.cluster import DEFAULT_AKS_OS_SKU, AksClusterArgs
from gpu_platform.args.nodepools import AksGpuNodePoolArgs
from gpu_platform.clouds.aks.profile import PROFILE, agent_pool_name_problem
from gpu_platform.driver import DriverPlan
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cluster import SystemPool, resolve_cluster_args
from gpu_platform.resolve.nodepool import resolve_node_pool_args


def agent_pool_checks(args: Mapping[str, Any], pool: GpuPool | None, p: Problems) -> None:
    """An explicit ``agent_pool_name`` must be a valid AKS agent pool name."""
    explicit = args.get("agent_pool_name")
    if explicit is not None and (reason := agent_pool_name_problem(explicit)):
        p.add(("agent_pool_name",), reason)


def cluster_args(args: AksClusterArgs) -> tuple[SystemPool, dict[str, Any]]:
    """``AksCluster``'s arguments checked: its system pool and settings; ``ArgumentsError`` lists every problem."""
    p, checked, system = resolve_cluster_args("aks", AksClusterArgs, args, "vnet_cidr")
    os_sku = checked.get("os_sku", DEFAULT_AKS_OS_SKU) if checked else DEFAULT_AKS_OS_SKU
    if os_sku not in PROFILE.images:
        p.add(("os_sku",), f"{os_sku!r} is not valid; valid: {', '.join(PROFILE.images)}")
    p.raise_for_arguments()
    assert checked is not None and system is not None
    return system, checked


def node_pool_args(args: AksGpuNodePoolArgs) -> tuple[GpuPool, DriverPlan, Mapping[str, Any]]:
    """The node pool component's arguments checked and resolved; ``ArgumentsError`` lists every problem."""
    return resolve_node_pool_args("aks", AksGpuNodePoolArgs, args, agent_pool_checks)
