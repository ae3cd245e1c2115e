"""What Karpenter cannot express of an EKS GPU pool: the GPU Operator's sharing and DRA claims
(``cloud_facts.autoprovisioning``), and EFA (every interface + a cluster placement group), which stays on
managed node groups."""

from __future__ import annotations

from gpu_platform.cloud_facts.autoprovisioning import karpenter_simulation_problems, scale_from_zero_problems
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool


def karpenter_pool_problems(pool: GpuPool, p: Problems) -> None:
    scale_from_zero_problems(pool, p, "Karpenter")
    karpenter_simulation_problems(pool, p, "Karpenter")
    if pool.efa:
        p.add(
            ("efa",),
            "EFA pools need every EFA interface and a cluster placement group, which the library sets through "
            "managed node groups' launch templates: use EksGpuNodePool for them",
        )
