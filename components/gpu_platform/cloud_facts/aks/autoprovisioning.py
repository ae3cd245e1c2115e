"""What AKS Node Auto Provisioning (Karpenter) cannot express of a GPU pool: besides Karpenter's own limits
(``cloud_facts.autoprovisioning``), ``AKSNodeClass`` has no MIG instance profile, no spot max price; zones would
need the region in the label value (``<region>-<n>``), which the pool does not carry."""

from __future__ import annotations

from gpu_platform.cloud_facts.autoprovisioning import karpenter_simulation_problems, scale_from_zero_problems
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool


def nap_pool_problems(pool: GpuPool, p: Problems) -> None:
    scale_from_zero_problems(pool, p, "AKS Node Auto Provisioning")
    karpenter_simulation_problems(pool, p, "AKS Node Auto Provisioning (Karpenter)")
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
