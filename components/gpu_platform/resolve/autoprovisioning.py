"""Auto-provisioned GPU pools: a component's ``pool`` argument resolved as a managed pool's, then refused where
the auto-provisioner cannot express it.

A pool keeps the meaning it has as a managed pool (``resolve.pools``); what each auto-provisioner cannot
express is the cloud's fact (``cloud_facts.autoprovisioning`` for every auto-provisioner and Karpenter,
``cloud_facts/<cloud>/autoprovisioning.py`` for Karpenter on EKS, AKS NAP and GKE ComputeClasses: the profile's
``provisioner_problems``), refused at the key that asks for it, so nothing is silently dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gpu_platform.cloud_facts import profile_of
from gpu_platform.driver import DriverPlan
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.dra_pools import dra_pool_problems
from gpu_platform.resolve.driver import DriverLocations, resolve_driver
from gpu_platform.resolve.pools import check_cuda_default, resolve_pool_list
from gpu_platform.versions import GPU_OPERATOR

PoolCheck = Callable[[GpuPool, Problems], None]


def resolve_auto_pool(
    cloud: str, args: Mapping[str, Any], p: Problems, checks: PoolCheck
) -> tuple[GpuPool, DriverPlan] | None:
    """The ``pool`` argument resolved like a managed pool's, the auto-provisioner's own ``checks``, and the
    driver plan (EKS and AKS; GKE ComputeClasses decide their driver themselves)."""
    check_cuda_default(args.get("cuda_version"), p.at("cuda_version"))
    resolved = resolve_pool_list(cloud, [args["pool"]], args.get("cuda_version"), lambda _: p.at("pool"))
    if not resolved.pools:
        return None
    pool = resolved.pools[0]
    here = p.at("pool")
    profile_of(cloud).auto_pool_problems(pool, here)
    if pool.compact_placement:
        here.add(
            ("compact_placement",),
            "an auto-provisioner launches nodes one by one, outside any placement group or policy: put "
            "compactly placed pools on a managed node pool",
        )
    dra_pool_problems(pool, here)
    checks(pool, here)
    if p:
        return None
    where = DriverLocations(p.at("driver"), lambda _: here, here, p.at("cuda_version"))
    driver = resolve_driver(
        cloud, [pool], args.get("driver", {}), args.get("operator_version", GPU_OPERATOR.version), where
    )
    return (pool, driver) if driver is not None else None


def __getattr__(name: str) -> object:
    """Each auto-provisioner's checks moved to its cloud's facts (``gpu_platform._moved``)."""
    from gpu_platform._moved import moved_attribute

    return moved_attribute(__name__, name)
