"""What a workload may request on a pool: the resource name and a whole number of its units.

Pure functions shared by the stack-config checks and ``GpuInferenceService``, so a request is
judged by one rule whether it comes from YAML or from code
(https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/).
"""

from __future__ import annotations

from typing import Any

from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool
from gpu_platform.sharing import advertised_resources, card_memory_mib


def gpu_resource(pool: GpuPool, mig_profile: str | None) -> tuple[str | None, list[tuple[str, str]]]:
    """The extended resource a predictor on ``pool`` requests, or the problems choosing it.

    One resource advertised (plain GPUs, time-slicing, MPS, MIG ``single``, one-profile ``mixed``):
    that one. Several MIG profiles (``mixed``): ``nvidia.com/mig-<mig_profile>``.
    """
    resources = advertised_resources(pool)
    if mig_profile is not None:
        name = f"nvidia.com/mig-{mig_profile}"
        if name not in resources:
            offered = ", ".join(sorted(resources))
            return None, [("mig_profile", f"pool '{pool.name}' advertises {offered}, not {name}")]
        return name, []
    if len(resources) > 1:
        profiles = ", ".join(sorted(r.removeprefix("nvidia.com/mig-") for r in resources))
        reason = f"pool '{pool.name}' has several MIG profiles; choose one of {profiles}"
        return None, [("mig_profile", reason)]
    return next(iter(resources)), []


def whole_number_problems(gpus: Any) -> list[tuple[str, str]]:
    """Kubernetes takes extended resources only as whole numbers >= 1 (``0.5`` becomes ``500m``: refused)."""
    if isinstance(gpus, bool) or not isinstance(gpus, (int, float)):
        return [("gpus", f"{gpus!r} is not a number of GPU units")]
    if gpus != int(gpus) or gpus < 1:
        return [
            (
                "gpus",
                f"{gpus:g} is not a whole number of GPUs >= 1: Kubernetes rejects fractional or zero "
                "extended resources (requests must equal limits); for part of a GPU, serve from a pool with "
                "sharing mode 'isolated' and ask for a memory slice ({{gpu_memory_mib}}: 8192), or use MIG slices",
            )
        ]
    return []


def gpu_units_problems(gpus: Any, pool: GpuPool, resource: str | None) -> list[tuple[str, str]]:
    """Why ``gpus`` cannot be requested on this pool (empty when it can)."""
    problems = whole_number_problems(gpus)
    if problems or resource is None:
        return problems
    per_node = advertised_resources(pool)[resource]
    if pool.sharing.mode == "isolated":  # each HAMi unit of a pod is a slice of a different card
        per_node = pool.gpus_per_node
    if gpus > per_node:
        reason = f"{int(gpus)} x {resource} do not fit on one node of '{pool.name}' ({per_node} per node)"
        return [("gpus", reason)]
    s = pool.sharing
    if gpus > 1 and s.mode in ("time-slicing", "mps"):
        # NVIDIA's device plugin always refuses >1 MPS replica and, with failRequestsGreaterThanOne,
        # >1 time-slicing replica; GKE's own sharing allows at most 1 per container.
        why = {
            "mps": "MPS replicas (the device plugin allows one per container)",
            "cloud": "GKE shared GPUs (GKE allows one per container)",
            "strict": "time-slicing replicas (the pool sets {{fail_requests_greater_than_one}})",
        }
        kind = "mps" if s.mode == "mps" else "cloud" if s.managed_by == "cloud" else "strict"
        if kind != "strict" or s.fail_requests_greater_than_one:
            reason = f"a request for {int(gpus)} {why[kind]} fails at admission, and would not add compute"
            return [("gpus", reason)]
    return []


def isolated_slice(mib: Any, pool: GpuPool, p: Problems) -> int | None:
    """``gpu_memory_mib`` checked: on isolated pools only, a whole number of MiB from 1 to one card's memory."""
    if mib is None:
        return None
    if pool.sharing.mode != "isolated":
        p.add(
            ("gpu_memory_mib",),
            f"pool '{pool.name}' shares its GPUs by '{pool.sharing.mode}', which enforces no memory slices: "
            "use a pool with sharing mode 'isolated', or remove it",
        )
        return None
    card = card_memory_mib(pool)
    if isinstance(mib, bool) or not isinstance(mib, int) or not 1 <= mib <= card:
        p.add(
            ("gpu_memory_mib",), f"{mib!r} is not a number of MiB from 1 to {card} (one {pool.gpu.display})"
        )
        return None
    return mib
