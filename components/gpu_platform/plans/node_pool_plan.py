"""What every cloud's GPU node pool plan shares: the nodes' labels and taints, and a name that changes when
the cloud would have to replace the pool. Each cloud's plan is in its folder
(``gpu_platform/clouds/<cloud>/node_pool_plan.py``); the components only turn a plan into SDK arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_platform import scheduling
from gpu_platform.driver import DriverPlan
from gpu_platform.plans.names import digest
from gpu_platform.pools import GPU_TAINT, GpuPool, Taint

CLOUD_TAINT_EFFECT = {
    "NoSchedule": "NO_SCHEDULE",
    "PreferNoSchedule": "PREFER_NO_SCHEDULE",
    "NoExecute": "NO_EXECUTE",
}
"""Kubernetes taint effect -> the GKE/EKS API spelling (AKS keeps Kubernetes' spelling in strings)."""


def ensure_gpu_taint(taints: tuple[Taint, ...] | list[Taint]) -> None:
    """Last line of defence: never build a GPU pool whose taints lack ``nvidia.com/gpu:NoSchedule``."""
    if GPU_TAINT not in taints:
        raise RuntimeError(
            f"refusing to create a GPU node pool without the {GPU_TAINT.key}={GPU_TAINT.value}:{GPU_TAINT.effect} taint"
        )


@dataclass(frozen=True)
class NodePoolPlan:
    """A pool's nodes as Kubernetes sees them: plain values, known before anything is created."""

    pool: GpuPool
    driver: DriverPlan
    labels: dict[str, str]
    taints: tuple[Taint, ...]
    """Kubernetes shape, GPU taint first, including taints the cloud adds itself (AKS spot)."""
    inputs: Mapping[str, Any] = field(default_factory=dict)
    """The component's pass-through arguments (cluster, subnets ...), possibly Outputs."""
    physical_name: str = ""
    """The cloud pool's name: the pool name plus a digest of what the cloud cannot change in place, so a
    replacing change gets a new name and the new pool is created before the old one is deleted."""
    protect: bool = True

    @property
    def tolerations(self) -> list[dict[str, str]]:
        """What a workload needs to run on these nodes."""
        return scheduling.pool_tolerations(self.pool)

    @property
    def taint_dicts(self) -> list[dict[str, str]]:
        return [{"key": t.key, "value": t.value, "effect": t.effect} for t in self.taints]


def base_plan(pool: GpuPool, driver: DriverPlan, inputs: Mapping[str, Any], *fixed: Any) -> dict[str, Any]:
    """The fields every cloud's plan starts from; ``fixed`` are what the cloud cannot change in place."""
    taints = (
        *scheduling.pool_taints(pool),
        *scheduling.cloud_added_taints(pool),
        *scheduling.startup_taints(pool),
    )
    ensure_gpu_taint(taints)
    return {
        "pool": pool,
        "driver": driver,
        "labels": scheduling.pool_labels(pool, driver),
        "taints": taints,
        "inputs": dict(inputs),
        "physical_name": f"{pool.name}-{digest(*fixed)}",
        "protect": inputs.get("protect", True),
    }
