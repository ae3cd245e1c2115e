"""Auto-provisioned GPU pools: what every auto-provisioner, and Karpenter on each cloud that runs it, cannot
express; each cloud's own limits are in ``cloud_facts/<cloud>/autoprovisioning.py`` (its profile's
``provisioner_problems``).

- Minimum and initial nodes: auto-provisioners create nodes only for pending pods (Karpenter's static
  ``replicas`` are a separate feature gate, off by default in 1.14; ComputeClass auto-created pools start
  empty).
- Karpenter (EKS, and AKS NAP, which is Karpenter): it sizes nodes from the instance type's whole GPUs, so the
  GPU Operator's sharing (replicas, renamed and MIG resources) and DRA claims (ignored in its simulation until
  its DRA support is GA) are refused.
"""

from __future__ import annotations

from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool


def scale_from_zero_problems(pool: GpuPool, p: Problems, who: str) -> None:
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


def karpenter_simulation_problems(pool: GpuPool, p: Problems, who: str) -> None:
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
