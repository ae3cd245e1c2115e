"""What every cloud's cluster plan shares: the system pool and its labels, protection, and the name that changes
when the cloud must replace the system pool. Each cloud's plan is ``gpu_platform/clouds/<cloud>/cluster_plan.py``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.plans.names import digest
from gpu_platform.resolve.cluster import SystemPool
from gpu_platform.scheduling import SYSTEM_POOL_LABELS


@dataclass(frozen=True)
class ClusterPlan:
    name: str
    system_pool: SystemPool
    inputs: Mapping[str, Any] = field(default_factory=dict)
    """Pass-through arguments (project, versions, CIDR allow-lists), possibly Outputs."""

    @property
    def protect(self) -> bool:
        """Network, control plane and system pool are protected from deletion unless told otherwise."""
        return bool(self.inputs.get("protect", True))

    @property
    def system_pool_labels(self) -> dict[str, str]:
        """Node labels of the system pool: Kueue's system flavor selects them (``kueue.systemFlavor``).
        Labels change in place on every cloud, so adding them never replaces the pool."""
        return dict(SYSTEM_POOL_LABELS)

    def system_pool_name(self, *fixed: Any) -> str:
        """``system-<digest>``: a change the cloud cannot make in place gets a new name, so the new system
        pool is created before the old one is deleted."""
        return f"system-{digest(self.system_pool.machine_type, *fixed)}"
