"""Checks of EKS components' own arguments, beside the pool checks every path runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_platform.args.cluster import EksClusterArgs
from gpu_platform.args.nodepools import EksGpuNodePoolArgs
from gpu_platform.clouds.eks.profile import MAX_ZONES, ROLE_ARN, subnet_id_problems
from gpu_platform.driver import DriverPlan
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cluster import SystemPool, resolve_cluster_args
from gpu_platform.resolve.nodepool import resolve_node_pool_args


def node_group_checks(args: Mapping[str, Any], pool: GpuPool | None, p: Problems) -> None:
    """EFA interfaces are attached with the cluster's security group, which a node group cannot guess."""
    if pool is not None and pool.efa and args.get("security_group_ids") is None:
        p.add(("security_group_ids",), "EFA interfaces need security groups (the cluster security group)")
    subnet_id_problems(args.get("subnet_ids"), p.at("subnet_ids"))
    role = args.get("node_role_arn")
    if isinstance(role, str) and not ROLE_ARN.match(role):
        p.add(
            ("node_role_arn",), f"'{role}' is not an IAM role ARN like arn:aws:iam::123456789012:role/nodes"
        )


def cluster_args(args: EksClusterArgs) -> tuple[SystemPool, dict[str, Any]]:
    """``EksCluster``'s arguments checked: its system pool and settings; ``ArgumentsError`` lists every problem."""
    p, checked, system = resolve_cluster_args("eks", EksClusterArgs, args, "vpc_cidr")
    zones = tuple(checked.get("availability_zones", ())) if checked else ()
    if zones and not 2 <= len(zones) <= MAX_ZONES:
        p.add(("availability_zones",), f"EKS needs two to {MAX_ZONES} zones here (got {len(zones)})")
    elif len(set(zones)) != len(zones):
        p.add(("availability_zones",), "a zone is listed twice")
    p.raise_for_arguments()
    assert checked is not None and system is not None
    return system, checked


def node_pool_args(args: EksGpuNodePoolArgs) -> tuple[GpuPool, DriverPlan, Mapping[str, Any]]:
    """The node pool component's arguments checked and resolved; ``ArgumentsError`` lists every problem."""
    return resolve_node_pool_args("eks", EksGpuNodePoolArgs, args, node_group_checks)
