"""Auto-provisioned GPU pools: what Karpenter, AKS NAP and GKE ComputeClasses cannot express.

A pool keeps the meaning it has as a managed pool (``resolve.pools``); here each auto-provisioner's gaps are
refused at the key that asks for them, so nothing is silently dropped:

- Minimum and initial nodes: auto-provisioners create nodes only for pending pods (Karpenter's static
  ``replicas`` are a separate feature gate, off by default in 1.14; ComputeClass auto-created pools start
  empty). ``max_nodes`` becomes Karpenter ``limits``; GKE has no per-class cap (cluster-wide NAP limits).
- Karpenter (and AKS NAP, which is Karpenter): it sizes nodes from the instance type's whole GPUs, so the GPU
  Operator's sharing (replicas, renamed and MIG resources) and DRA claims (ignored in its simulation until
  its DRA support is GA) are refused; EFA (every interface + a cluster placement group) stays on managed
  node groups.
- AKS NAP: ``AKSNodeClass`` has no MIG instance profile, no spot max price; zones would need the region in
  the label value (``<region>-<n>``), which the pool does not carry.
- GKE ComputeClass: auto-created pools get GKE's driver (``gpu.driverVersion`` is only ``default`` or
  ``latest``) and GKE's device plugin, so the operator-installed driver, operator-managed sharing and DRA
  cannot be expressed; the GPU Operator is kept off those nodes (``nvidia.com/gpu.deploy.operands=false``).
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


def _scale_from_zero(pool: GpuPool, p: Problems, who: str) -> None:
    if pool.min_nodes > 0:
        # A DRA pool needs its warm node (an empty DRA pool publishes no devices to grow from), so 0 is no
        # fix there: only a managed node pool is.
        fix = "put it on a managed node pool" if pool.dra else "use 0, or a managed node pool"
        p.add(
            ("min_nodes",),
            f"{who} creates nodes only for pending pods: a minimum of {pool.min_nodes} warm node(s) cannot be "
            f"expressed; {fix}",
        )
    if pool.initial_nodes > 0 and pool.initial_nodes != pool.min_nodes:
        p.add(("initial_nodes",), f"{who} starts with no nodes; use 0")


def _karpenter_simulation(pool: GpuPool, p: Problems, who: str) -> None:
    """Karpenter launches nodes from a simulation of the instance types' capacity: it knows each type's
    ``nvidia.com/gpu`` count, not what the GPU Operator's device plugin later advertises (replicas,
    ``nvidia.com/gpu.shared``, ``nvidia.com/mig-*``; NodeOverlay, which could declare them, is alpha and off in
    1.14), and it ignores DRA claims until its DRA support is GA (``IGNORE_DRA_REQUESTS``, reference/settings.md
    at v1.14.1)."""
    s = pool.sharing
    if s.mode != "none" and s.managed_by == "operator":
        p.add(
            ("sharing", "mode"),
            f"{who} sizes nodes by the instance type's whole nvidia.com/gpu and does not know the GPU Operator's "
            f"'{s.mode}' resources: it would launch a node per pod, or none for renamed and MIG resources "
            "(NodeOverlay, which could declare them, is alpha and off in Karpenter 1.14). Use mode 'none' here, or a "
            "managed pool with min_nodes >= 1 for shared GPUs",
        )
    if pool.dra:
        p.add(
            ("allocation",),
            f"{who} ignores DRA claims in its scheduling simulation until its DRA support is GA "
            "(IGNORE_DRA_REQUESTS): it would pack claim-only GPU pods onto too few nodes. Put DRA pools on a managed "
            "pool (EksGpuNodePool, AksGpuNodePool)",
        )


def karpenter_pool_problems(pool: GpuPool, p: Problems) -> None:
    _scale_from_zero(pool, p, "Karpenter")
    _karpenter_simulation(pool, p, "Karpenter")
    if pool.efa:
        p.add(
            ("efa",),
            "EFA pools need every EFA interface and a cluster placement group, which the library sets through "
            "managed node groups' launch templates: use EksGpuNodePool for them",
        )


def nap_pool_problems(pool: GpuPool, p: Problems) -> None:
    _scale_from_zero(pool, p, "AKS Node Auto Provisioning")
    _karpenter_simulation(pool, p, "AKS Node Auto Provisioning (Karpenter)")
    s = pool.sharing
    if s.mode == "mig" and s.managed_by == "cloud":
        p.add(
            ("sharing", "managed_by"),
            "AKSNodeClass has no GPU instance profile (karpenter.azure.com/v1beta1): NAP cannot partition GPUs; "
            "use {{sharing.managed_by}}: operator (the GPU Operator's MIG manager) or an AKS agent pool",
        )
    if pool.zones:
        p.add(
            ("zones",),
            "NAP pools select zones by topology.kubernetes.io/zone, whose values carry the region "
            "('<region>-1'); leave zones to NAP or use an AKS agent pool",
        )
    if pool.spot_max_price is not None:
        p.add(
            ("spot_max_price",), "AKS NAP buys spot at up to the on-demand price; a max price cannot be set"
        )


def compute_class_pool_problems(pool: GpuPool, p: Problems) -> None:
    _scale_from_zero(pool, p, "GKE node pool auto-creation")
    s = pool.sharing
    if s.mode != "none" and s.managed_by == "operator":
        p.add(
            ("sharing", "managed_by"),
            "auto-created GKE node pools run GKE's own device plugin, so the GPU Operator's device plugin and MIG "
            "manager cannot share these GPUs: use {{sharing.managed_by}}: cloud (ComputeClass gpuSharing)",
        )
    if pool.dra:
        p.add(
            ("allocation",),
            "auto-created GKE node pools run GKE's own device plugin, which cannot be switched off from a "
            "ComputeClass; DRA pools need a GkeGpuNodePool",
        )


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
