"""``GpuFleet`` arguments: one manager cluster that queues, worker clusters that run, one declaration of queues.

No ``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

import enum
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, NotRequired, TypeAlias

import pulumi
from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform.addons.kueue.settings import ClusterQueueArgs, PriorityClassArgs, SystemFlavorArgs, TeamArgs
from gpu_platform.args.cluster import StackReferenceArgs, SystemPoolArgs
from gpu_platform.args.common import CloudValue
from gpu_platform.args.operators import GpuOperatorSection
from gpu_platform.args.pool import GpuPoolArgs
from gpu_platform.args.validate import ARGS_CONFIG


class Dispatcher(enum.StrEnum):
    """How the manager picks the worker clusters a workload is copied to (Kueue ``multiKueue.dispatcherName``)."""

    ALL_AT_ONCE = "AllAtOnce"
    """Copied to every worker of its queue at once; the first to admit it runs it, the others drop their copy
    (Kueue's default)."""
    INCREMENTAL = "Incremental"
    """Copied to a few workers at a time, in the order the queue lists them, more after a while if none admits
    it: preferred clusters first."""


DispatcherName = Literal["AllAtOnce", "Incremental"]
"""``Dispatcher``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    DispatcherValue: TypeAlias = Dispatcher | DispatcherName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    DispatcherValue = Dispatcher

DEFAULT_DISPATCHER = Dispatcher.ALL_AT_ONCE
MULTIKUEUE_SERVICE_ACCOUNT = "multikueue-sa"
"""The ServiceAccount the manager acts as on each worker (the name Kueue's setup script uses)."""


@with_config(ARGS_CONFIG)
class FleetManagerArgs(TypedDict):
    """The manager cluster: it holds the queues and copies each admitted workload to a worker. It runs no GPU
    jobs itself, so it needs no GPU pools (an existing cluster, or a small GKE/EKS/AKS one)."""

    kubeconfig: pulumi.Input[str]
    """How the fleet reaches the cluster (a Pulumi secret, as a cluster component's ``kubeconfig`` output)."""
    kueue_version: NotRequired[str]
    """Set when Kueue is installed here outside the fleet (``vX.Y.Z``, the release it runs; it must have
    ``multiKueue.dispatcherName`` set as ``dispatcher`` says): the fleet then creates only its objects here.
    Unset: the fleet installs Kueue at the library's pin. Every cluster of a fleet runs the same release: the
    manager copies Workload objects to the workers in its own API."""
    controllers: NotRequired[Sequence[str]]
    """The job controllers installed here (``jobset``, ``trainer``, ``kuberay``, ``leaderWorkerSet``, by their
    platform's ``workloads`` section): the manager needs each framework's CRDs to queue its jobs."""


@with_config(ARGS_CONFIG)
class FleetWorkerArgs(TypedDict):
    """A worker cluster: its GPU pools are the quota of the fleet's queues there. Its platform creates the cluster,
    the pools and the GPU Operator, with its Kueue off (``kueue.enabled: false``): the fleet installs Kueue."""

    name: str
    """DNS label: the worker's ``MultiKueueCluster`` on the manager, and what queues list in ``workers``."""
    kubeconfig: pulumi.Input[str]
    """How the fleet reaches the cluster (a Pulumi secret). Only used to create the fleet's objects there: the
    manager gets a kubeconfig of its own, a token of a ServiceAccount limited to what MultiKueue needs."""
    cloud: CloudValue
    """``gke``, ``eks``, ``aks``, ``existing``, ...: how ``pools`` resolve."""
    pools: Sequence[GpuPoolArgs]
    """The worker's GPU pools, exactly as given to its node pools (their names are the queues' ``pools``)."""
    cuda_version: NotRequired[str]
    """CUDA ``major.minor`` of the images, for pools without their own ``cuda_version``."""
    system_pool: NotRequired[SystemPoolArgs]
    """The system pool of a cluster the library creates (as its ``cluster.system_pool``): the default system
    flavor, as on a platform's own Kueue."""
    system_flavor: NotRequired[SystemFlavorArgs]
    """The worker's CPU nodes as Kueue's first flavor (see ``SystemFlavorArgs``)."""
    gpu_operator: NotRequired[GpuOperatorSection]
    """The settings its platform gives the GPU Operator: its operands' requests are taken off the quota."""
    kueue_version: NotRequired[str]
    """Set when Kueue is installed here outside the fleet (the release it runs; that Kueue must declare none of
    the fleet's pools, queues or teams): the fleet then creates only its objects here. Unset: the fleet installs
    Kueue at the library's pin. The same release on every cluster of the fleet."""
    controllers: NotRequired[Sequence[str]]
    """The job controllers its platform installs (``jobset``, ``trainer``, ``kuberay``, ``leaderWorkerSet``)."""


@with_config(ARGS_CONFIG)
class FleetQueueArgs(ClusterQueueArgs):
    """A ClusterQueue on the manager that dispatches to workers, and its mirror on each of them (quota: the
    worker's own pools among ``pools``)."""

    workers: NotRequired[Sequence[str]]
    """Workers it dispatches to, most preferred first (the ``Incremental`` dispatcher follows this order); each
    has at least one of its ``pools``. Default: every worker."""
    frameworks: NotRequired[Sequence[str]]
    """Kueue frameworks its jobs use beyond ``batch/job`` (``jobset.x-k8s.io/jobset``,
    ``trainer.kubeflow.org/trainjob``, ``ray.io/rayjob``, ...): the manager and every worker of the queue must
    run their controller (``controllers``)."""
    largest_gang_gpus: NotRequired[int]
    """Whole GPUs (``nvidia.com/gpu``) of the largest job this queue takes: each of its workers must hold that
    many in the queue's quota, or the job, admitted by the manager, can never start there."""


@with_config(ARGS_CONFIG)
class FleetQueuesArgs(TypedDict):
    """The fleet's queues and teams: one declaration for the manager and every worker."""

    cluster_queues: Sequence[FleetQueueArgs]
    """The queues, each with its ``pools`` listed; the same on the manager and on every worker it names."""
    teams: Sequence[TeamArgs]
    """Team namespaces and LocalQueues, created on the manager and on every worker of their queue (MultiKueue
    needs the job's namespace and LocalQueue on the worker)."""
    priority_classes: NotRequired[Sequence[PriorityClassArgs]]
    """WorkloadPriorityClasses, on every cluster; default the Kueue add-on's."""
    dispatcher: NotRequired[DispatcherValue]
    """``AllAtOnce`` (default) or ``Incremental``."""


class GpuFleetArgs(FleetQueuesArgs):
    """A MultiKueue fleet (``GpuFleet``): one manager, several workers, one declaration of queues and teams."""

    manager: FleetManagerArgs
    """The cluster that queues and dispatches."""
    workers: Sequence[FleetWorkerArgs]
    """The clusters that run the jobs (up to 20 per queue, Kueue's ``MultiKueueConfig`` limit)."""


@with_config(ARGS_CONFIG)
class FleetStackManagerArgs(TypedDict):
    """A manager stack's cluster: one made elsewhere (it runs no GPU job), reached by its kubeconfig."""

    kubeconfig: NotRequired[str]
    """The manager cluster's kubeconfig, as a ``secure:`` value (or ``kubeconfig_stack_reference``)."""
    kubeconfig_stack_reference: NotRequired[StackReferenceArgs]
    """Read the manager's kubeconfig from another stack's output instead (the stack that made the cluster)."""
    kueue_version: NotRequired[str]
    """As ``FleetManagerArgs.kueue_version``."""
    controllers: NotRequired[Sequence[str]]
    """As ``FleetManagerArgs.controllers``: the job controllers installed on the manager cluster."""


@with_config(ARGS_CONFIG)
class FleetStackWorkerArgs(TypedDict):
    """A worker of a manager stack: a stack of this library whose outputs describe it."""

    name: str
    """DNS label: the worker's ``MultiKueueCluster``, and what queues list in ``workers``."""
    stack: str
    """The worker's fully qualified stack name (``org/project/stack``): its ``kubeconfig`` output (a secret)
    reaches it, its ``fleetWorker`` output gives its cloud, GPU pools, GPU Operator settings, system pool and
    job controllers. That stack runs no Kueue of its own (``kueue.enabled: false``)."""


@with_config(ARGS_CONFIG)
class FleetStackArgs(FleetQueuesArgs):
    """``gpu-platform:fleet``: a manager stack. Its file holds only this key: the manager cluster, the worker
    stacks by name, and the queues and teams of the whole fleet."""

    manager: FleetStackManagerArgs
    """The manager cluster."""
    workers: Sequence[FleetStackWorkerArgs]
    """The worker stacks."""
