"""A cluster's GPU pools resolved with every check, once for stack files and components: each pool's own
(``resolve.pools``), what its cloud can and cannot do with it and across the pools (the profile's
``pool_problems`` and ``cross_pool_problems``, DRA's limits), and, for pools created here, scaling from zero.
A node pool component's one pool gets the same per-pool checks (``resolve.node_pool_args``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gpu_platform.args.validate import check_arguments
from gpu_platform.cloud_facts import profile_of
from gpu_platform.cloud_facts.profile import PoolProblems
from gpu_platform.errors import Problems
from gpu_platform.mirror import Mirror
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.dra_pools import dra_pool_problems
from gpu_platform.resolve.mirror import resolve_mirror
from gpu_platform.resolve.pools import ResolvedPools, check_cuda_default, resolve_pool_list


def scale_from_zero_problem(pool: GpuPool) -> str | None:
    """Why the cloud's autoscaler cannot grow this pool from zero nodes, or ``None`` when it can.

    An empty pool has no node to read resources from, so the autoscaler builds a template: GKE's and AKS's
    know the machine's whole GPUs (and on GKE its own sharing and partitions), nothing the GPU Operator
    adds later. EKS has no such gap: ``node_template_tags`` tell the autoscaler everything. The matrix is
    in docs/autoscaling.md.
    """
    profile = profile_of(pool.cloud)
    if pool.dra and profile.creates_nodes:
        # cluster-autoscaler 1.35: a node group's DRA devices come from a running node's ResourceSlices
        # (simulator/node_info_utils.go); the AWS, GCE and Azure templates of an empty group carry none.
        return "the cluster autoscaler learns a pool's DRA devices from a running node's ResourceSlices; an empty pool has none, so claim-only pods never grow it"
    return profile.scale_from_zero_problem(pool)


def scaling_problems(pool: GpuPool, p: Problems) -> None:
    """Checks for a pool that is created here (not for components that only describe pools)."""
    if pool.min_nodes == 0 and (why := scale_from_zero_problem(pool)):
        fix = profile_of(pool.cloud).scale_from_zero_fix
        p.add(("min_nodes",), f"0 would never scale up: {why}. Use {fix}")


def cloud_pool_problems(pool: GpuPool, p: Problems) -> None:
    """The cloud's own limits on one pool (``p`` is the pool's location)."""
    profile_of(pool.cloud).pool_problems(pool, p)
    dra_pool_problems(pool, p)  # DRA: what a DRA pool cannot be, on every path


def resolve_cluster_pools(
    cloud: str,
    raw: Sequence[object],
    cuda_default: str | None,
    at: PoolProblems,
    camel: bool = False,
    created: bool = False,
) -> ResolvedPools:
    """A cluster's pools resolved with every pool, cloud and cross-pool check (stack file and components);
    ``created``: the caller creates these pools, so how they scale is checked too."""
    resolved = resolve_pool_list(cloud, raw, cuda_default, at, camel)
    profile_of(cloud).cross_pool_problems(resolved.pools, at)
    for pool in list(resolved.pools):
        here = at(pool.index)
        before = here.count()
        cloud_pool_problems(pool, here)
        if created and here.count() == before:
            scaling_problems(pool, here)
        if here.count() != before:
            # A pool the cloud cannot build is broken like any other: nothing more is said about it.
            resolved.pools.remove(pool)
            resolved.broken.add(pool.name)
    return resolved


def resolve_pools(
    cloud: str, pools: Sequence[Any], path: str = "pools", cuda_version: str | None = None
) -> list[GpuPool]:
    """Pools given as plain dicts (snake_case or camelCase keys) resolved for one cloud, with the cloud's
    own limits; raises ``ArgumentsError`` naming ``<path>[i].<field>`` for every problem."""
    p = Problems()
    check_cuda_default(cuda_version, p.at("cuda_version"))
    resolved = resolve_cluster_pools(cloud, pools, cuda_version, lambda i: p.at(path, i))
    p.raise_for_arguments()
    return resolved.pools


def fabric_addon_args(
    cloud: str, args_type: Any, args: Any, serves: Callable[[GpuPool], bool], serves_none: str
) -> tuple[list[GpuPool], Mapping[str, Any] | None, Mirror | None]:
    """A network add-on's ``pools``, ``values`` and ``mirror`` checked: the pools resolved like a cluster's, and
    at least one the add-on ``serves`` (else ``serves_none`` at ``pools``); ``ArgumentsError`` lists every
    problem."""
    p = Problems()
    checked = check_arguments(args_type, args, p)
    pools: list[GpuPool] = []
    mirror = None
    if checked is not None:
        pools = resolve_cluster_pools(cloud, checked["pools"], None, lambda i: p.at("pools", i)).pools
        if not p.count() and not any(serves(pool) for pool in pools):
            p.add(("pools",), serves_none)
        mirror = resolve_mirror(checked.get("mirror"), p.at("mirror"))
    p.raise_for_arguments()
    assert checked is not None
    return pools, checked.get("values"), mirror
