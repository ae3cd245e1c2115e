"""What a GKE ComputeClass cannot express of a GPU pool: auto-created pools get GKE's driver
(``gpu.driverVersion`` is only ``default`` or ``latest``) and GKE's device plugin, so the operator-installed
driver, operator-managed sharing and DRA cannot be expressed; the GPU Operator is kept off those nodes
(``nvidia.com/gpu.deploy.operands=false``). ``max_nodes`` has no per-class cap (cluster-wide NAP limits)."""

from __future__ import annotations

from gpu_platform.cloud_facts.autoprovisioning import scale_from_zero_problems
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool


def compute_class_pool_problems(pool: GpuPool, p: Problems) -> None:
    scale_from_zero_problems(pool, p, "GKE node pool auto-creation")
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
