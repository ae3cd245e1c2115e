"""One GPU node pool component's arguments, resolved: its pool and the driver plan, fully checked."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gpu_platform.args.validate import check_arguments
from gpu_platform.cloud_facts import profile_of
from gpu_platform.driver import DriverPlan
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cluster_pools import cloud_pool_problems, scaling_problems
from gpu_platform.resolve.driver import DriverLocations, resolve_driver
from gpu_platform.resolve.pools import check_cuda_default, resolve_pool_list
from gpu_platform.resolve.zones import offered_zone_problems
from gpu_platform.versions import GPU_OPERATOR


def resolve_node_pool(cloud: str, args: Mapping[str, Any], p: Problems) -> tuple[GpuPool, DriverPlan] | None:
    """The ``pool`` argument resolved and checked like a stack file's pool, and its driver plan."""
    check_cuda_default(args.get("cuda_version"), p.at("cuda_version"))
    resolved = resolve_pool_list(cloud, [args["pool"]], args.get("cuda_version"), lambda _: p.at("pool"))
    if not resolved.pools:
        return None
    pool = resolved.pools[0]
    before = p.count()
    if pool.chain:
        p.at("pool").add(
            ("capacity",),
            "a node pool has one capacity source; a fallback chain is an auto-provisioned pool "
            "(GkeGpuComputeClass, EksKarpenterGpuNodePool, AksNapGpuNodePool)",
        )
    cloud_pool_problems(pool, p.at("pool"))
    offered_zone_problems(pool, p.at("pool"))
    if p.count() == before:
        scaling_problems(pool, p.at("pool"))
    where = DriverLocations(p.at("driver"), lambda _: p.at("pool"), p.at("pool"), p.at("cuda_version"))
    driver = resolve_driver(
        cloud, [pool], args.get("driver", {}), args.get("operator_version", GPU_OPERATOR.version), where
    )
    return (pool, driver) if driver is not None else None


ArgumentChecks = Callable[[Mapping[str, Any], GpuPool | None, Problems], None]
"""A component's own checks on its checked arguments and resolved pool (``None`` when it did not resolve)."""


def resolve_node_pool_args(
    cloud: str, args_type: type, args: Mapping[str, Any], checks: ArgumentChecks | None = None
) -> tuple[GpuPool, DriverPlan, Mapping[str, Any]]:
    """A node pool component's arguments checked and resolved: its pool, driver plan and checked arguments.

    ``ArgumentsError`` lists every problem, so the component's constructor only creates resources."""
    p = Problems()
    checked = check_arguments(args_type, args, p)
    resolved = resolve_node_pool(cloud, checked, p) if checked is not None else None
    if resolved is not None:
        profile_of(cloud).node_group_problems(resolved[0], p.at("pool"))
    if checked is not None and checks is not None:
        checks(checked, resolved[0] if resolved else None, p)
    p.raise_for_arguments()
    assert checked is not None and resolved is not None
    return (*resolved, checked)
