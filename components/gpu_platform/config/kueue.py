"""Config schema for Kueue: cluster queues over the pools, teams, gang admission."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gpu_platform.config.model import ConfigModel

DEFAULT_INTEGRATIONS = [
    "batch/job",
    "pod",
    "deployment",
    "jobset.x-k8s.io/jobset",
    "kubeflow.org/pytorchjob",
    "ray.io/rayjob",
    "ray.io/raycluster",
]


class RequeuingStrategyConfig(ConfigModel):
    timestamp: Literal["Eviction", "Creation"] = "Eviction"
    backoff_limit_count: int | None = Field(default=5, ge=0)
    backoff_base_seconds: int = Field(default=60, ge=1)
    backoff_max_seconds: int = Field(default=3600, ge=1)


class WaitForPodsReadyConfig(ConfigModel):
    """Gang admission: a workload keeps its quota only if all its pods become ready in time."""

    enabled: bool = True
    timeout: str = Field(default="10m", pattern=r"^\d+(s|m|h)$")
    block_admission: bool = True
    """Admit one workload at a time until its pods are ready, so two gangs never deadlock."""
    requeuing_strategy: RequeuingStrategyConfig = Field(default_factory=RequeuingStrategyConfig)


class PreemptionConfig(ConfigModel):
    reclaim_within_cohort: Literal["Never", "LowerPriority", "Any"] = "Any"
    borrow_within_cohort: Literal["Never", "LowerPriority"] = "Never"
    within_cluster_queue: Literal["Never", "LowerPriority", "LowerOrNewerEqualPriority"] = "LowerPriority"


class ClusterQueueConfig(ConfigModel):
    name: str = Field(pattern=r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")
    pools: list[str] = Field(default_factory=list)
    """GPU pools whose capacity this queue owns (default: all). Flavors are tried in this order.
    A pool is the nominal quota of one queue only; put queues in a cohort to share pools."""
    cohort: str | None = None
    borrowing_limit_percent: int | None = Field(default=None, ge=0)
    """Cap on borrowing from the cohort, in percent of each pool's capacity (needs ``cohort``; default none).
    Queues in a cohort list their peers' pools with nominal quota 0: this caps what they borrow of them."""
    lending_limit_percent: int | None = Field(default=None, ge=0, le=100)
    queueing_strategy: Literal["BestEffortFIFO", "StrictFIFO"] = "BestEffortFIFO"
    preemption: PreemptionConfig = Field(default_factory=PreemptionConfig)


class TeamConfig(ConfigModel):
    name: str = Field(pattern=r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")
    """Team name; also the namespace unless ``namespace`` is set."""
    namespace: str | None = None
    cluster_queue: str
    """The ClusterQueue this team's LocalQueue points at."""
    queue_name: str = "default"


class PriorityClassConfig(ConfigModel):
    name: str
    value: int
    description: str = ""


DEFAULT_PRIORITY_CLASSES = [
    PriorityClassConfig(
        name="inference-high", value=1000, description="Online inference; preempts training."
    ),
    PriorityClassConfig(name="training", value=500, description="Scheduled training jobs."),
    PriorityClassConfig(name="batch-low", value=100, description="Best-effort batch; preempted first."),
]


class KueueConfig(ConfigModel):
    enabled: bool = True
    wait_for_pods_ready: WaitForPodsReadyConfig = Field(default_factory=WaitForPodsReadyConfig)
    integrations: list[str] = Field(default_factory=lambda: list(DEFAULT_INTEGRATIONS))
    cluster_queues: list[ClusterQueueConfig] = Field(default_factory=list)
    """Default: one ClusterQueue ``gpu`` over every pool."""
    teams: list[TeamConfig] = Field(default_factory=list)
    priority_classes: list[PriorityClassConfig] = Field(
        default_factory=lambda: list(DEFAULT_PRIORITY_CLASSES)
    )
