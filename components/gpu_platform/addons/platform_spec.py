"""What the stack program deploys, derived once from the stack file (``stack.spec.load_platform``): the cloud,
the cluster, the pools and driver plan, and each add-on's checked settings. Plain data below every add-on's
wiring, which reads it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.addons.dra.checks import DraSpec
from gpu_platform.addons.gpu_operator.checks import GpuOperatorSpec
from gpu_platform.addons.kserve.service_checks import KServeSpec
from gpu_platform.addons.kueue.checks import KueueSpec
from gpu_platform.addons.observability.checks import ObservabilitySpec
from gpu_platform.addons.serving.checks import ServingSpec
from gpu_platform.addons.slurm.checks import SlurmSpec
from gpu_platform.addons.volcano.checks import VolcanoSpec
from gpu_platform.addons.workloads.checks import WorkloadsSpec
from gpu_platform.driver import DriverPlan
from gpu_platform.mirror import Mirror
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cluster import ClusterSpec


@dataclass(frozen=True)
class PlatformSpec:
    """Everything the stack program needs, derived once from the stack file."""

    cloud: str
    cluster: ClusterSpec
    pools: tuple[GpuPool, ...]
    driver: DriverPlan
    cuda_version: str | None = None
    gpu_operator: GpuOperatorSpec | None = None
    """The ``gpuOperator`` settings, or ``None`` when it is switched off."""
    kueue: KueueSpec | None = None
    kserve: KServeSpec | None = None
    dra: DraSpec | None = None
    """The ``dra`` settings when the NVIDIA DRA driver is enabled, else ``None``."""
    config: Mapping[str, Any] = field(default_factory=dict)
    """The validated stack file (snake_case keys), for outputs and diagnostics."""
    secret_sections: frozenset[str] = frozenset()
    """Sections holding a ``secure:`` value (snake_case): their chart values are stored encrypted."""
    workloads: WorkloadsSpec = field(default_factory=WorkloadsSpec)
    """The workload controllers the stack installs."""
    volcano: VolcanoSpec | None = None
    """Volcano and its team queues, or ``None`` when it is not installed."""
    slurm: SlurmSpec | None = None
    """Slurm (Slinky) on the pools it owns, or ``None`` when it is not installed."""

    @property
    def queue_pools(self) -> tuple[GpuPool, ...]:
        """The pools Kueue's quotas count: every pool but Slurm's."""
        owned = set(self.slurm.pool_names) if self.slurm is not None else set()
        return tuple(p for p in self.pools if p.name not in owned)

    observability: ObservabilitySpec | None = None
    """The metrics path, dashboards and rules, or ``None`` when ``observability.enabled`` is false."""
    mirror: Mirror | None = None
    """Where every chart and image comes from instead of upstream (``mirror``), or ``None``."""
    serving: ServingSpec | None = None
    """The ``serving`` section's models, sized and placed, or ``None`` when the section is absent."""
