"""A GKE GPU node pool's plan: accelerator, driver install mode, GKE-native sharing, per-zone initial nodes.

Argument names follow pulumi-gcp 10.2.0 (GPU_PLATFORM_FACTS.md section 1).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.clouds.gke.profile import PROFILE, SHARING_STRATEGY
from gpu_platform.driver import DriverPlan
from gpu_platform.plans.nodepools import CLOUD_TAINT_EFFECT, NodePoolPlan, base_plan
from gpu_platform.pools import GpuPool

RESERVATION_KEY = "compute.googleapis.com/reservation-name"
COMPACT = "COMPACT"
"""``placement_policy.type``: the only value pulumi-gcp 10.2.0 documents for GPU node pools."""


@dataclass(frozen=True)
class GkeNodePoolPlan(NodePoolPlan):
    accelerator: dict[str, Any] = field(default_factory=dict)
    """``guest_accelerators[0]``: type, count, driver install mode, GKE-native sharing or partitioning."""
    initial_node_count: int = 0
    """Per zone, so the pool's initial nodes are split over its zones."""
    location_policy: str = "BALANCED"
    image_type: str = PROFILE.default_image or ""
    workload_identity: bool = True
    placement_policy: str | None = None
    """``COMPACT`` for ``compact_placement`` pools (one zone): the nodes are placed close together."""

    @property
    def cloud_taints(self) -> list[dict[str, str]]:
        return [{"key": t.key, "value": t.value, "effect": CLOUD_TAINT_EFFECT[t.effect]} for t in self.taints]


def _gke_accelerator(pool: GpuPool, driver: DriverPlan) -> dict[str, Any]:
    assert pool.machine is not None and pool.machine.accelerator_type
    accel: dict[str, Any] = {
        "type": pool.machine.accelerator_type,
        "count": pool.gpus_per_node,
        "gpu_driver_installation_config": {"gpu_driver_version": driver.pool_driver},
    }
    s = pool.sharing
    if s.managed_by == "cloud" and s.mode in SHARING_STRATEGY:
        accel["gpu_sharing_config"] = {
            "gpu_sharing_strategy": SHARING_STRATEGY[s.mode],
            "max_shared_clients_per_gpu": s.replicas,
        }
    elif s.managed_by == "cloud" and s.mode == "mig":
        accel["gpu_partition_size"] = s.mig_profiles[0]
    return accel


def gke_node_pool_plan(pool: GpuPool, driver: DriverPlan, inputs: Mapping[str, Any]) -> GkeNodePoolPlan:
    accelerator = _gke_accelerator(pool, driver)
    # GKE recreates a pool for a new accelerator (type, count, driver mode, sharing), spot or reservation,
    # and for a new placement policy (immutable on a node pool). Only a set policy enters the name, so pools
    # without one keep theirs.
    fixed: tuple[Any, ...] = (accelerator, pool.spot, pool.reservation)
    placement = COMPACT if pool.compact_placement else None
    if placement:
        fixed += (placement,)
    return GkeNodePoolPlan(
        **base_plan(pool, driver, inputs, *fixed),
        placement_policy=placement,
        accelerator=accelerator,
        initial_node_count=math.ceil(pool.initial_nodes / max(len(pool.zones), 1)),
        # ANY prefers unused reservations and lowers Spot preemption risk (pulumi-gcp docs).
        location_policy="ANY" if pool.spot or pool.reservation else "BALANCED",
        image_type=pool.image or PROFILE.default_image or "",
        workload_identity=inputs.get("workload_identity", True),
    )
