"""An AKS GPU agent pool's plan: OS SKU, the driver setting, AKS-managed MIG and spot.

Argument names follow azure-native 3.29.0 (PyPI ``pulumi-azure-native``, ``containerservice/agent_pool.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.cloud_facts.aks.profile import PROFILE, default_agent_pool_name, mig_instance_profiles
from gpu_platform.driver import DriverPlan
from gpu_platform.plans.node_pool_plan import NodePoolPlan, base_plan
from gpu_platform.pools import GpuPool


@dataclass(frozen=True)
class AksNodePoolPlan(NodePoolPlan):
    os_sku: str = PROFILE.default_image or ""
    gpu_instance_profile: str | None = None
    """``MIG<n>g`` for AKS-managed MIG; fixed when the pool is created."""
    spot: dict[str, Any] = field(default_factory=dict)
    """``scale_set_priority``, eviction policy and max price of a spot pool."""
    capacity_reservation_group_id: str | None = None
    """The capacity reservation group the pool's VMs consume (``reservation`` source)."""

    @property
    def cloud_taints(self) -> list[str]:
        return [f"{t.key}={t.value}:{t.effect}" for t in self.taints]


def aks_node_pool_plan(pool: GpuPool, driver: DriverPlan, inputs: Mapping[str, Any]) -> AksNodePoolPlan:
    s = pool.sharing
    profile = None
    if s.mode == "mig" and s.managed_by == "cloud":
        assert pool.mig_table is not None
        profile = mig_instance_profiles(pool.mig_table)[s.mig_profiles[0]]
    spot: dict[str, Any] = {}
    if pool.spot:
        price = pool.spot_max_price if pool.spot_max_price is not None else -1
        spot = {"scale_set_priority": "Spot", "scale_set_eviction_policy": "Delete", "spot_max_price": price}
    assert pool.machine is not None
    os_sku = pool.image or PROFILE.default_image or ""
    # AKS fixes these at creation (see clouds.aks.node_pool.REPLACE_ON_CHANGES).
    fixed: tuple[Any, ...] = (
        pool.machine.name,
        profile,
        driver.pool_driver,
        spot,
        pool.zones,
        pool.disk_size_gb,
        os_sku,
    )
    group = pool.reservation if pool.primary.source == "reservation" else None
    if group is not None:  # only then: the names of pools without one stay as they were
        fixed = (*fixed, group)
    base = base_plan(pool, driver, inputs, *fixed)
    generated = default_agent_pool_name(pool.name)[:6] + base["physical_name"][-6:]
    return AksNodePoolPlan(
        **{**base, "physical_name": inputs.get("agent_pool_name") or generated},
        os_sku=os_sku,
        gpu_instance_profile=profile,
        spot=spot,
        capacity_reservation_group_id=group,
    )
