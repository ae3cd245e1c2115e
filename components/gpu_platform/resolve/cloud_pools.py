"""What each cloud can and cannot do with a GPU pool, checked once for stack files and components."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from gpu_platform.catalog.mig import MigTable
from gpu_platform.driver import DEFAULT_IMAGE
from gpu_platform.errors import Key, Problems
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.dra import dra_pool_problems
from gpu_platform.resolve.pools import PoolProblems, ResolvedPools, check_cuda_default, resolve_pool_list
from gpu_platform.scheduling import ASG_TAG_KEY_MAX, CA_NODE_TEMPLATE

AGENT_POOL_NAME = re.compile(r"^[a-z][a-z0-9]{0,11}$")
"""AKS Linux agent pool names: lowercase letters and digits, at most 12 characters."""
AKS_ZONES = ("1", "2", "3")
"""Azure availability zones within a region."""
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
    # Each label and taint becomes a Cluster Autoscaler tag on the Auto Scaling group (scale from zero).
    room = ASG_TAG_KEY_MAX - len(f"{CA_NODE_TEMPLATE}/label/")
    for key in pool.user_labels:
        if len(key) > room:
            p.add(("labels", Key(key)), f"longer than {room} characters: too long for the autoscaler's tag")
    room = ASG_TAG_KEY_MAX - len(f"{CA_NODE_TEMPLATE}/taint/")
    for j, taint in enumerate(pool.user_taints):
        if len(taint.key) > room:
            p.add(("taints", j, "key"), f"longer than {room} characters: too long for the autoscaler's tag")


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
        if zone not in AKS_ZONES:
            p.add(("zones", i), f"AKS availability zones are {', '.join(AKS_ZONES)}, not '{zone}'")
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


SCALE_FROM_ZERO_FIX = {
    "gke": "{{min_nodes}} 1 (one node always up), or GKE-managed sharing ({{sharing.managed_by}} cloud), "
    "which GKE's autoscaler knows",
    "aks": "{{min_nodes}} 1 (one node always up)",
}


def scale_from_zero_problem(pool: GpuPool) -> str | None:
    """Why the cloud's autoscaler cannot grow this pool from zero nodes, or ``None`` when it can.

    An empty pool has no node to read resources from, so the autoscaler builds a template: GKE's and AKS's
    know the machine's whole GPUs (and on GKE its own sharing and partitions), nothing the GPU Operator
    adds later. EKS has no such gap: ``node_template_tags`` tell the autoscaler everything. The matrix is
    in docs/autoscaling.md.
    """
    s = pool.sharing
    if pool.dra and pool.cloud != "existing":  # DRA: pools the library creates, every cloud
        # cluster-autoscaler 1.35: a node group's DRA devices come from a running node's ResourceSlices
        # (simulator/node_info_utils.go); the AWS, GCE and Azure templates of an empty group carry none.
        return "the cluster autoscaler learns a pool's DRA devices from a running node's ResourceSlices; an empty pool has none, so claim-only pods never grow it"
    operator_shares = s.managed_by == "operator" and s.mode in ("time-slicing", "mps")
    if pool.cloud == "gke" and s.managed_by == "operator" and s.mode == "mig":
        return "GKE's autoscaler sees an empty pool's GPUs as whole nvidia.com/gpu; the GPU Operator's MIG slices exist only once a node runs"
    if pool.cloud == "gke" and operator_shares and s.rename_by_default:
        return "GKE's autoscaler does not know nvidia.com/gpu.shared, which the GPU Operator adds only once a node runs"
    if pool.cloud == "aks" and s.mode == "mig":
        return "AKS's autoscaler cannot learn an empty pool's MIG resources (Azure/AKS#4216)"
    if pool.cloud == "aks" and operator_shares:
        return f"AKS's autoscaler sees an empty pool's GPUs as whole nvidia.com/gpu, not the GPU Operator's {s.mode} replicas"
    return None


def scaling_problems(pool: GpuPool, p: Problems) -> None:
    """Checks for a pool that is created here (not for components that only describe pools)."""
    if pool.min_nodes == 0 and (why := scale_from_zero_problem(pool)):
        fix = SCALE_FROM_ZERO_FIX.get(pool.cloud, "{{min_nodes}} 1 (one node always up)")
        p.add(("min_nodes",), f"0 would never scale up: {why}. Use {fix}")


def cloud_pool_problems(pool: GpuPool, p: Problems) -> None:
    """The cloud's own limits on one pool (``p`` is the pool's location)."""
    if pool.cloud == "gke":
        gke_pool_problems(pool, p)
    elif pool.cloud == "eks":
        eks_pool_problems(pool, p)
    elif pool.cloud == "aks":
        aks_pool_problems(pool, p)
    dra_pool_problems(pool, p)  # DRA: what a DRA pool cannot be, on every path


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
    cross_pool_problems(resolved.pools, at)
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
