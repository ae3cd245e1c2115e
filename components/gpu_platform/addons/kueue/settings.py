"""Kueue settings: cluster queues over the GPU pools, team queues, priorities and gang admission.

One definition for the stack file (``kueue``) and ``KueueArgs``. No ``from __future__ import
annotations``: Pulumi's component analyzer needs real annotations.
"""

import enum
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypeAlias

from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform.args.cluster import SystemPoolArgs
from gpu_platform.args.common import CloudValue
from gpu_platform.args.mirror import MirrorArgs
from gpu_platform.args.operators import GpuOperatorSection
from gpu_platform.args.pool import GpuPoolArgs
from gpu_platform.args.validate import ARGS_CONFIG
from gpu_platform.catalog.allocatable import DEFAULT_VM_MEMORY_OVERHEAD_PERCENT


class RequeueTimestamp(enum.StrEnum):
    """Which timestamp orders a workload in its queue after it was evicted for not getting ready in time."""

    EVICTION = "Eviction"
    """When it was evicted (Kueue's default)."""
    CREATION = "Creation"
    """When the workload was created."""


RequeueTimestampName = Literal["Eviction", "Creation"]
"""``RequeueTimestamp``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    RequeueTimestampValue: TypeAlias = RequeueTimestamp | RequeueTimestampName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    RequeueTimestampValue = RequeueTimestamp


class QueueingStrategy(enum.StrEnum):
    """Order in which a ClusterQueue admits its pending workloads."""

    BEST_EFFORT_FIFO = "BestEffortFIFO"
    """By priority, then age; a workload that does not fit does not block newer ones that do."""
    STRICT_FIFO = "StrictFIFO"
    """By priority, then age; the head of the queue blocks the others until it is admitted."""


QueueingStrategyName = Literal["BestEffortFIFO", "StrictFIFO"]
"""``QueueingStrategy``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    QueueingStrategyValue: TypeAlias = QueueingStrategy | QueueingStrategyName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    QueueingStrategyValue = QueueingStrategy


class ReclaimWithinCohort(enum.StrEnum):
    """Whether a pending workload that fits its queue's nominal quota may preempt workloads of other
    ClusterQueues in the cohort that use more than their own nominal quota."""

    NEVER = "Never"
    """Never preempt in the cohort."""
    LOWER_PRIORITY = "LowerPriority"
    """Only such workloads of lower priority."""
    ANY = "Any"
    """Any such workload, whatever its priority."""


ReclaimWithinCohortName = Literal["Never", "LowerPriority", "Any"]
"""``ReclaimWithinCohort``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    ReclaimWithinCohortValue: TypeAlias = ReclaimWithinCohort | ReclaimWithinCohortName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    ReclaimWithinCohortValue = ReclaimWithinCohort


class BorrowWithinCohort(enum.StrEnum):
    """Whether a pending workload that needs to borrow may preempt workloads in the cohort to do so."""

    NEVER = "Never"
    """Never preempt in order to borrow."""
    LOWER_PRIORITY = "LowerPriority"
    """Preempt workloads of lower priority in the cohort to borrow their quota."""


BorrowWithinCohortName = Literal["Never", "LowerPriority"]
"""``BorrowWithinCohort``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    BorrowWithinCohortValue: TypeAlias = BorrowWithinCohort | BorrowWithinCohortName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    BorrowWithinCohortValue = BorrowWithinCohort


class WithinClusterQueue(enum.StrEnum):
    """Whether a pending workload may preempt admitted workloads of its own ClusterQueue."""

    NEVER = "Never"
    """Never preempt in the queue."""
    LOWER_PRIORITY = "LowerPriority"
    """Workloads of lower priority."""
    LOWER_OR_NEWER_EQUAL_PRIORITY = "LowerOrNewerEqualPriority"
    """Workloads of lower priority, and newer workloads of equal priority."""


WithinClusterQueueName = Literal["Never", "LowerPriority", "LowerOrNewerEqualPriority"]
"""``WithinClusterQueue``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    WithinClusterQueueValue: TypeAlias = WithinClusterQueue | WithinClusterQueueName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    WithinClusterQueueValue = WithinClusterQueue


DEFAULT_INTEGRATIONS = ("batch/job", "pod", "deployment")
"""Kueue ``integrations.frameworks`` when none are given: the kinds that need no controller. The ``Kueue``
component cannot see which controllers run, so it names none; pass
``addons.workloads.plan.kueue_integrations([...])`` for those you install (the stack derives them)."""
DEFAULT_CLUSTER_QUEUE = "gpu"
"""The ClusterQueue created over every pool when none are configured."""
DEFAULT_LOCAL_QUEUE = "default"
"""A team's LocalQueue name when not given."""
DEFAULT_WAIT_TIMEOUT = "10m"
"""``waitForPodsReady.timeout`` when every pool has a fixed size and no operator-managed MIG: admitted pods
land on running nodes and only pull their images."""
DEFAULT_COLD_WAIT_TIMEOUT = "30m"
"""``waitForPodsReady.timeout`` when a pool autoscales (``min_nodes < max_nodes``, e.g. from zero) or the
GPU Operator's MIG manager partitions it: a node must be created, get its driver, possibly reboot for MIG,
and pull images and models before the pods are ready. Kueue's own default (``DefaultWaitForPodsReadyTimeout``)."""
DEFAULT_BLOCK_ADMISSION = False
"""Kueue's own default: a ClusterQueue keeps admitting while an admitted workload's pods start."""
SYSTEM_FLAVOR_NAME = "system-cpu"
"""The ResourceFlavor of the untainted system pool, first in every ClusterQueue (CPU-only jobs)."""
SYSTEM_TOPOLOGY_FLAVOR_NAME = "system-cpu-hostname"
"""The system pool as a topology-aware flavor, in place of ``SYSTEM_FLAVOR_NAME`` in ClusterQueues whose GPU
flavors are all topology-aware (Kueue refuses a pod set on a flavor without a topology in such a queue)."""
DEFAULT_VM_MEMORY_OVERHEAD = float(DEFAULT_VM_MEMORY_OVERHEAD_PERCENT)
"""7.5: percent of a node's nominal memory the kernel and firmware keep (Karpenter's default)."""
DEFAULT_REQUEUE_TIMESTAMP = RequeueTimestamp.EVICTION.value
DEFAULT_BACKOFF_LIMIT_COUNT = 5
"""Requeues before a workload is deactivated (Kueue's default); ``-1`` requeues forever."""
DEFAULT_BACKOFF_BASE_SECONDS = 60
DEFAULT_BACKOFF_MAX_SECONDS = 3600
DEFAULT_QUEUEING_STRATEGY = QueueingStrategy.BEST_EFFORT_FIFO.value
DEFAULT_RECLAIM_WITHIN_COHORT = ReclaimWithinCohort.ANY.value
DEFAULT_BORROW_WITHIN_COHORT = BorrowWithinCohort.NEVER.value
DEFAULT_WITHIN_CLUSTER_QUEUE = WithinClusterQueue.LOWER_PRIORITY.value
DEFAULT_PRIORITY_CLASSES: tuple[tuple[str, int, str], ...] = (
    ("inference-high", 1000, "Online inference; preempts training."),
    ("training", 500, "Scheduled training jobs."),
    ("batch-low", 100, "Best-effort batch; preempted first."),
)
"""``(name, value, description)`` of the WorkloadPriorityClasses created when none are given."""


@with_config(ARGS_CONFIG)
class RequeuingStrategyArgs(TypedDict):
    """When and how often an evicted workload is requeued."""

    timestamp: NotRequired[RequeueTimestampValue]
    """``Eviction`` (default) or ``Creation``: when the requeue backoff starts counting."""
    backoff_limit_count: NotRequired[int]
    """Requeues before the workload is deactivated; default ``DEFAULT_BACKOFF_LIMIT_COUNT`` (5); ``-1``
    requeues forever."""
    backoff_base_seconds: NotRequired[int]
    """Default 60."""
    backoff_max_seconds: NotRequired[int]
    """Default 3600."""


@with_config(ARGS_CONFIG)
class WaitForPodsReadyArgs(TypedDict):
    """Gang admission (Kueue ``waitForPodsReady``): a workload keeps its quota only if all of its pods
    become ready in time."""

    enabled: NotRequired[bool]
    """Default true."""
    timeout: NotRequired[str]
    """Time an admitted workload has until all its pods are ready, like ``10m``. It must cover node
    scale-up from zero, driver install, a MIG reboot and image/model pulls. Default
    ``DEFAULT_COLD_WAIT_TIMEOUT`` (30m) when a pool autoscales or uses the operator's MIG manager, else
    ``DEFAULT_WAIT_TIMEOUT`` (10m)."""
    block_admission: NotRequired[bool]
    """Admit one workload at a time until its pods are ready (Kueue ``blockAdmission``); default
    ``DEFAULT_BLOCK_ADMISSION`` (false, Kueue's default). Turn it on only when gangs that each fit the
    quota can deadlock on nodes (quota larger than what actually schedules); it serialises every
    admission of a ClusterQueue behind the slowest start-up."""
    requeuing_strategy: NotRequired[RequeuingStrategyArgs]
    """Requeue backoff of evicted workloads."""


@with_config(ARGS_CONFIG)
class PreemptionArgs(TypedDict):
    """ClusterQueue preemption policy."""

    reclaim_within_cohort: NotRequired[ReclaimWithinCohortValue]
    """``Never``, ``LowerPriority`` or ``Any`` (default)."""
    borrow_within_cohort: NotRequired[BorrowWithinCohortValue]
    """``Never`` (default) or ``LowerPriority``; must be ``Never`` when ``reclaim_within_cohort`` is."""
    within_cluster_queue: NotRequired[WithinClusterQueueValue]
    """``Never``, ``LowerPriority`` (default) or ``LowerOrNewerEqualPriority``."""


@with_config(ARGS_CONFIG)
class ClusterQueueArgs(TypedDict):
    """A ClusterQueue whose nominal quota is the capacity of its pools (or its share of them)."""

    name: str
    """DNS label."""
    pools: NotRequired[Sequence[str]]
    """Pools whose capacity is this queue's nominal quota, tried in this order. Not given: every pool (then
    no other queue may list pools). A pool listed by several queues is split between them
    (``pool_share_percent``), so the nominal quotas of a pool add up to its capacity; in one cohort each
    queue borrows the others' idle share. ``[]``: no quota of its own, a queue that only borrows its
    cohort's pools (needs ``cohort``)."""
    pool_share_percent: NotRequired[Mapping[str, int]]
    """Pool -> this queue's share of a pool it lists with other queues, 1-100 percent of the pool's
    capacity; the shares of a pool add up to 100. Default: the pool split evenly between the queues that
    list it (the first queues take what does not divide)."""
    cohort: NotRequired[str]
    """Cohort to share unused quota with."""
    borrowing_limit_percent: NotRequired[int]
    """Cap on borrowing, in percent of each pool's capacity (needs ``cohort``; default unlimited)."""
    lending_limit_percent: NotRequired[int]
    """Cap on what the cohort may borrow from this queue, 0-100 percent of its quota (of its share of a
    shared pool; needs ``cohort``)."""
    queueing_strategy: NotRequired[QueueingStrategyValue]
    """``BestEffortFIFO`` (default) or ``StrictFIFO``."""
    preemption: NotRequired[PreemptionArgs]
    """Preemption policy."""


@with_config(ARGS_CONFIG)
class TeamArgs(TypedDict):
    """A team: a namespace with a LocalQueue pointing at one ClusterQueue."""

    name: str
    """Team name; also the namespace unless ``namespace`` is set."""
    cluster_queue: str
    """The ClusterQueue this team's LocalQueue points at."""
    namespace: NotRequired[str]
    """Default: the team name. Created and labelled so its ClusterQueue admits it."""
    queue_name: NotRequired[str]
    """The LocalQueue jobs name in ``kueue.x-k8s.io/queue-name``; default ``DEFAULT_LOCAL_QUEUE``."""
    retain_namespace: NotRequired[bool]
    """Keep the namespace, and everything in it, when the team (or Kueue) is removed from the stack;
    default true. False deletes it with the team: every job, model and secret in it."""


@with_config(ARGS_CONFIG)
class SystemFlavorArgs(TypedDict):
    """The untainted CPU nodes as Kueue's first flavor, so CPU-only jobs of team namespaces land there and
    not on a GPU pool (``SYSTEM_FLAVOR_NAME``, listed first in every ClusterQueue with 0 of every GPU
    resource). Its cpu/memory quota is split evenly over the ClusterQueues; queues of one cohort borrow
    each other's unused share."""

    enabled: NotRequired[bool]
    """Default true when the library created the cluster (its system pool is known), or when ``node_labels``
    is given; false on existing or attached clusters otherwise (CPU-only jobs of team namespaces are then
    admitted on the first GPU flavor and run on GPU nodes)."""
    node_labels: NotRequired[Mapping[str, str]]
    """Labels of the CPU nodes CPU-only jobs may use. Default on created clusters: the system pool's
    ``gpu-platform.io/pool-role: system``. Existing/attached clusters: required to get a system flavor.
    Given, it needs ``cpus`` and ``memory_gib``."""
    cpus: NotRequired[int]
    """Cores CPU-only jobs may request in total (all queues); default: the system pool's allocatable CPU x
    its ``max_nodes``, less the GPU Operator's node agent. At most that on created clusters."""
    memory_gib: NotRequired[int]
    """GiB CPU-only jobs may request in total; default as for ``cpus``."""


@with_config(ARGS_CONFIG)
class PriorityClassArgs(TypedDict):
    """A Kueue WorkloadPriorityClass."""

    name: str
    """Name of the ``WorkloadPriorityClass``; jobs select it with the label ``kueue.x-k8s.io/priority-class``."""
    value: int
    """32-bit integer; higher preempts lower."""
    description: NotRequired[str]
    """Free text stored on the object, for people reading it with ``kubectl``."""


@with_config(ARGS_CONFIG)
class KueueSettings(TypedDict):
    """Kueue settings shared by the stack file (``kueue``) and ``KueueArgs``."""

    wait_for_pods_ready: NotRequired[WaitForPodsReadyArgs]
    """Gang admission; on by default."""
    system_flavor: NotRequired[SystemFlavorArgs]
    """The CPU flavor for CPU-only jobs; see ``SystemFlavorArgs`` for its defaults."""
    vm_memory_overhead_percent: NotRequired[float]
    """Percent of each node's nominal memory the kernel and firmware keep, subtracted before the cloud's
    published reservation (0 to 50); default ``DEFAULT_VM_MEMORY_OVERHEAD`` (7.5, Karpenter's default).
    Lower it to what ``kubectl get node`` shows for your machines. Not used on existing clusters, where
    pools declare their allocatable."""
    integrations: NotRequired[Sequence[str]]
    """Kueue ``integrations.frameworks``; default ``DEFAULT_INTEGRATIONS``."""
    cluster_queues: NotRequired[Sequence[ClusterQueueArgs]]
    """Default: one ClusterQueue ``gpu`` over every pool."""
    teams: NotRequired[Sequence[TeamArgs]]
    """Team namespaces and their LocalQueues."""
    priority_classes: NotRequired[Sequence[PriorityClassArgs]]
    """Default: ``inference-high`` (1000), ``training`` (500), ``batch-low`` (100)."""
    values: NotRequired[Mapping[str, Any]]
    """Escape hatch: extra chart values, deep-merged under the typed ones (typed values win)."""


class KueueArgs(KueueSettings):
    """Kueue over GPU pools (``Kueue``). Plain values: they decide which objects and quotas exist."""

    cloud: CloudValue
    """``gke``, ``eks``, ``aks`` or ``existing``: how ``pools`` resolve (machine types vs declared GPUs)."""
    pools: Sequence[GpuPoolArgs]
    """The cluster's GPU pools, exactly as given to the node pools."""
    namespace: NotRequired[str]
    """Where the controller runs; default ``versions.KUEUE.namespace``."""
    cuda_version: NotRequired[str]
    """CUDA ``major.minor`` of the images, for pools without their own ``cuda_version``."""
    system_pool: NotRequired[SystemPoolArgs]
    """GKE/EKS/AKS: the system pool exactly as given to the cluster component (``GkeCluster`` ...), which
    labels its nodes ``gpu-platform.io/pool-role: system``; the system flavor's quota is its allocatable.
    Without it there is no system flavor unless ``system_flavor.node_labels`` is given."""
    gpu_operator: NotRequired[GpuOperatorSection]
    """The settings given to ``GpuOperator`` (driver owner, DCGM exporter; ``enabled: false`` when no GPU
    Operator runs): the requests of the operands it runs on every GPU node are taken off the quota.
    Default: the operator's defaults; on existing clusters without ``driver.owner`` the operator is
    assumed to install the driver (the larger reservation)."""
    gpu_health_checks: NotRequired[bool]
    """``GpuObservability``'s GPU health checks run on the GPU nodes (its ``health_checks``, on by default there):
    their pod's requests are taken off the quota too. Default false."""
    mirror: NotRequired[MirrorArgs]
    """Pull the chart and its images from a mirror; default: upstream."""
