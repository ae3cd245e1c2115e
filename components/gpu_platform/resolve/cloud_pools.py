"""What each cloud can and cannot do with a GPU pool, checked once for stack files and components."""

from __future__ import annotations

import re
from collections.abc import Sequence

from gpu_platform.catalog.mig import MigTable
from gpu_platform.driver import DEFAULT_IMAGE
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.dra import dra_pool_problems
from gpu_platform.resolve.pools import PoolProblems, ResolvedPools, resolve_pool_list

AGENT_POOL_NAME = re.compile(r"^[a-z][a-z0-9]{0,11}$")
"""AKS Linux agent pool names: lowercase letters and digits, at most 12 characters."""
AKS_MIG_COMPUTE_SLICES = (1, 2, 3, 4, 7)
"""AKS ``gpu_instance_profile`` values are ``MIG<compute slices>g``."""


def default_agent_pool_name(pool_name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", pool_name.lower())[:12]


def aks_mig_profiles(table: MigTable) -> dict[str, str]:
    """MIG profile -> ``gpu_instance_profile``: per compute size the profile with the fewest memory slices
    (on an A100 40GB: 1g.5gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb, as AKS documents)."""
    out: dict[str, str] = {}
    for compute in AKS_MIG_COMPUTE_SLICES:
        plain = [p for p in table.profiles.values() if p.compute_slices == compute and "+" not in p.name]
        if plain:
            out[min(plain, key=lambda p: p.memory_slices).name] = f"MIG{compute}g"
    return out


def gke_pool_problems(pool: GpuPool, p: Problems) -> None:
    if pool.machine is None or not pool.machine.accelerator_type:
        p.add(("machine_type",), "GKE needs a machine type with a guest accelerator")
    s = pool.sharing
    if s.managed_by == "cloud" and s.mode == "mig" and any("+" in prof for prof in s.mig_profiles):
        p.add(
            ("sharing", "mig", "layout"),
            "GKE gpu_partition_size takes plain <n>g.<m>gb profiles, not '+me' ones",
        )


def eks_pool_problems(pool: GpuPool, p: Problems) -> None:
    if pool.max_nodes < 1:
        p.add(("max_nodes",), "EKS node groups need {{max_nodes}} >= 1")


def agent_pool_name_problem(name: str) -> str | None:
    if not AGENT_POOL_NAME.match(name):
        return f"AKS pool name '{name}' must be 1-12 lowercase letters/digits, starting with a letter"
    return None


def aks_pool_problems(pool: GpuPool, p: Problems, check_name: bool = True) -> None:
    """AKS limits on a pool; ``check_name=False`` when the caller names the agent pool explicitly."""
    reason = agent_pool_name_problem(default_agent_pool_name(pool.name))
    if check_name and reason:
        p.add(("name",), reason)
    for i, zone in enumerate(pool.zones):
        if not zone.isdigit():
            p.add(("zones", i), f"AKS availability zones are numbers ('1', '2', '3'), not '{zone}'")
    s = pool.sharing
    if s.mode != "mig" or s.managed_by != "cloud":
        return
    assert pool.machine is not None and pool.mig_table is not None
    if not pool.machine.aks_mig_capable:
        p.add(
            ("sharing", "managed_by"),
            f"AKS documents gpu_instance_profile only for Standard_ND96asr_v4, not {pool.machine.name}",
        )
        return
    valid = aks_mig_profiles(pool.mig_table)
    if s.mig_profiles[0] not in valid:
        offered = ", ".join(f"{v} ({prof})" for prof, v in valid.items())
        p.add(
            ("sharing", "mig", "layout"),
            f"AKS gpu_instance_profile cannot express {s.mig_profiles[0]}; on {pool.mig_table.display} it offers {offered}",
        )


def cloud_pool_problems(pool: GpuPool, p: Problems) -> None:
    """The cloud's own limits on one pool (``p`` is the pool's location)."""
    if pool.cloud == "gke":
        gke_pool_problems(pool, p)
    elif pool.cloud == "eks":
        eks_pool_problems(pool, p)
    elif pool.cloud == "aks":
        aks_pool_problems(pool, p)
    dra_pool_problems(pool, p)  # DRA (issue 16): what a DRA pool cannot be, on every path


def cross_pool_problems(pools: Sequence[GpuPool], at: PoolProblems) -> None:
    """Limits across a cluster's pools: AKS pool names unique after shortening, one OS per AKS cluster."""
    aks = [p for p in pools if p.cloud == "aks"]
    seen: dict[str, GpuPool] = {}
    for pool in aks:
        short = default_agent_pool_name(pool.name)
        if short in seen:
            at(pool.index).add(
                ("name",),
                f"AKS pool name '{short}' (no dashes, 12 characters) repeats pool '{seen[short].name}'",
            )
        seen.setdefault(short, pool)
    images = [(p, p.image or DEFAULT_IMAGE["aks"]) for p in aks]
    for pool, image in images[1:]:
        first, first_image = images[0]
        if image != first_image:
            at(pool.index).add(
                ("image",),
                f"'{image}' differs from pool '{first.name}' ('{first_image}'); the GPU Operator does not support "
                "mixed OS versions in one AKS cluster",
            )


def resolve_cluster_pools(
    cloud: str, raw: Sequence[object], cuda_default: str | None, at: PoolProblems, camel: bool = False
) -> ResolvedPools:
    """A cluster's pools resolved with every pool, cloud and cross-pool check (stack file and components)."""
    resolved = resolve_pool_list(cloud, raw, cuda_default, at, camel)
    cross_pool_problems(resolved.pools, at)
    for pool in list(resolved.pools):
        here = at(pool.index)
        before = here.count()
        cloud_pool_problems(pool, here)
        if here.count() != before:
            # A pool the cloud cannot build is broken like any other: nothing more is said about it.
            resolved.pools.remove(pool)
            resolved.broken.add(pool.name)
    return resolved
