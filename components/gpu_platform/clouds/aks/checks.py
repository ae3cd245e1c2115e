"""Checks of AKS components' own arguments, beside the pool checks every path runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_platform.args.cluster import DEFAULT_AKS_OS_SKU
from gpu_platform.args.validate import check_arguments
from gpu_platform.cloud_facts.aks.autoprovisioning import nap_pool_problems
from gpu_platform.cloud_facts.aks.profile import (
    CAPACITY_RESERVATION_GROUP_ID,
    PROFILE,
    agent_pool_name_problem,
)
from gpu_platform.clouds.aks.args import (
    AksClusterArgs,
    AksGpuNodePoolArgs,
    AksNapGpuNodePoolArgs,
    NetworkOperatorArgs,
)
from gpu_platform.driver import DriverPlan
from gpu_platform.errors import Problems
from gpu_platform.mirror import Mirror
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.autoprovisioning import resolve_auto_pool
from gpu_platform.resolve.cluster import SystemPool, resolve_cluster_args
from gpu_platform.resolve.cluster_pools import fabric_addon_args
from gpu_platform.resolve.disruption import Disruption, resolve_disruption
from gpu_platform.resolve.node_pool_args import resolve_node_pool_args


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
    for i, group in enumerate(checked.get("capacity_reservation_group_ids", ()) if checked else ()):
        if not CAPACITY_RESERVATION_GROUP_ID.match(group):
            p.add(
                ("capacity_reservation_group_ids", i),
                f"{group!r} is not a capacity reservation group ID like /subscriptions/<id>/resourceGroups/<rg>/"
                "providers/Microsoft.Compute/capacityReservationGroups/<name>",
            )
    p.raise_for_arguments()
    assert checked is not None and system is not None
    return system, checked


def node_pool_args(args: AksGpuNodePoolArgs) -> tuple[GpuPool, DriverPlan, Mapping[str, Any]]:
    """The node pool component's arguments checked and resolved; ``ArgumentsError`` lists every problem."""
    return resolve_node_pool_args("aks", AksGpuNodePoolArgs, args, agent_pool_checks)


def nap_pool_args(
    args: AksNapGpuNodePoolArgs,
) -> tuple[GpuPool, DriverPlan, Mapping[str, Any], Disruption]:
    """``AksNapGpuNodePool``'s arguments checked and resolved; ``ArgumentsError`` lists every problem."""
    p = Problems()
    checked = check_arguments(AksNapGpuNodePoolArgs, args, p)
    resolved = resolve_auto_pool("aks", checked, p, nap_pool_problems) if checked is not None else None
    disruption = resolve_disruption(checked.get("disruption", {}) if checked else {}, p.at("disruption"))
    if resolved is not None and (reason := PROFILE.auto_pool_driver_problem(resolved[1])):
        p.add(("driver", "owner"), reason)
    p.raise_for_arguments()
    assert checked is not None and resolved is not None
    return *resolved, dict(checked), disruption


def network_operator_args(
    args: NetworkOperatorArgs,
) -> tuple[list[GpuPool], Mapping[str, Any] | None, Mirror | None]:
    """``NetworkOperator``'s arguments checked: at least one pool with ``infiniband``."""
    return fabric_addon_args(
        "aks",
        NetworkOperatorArgs,
        args,
        lambda pool: pool.infiniband,
        "no pool sets infiniband: true; the operator would serve no node",
    )
