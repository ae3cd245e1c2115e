"""The workload layer: the controllers behind Kueue's integrations (JobSet, LeaderWorkerSet, Kubeflow
Trainer, KubeRay) and Volcano, the other gang scheduler.

One definition for the stack file (``workloads``, ``volcano``) and the components' ``*Args``. No
``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

import enum
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypeAlias

from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform.args.common import CloudValue
from gpu_platform.args.mirror import MirrorArgs
from gpu_platform.args.pool import GpuPoolArgs
from gpu_platform.args.validate import ARGS_CONFIG


class Controller(enum.StrEnum):
    """A workload controller whose objects Kueue can queue (``installed_elsewhere`` names these)."""

    JOBSET = "jobset"
    """JobSet (``jobset.x-k8s.io/jobset``)."""
    LEADER_WORKER_SET = "leaderWorkerSet"
    """LeaderWorkerSet (``leaderworkerset.x-k8s.io/leaderworkerset``)."""
    TRAINER = "trainer"
    """Kubeflow Trainer v2 (``trainer.kubeflow.org/trainjob``)."""
    KUBERAY = "kuberay"
    """KubeRay (``ray.io/rayjob``, ``ray.io/raycluster``, ``ray.io/rayservice``)."""
    TRAINING_OPERATOR = "trainingOperator"
    """Kubeflow Training Operator v1 (``kubeflow.org/pytorchjob``, ``tfjob``, ``paddlejob``, ``xgboostjob``,
    ``jaxjob``); the library does not install it."""
    MPI_OPERATOR = "mpiOperator"
    """Kubeflow MPI Operator (``kubeflow.org/mpijob``); not installed by the library."""
    APPWRAPPER = "appWrapper"
    """AppWrapper (``workload.codeflare.dev/appwrapper``); not installed by the library."""
    SPARK_OPERATOR = "sparkOperator"
    """Spark Operator (``sparkoperator.k8s.io/sparkapplication``); not installed by the library."""


ControllerName = Literal[
    "jobset",
    "leaderWorkerSet",
    "trainer",
    "kuberay",
    "trainingOperator",
    "mpiOperator",
    "appWrapper",
    "sparkOperator",
]
"""``Controller``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    ControllerValue: TypeAlias = Controller | ControllerName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    ControllerValue = Controller


class TrainingRuntime(enum.StrEnum):
    """Kubeflow Trainer's built-in ClusterTrainingRuntimes the library creates."""

    TORCH = "torch"
    """``torch-distributed``: torchrun over the TrainJob's nodes."""
    DEEPSPEED = "deepspeed"
    """``deepspeed-distributed``: DeepSpeed over OpenMPI (launcher + nodes)."""


TrainingRuntimeName = Literal["torch", "deepspeed"]
"""``TrainingRuntime``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    TrainingRuntimeValue: TypeAlias = TrainingRuntime | TrainingRuntimeName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    TrainingRuntimeValue = TrainingRuntime


class GangScheduler(enum.StrEnum):
    """Who keeps a controller's multi-pod workloads all-or-nothing."""

    KUEUE = "kueue"
    """Kueue admits the whole workload at once (``waitForPodsReady``); the controller itself does nothing."""
    VOLCANO = "volcano"
    """The controller creates Volcano PodGroups and its pods use the ``volcano`` scheduler."""


GangSchedulerName = Literal["kueue", "volcano"]
"""``GangScheduler``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    GangSchedulerValue: TypeAlias = GangScheduler | GangSchedulerName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    GangSchedulerValue = GangScheduler


DEFAULT_TRAINING_RUNTIMES: tuple[str, ...] = (TrainingRuntime.TORCH.value, TrainingRuntime.DEEPSPEED.value)
DEFAULT_GANG_SCHEDULER = GangScheduler.KUEUE.value
DEFAULT_VOLCANO_BORROWING = True


@with_config(ARGS_CONFIG)
class ControllerSection(TypedDict):
    """One controller in the stack file's ``workloads`` section."""

    enabled: NotRequired[bool]
    """Install it (default false)."""
    values: NotRequired[Mapping[str, Any]]
    """Escape hatch: extra chart values (upstream ``values.yaml`` keys), deep-merged under the library's;
    the library's placement, image pins and scheduler settings win."""


@with_config(ARGS_CONFIG)
class TrainerSection(ControllerSection):
    """``workloads.trainer``: Kubeflow Trainer v2."""

    runtimes: NotRequired[Sequence[TrainingRuntimeValue]]
    """Built-in ClusterTrainingRuntimes to create: ``torch``, ``deepspeed`` (default both; ``[]`` for none)."""


@with_config(ARGS_CONFIG)
class WorkloadsSettings(TypedDict):
    """``workloads``: the controllers Kueue's integrations (or Volcano) schedule for."""

    jobset: NotRequired[ControllerSection]
    """JobSet (multi-node jobs; Kubeflow Trainer runs TrainJobs as JobSets)."""
    leader_worker_set: NotRequired[ControllerSection]
    """LeaderWorkerSet (one model served across several GPU nodes, e.g. vLLM)."""
    trainer: NotRequired[TrainerSection]
    """Kubeflow Trainer v2 (TrainJob); needs JobSet."""
    kuberay: NotRequired[ControllerSection]
    """KubeRay (RayCluster, RayJob, RayService)."""
    installed_elsewhere: NotRequired[Sequence[ControllerValue]]
    """Controllers the cluster already runs (installed outside this stack); their Kueue integrations are
    enabled too. A controller the stack installs cannot be listed."""
    node_selector: NotRequired[Mapping[str, str]]
    """Node labels the controllers' pods select. Default: ``kubernetes.azure.com/mode: system`` on AKS (AKS's label
    of System-mode pools), none elsewhere. Controllers never tolerate the GPU taint, and a required node affinity
    keeps them off every node labelled ``gpu-platform.io/pool``."""


class WorkloadControllerArgs(TypedDict):
    """Shared by the controller components (``JobSet``, ``LeaderWorkerSet``, ``KubeflowTrainer``, ``KubeRay``)."""

    node_selector: NotRequired[Mapping[str, str]]
    """Node labels the controller's pods select (the system pool); default none. They never tolerate the GPU
    taint, and a required node affinity keeps them off every node labelled ``gpu-platform.io/pool``."""
    values: NotRequired[Mapping[str, Any]]
    """Escape hatch: extra chart values, deep-merged under the library's (the library's win)."""
    mirror: NotRequired[MirrorArgs]
    """Pull the chart and its images (Trainer's runtimes' too) from a mirror; default: upstream."""


class JobSetArgs(WorkloadControllerArgs):
    """JobSet from its pinned chart (``versions.JOBSET``) in ``jobset-system``."""


class LeaderWorkerSetArgs(WorkloadControllerArgs):
    """LeaderWorkerSet from its pinned chart (``versions.LEADER_WORKER_SET``) in ``lws-system``."""

    gang_scheduler: NotRequired[GangSchedulerValue]
    """``kueue`` (default: Kueue admits each group whole) or ``volcano`` (LWS creates a Volcano PodGroup per
    group, ``gangSchedulingManagement.schedulerProvider``; pods must set ``schedulerName: volcano``)."""


class KubeRayArgs(WorkloadControllerArgs):
    """The KubeRay operator from its pinned chart (``versions.KUBERAY_OPERATOR``) in ``kuberay-system``."""

    gang_scheduler: NotRequired[GangSchedulerValue]
    """``kueue`` (default) or ``volcano`` (``batchScheduler.name: volcano``: every RayCluster and RayJob the
    operator reconciles gets a Volcano PodGroup and the ``volcano`` scheduler)."""


class KubeflowTrainerArgs(WorkloadControllerArgs):
    """Kubeflow Trainer v2 from its pinned chart (``versions.KUBEFLOW_TRAINER``) in ``kubeflow-system``, with
    its built-in ClusterTrainingRuntimes created from the upstream manifests."""

    runtimes: NotRequired[Sequence[TrainingRuntimeValue]]
    """``torch``, ``deepspeed`` (default both)."""
    gang_scheduler: NotRequired[GangSchedulerValue]
    """``kueue`` (default) or ``volcano`` (the runtimes get ``podGroupPolicy.volcano`` and
    ``schedulerName: volcano``)."""
    install_jobset: NotRequired[bool]
    """Let the Trainer chart install JobSet as its subchart (``jobset.install``). Default false: install JobSet
    with the ``JobSet`` component (the same 0.12.0 chart) and make this depend on it."""


@with_config(ARGS_CONFIG)
class VolcanoTeamArgs(TypedDict):
    """A team: a Volcano Queue and the namespace its jobs run in."""

    name: str
    """Queue name (DNS label; not ``default`` or ``root``, which Volcano owns)."""
    namespace: NotRequired[str]
    """Default: the team name. Created, and never a Kueue team's namespace."""
    pools: NotRequired[Sequence[str]]
    """Pools whose capacity is this team's ``deserved`` share (default: every Volcano pool). A pool is
    deserved by one team only (the other teams borrow it while it is idle)."""
    borrowing: NotRequired[bool]
    """Use the idle capacity of the other teams' pools (``capability`` = every Volcano pool; Volcano reclaims
    it when its owner needs it). Default true; false: ``capability`` = ``deserved``."""


@with_config(ARGS_CONFIG)
class VolcanoSettings(TypedDict):
    """Volcano settings shared by the stack file (``volcano``) and ``VolcanoArgs``."""

    teams: NotRequired[Sequence[VolcanoTeamArgs]]
    """Team queues; default none (jobs use Volcano's ``default`` queue, without a quota)."""
    values: NotRequired[Mapping[str, Any]]
    """Escape hatch: extra chart values (the library's placement and scheduler configuration win)."""


class VolcanoArgs(VolcanoSettings):
    """Volcano from its pinned chart (``versions.VOLCANO``) with a Queue per team over the GPU pools."""

    cloud: CloudValue
    """``gke``, ``eks``, ``aks`` or ``existing``: how ``pools`` resolve."""
    pools: Sequence[GpuPoolArgs]
    """The GPU pools Volcano schedules (never pools that are a Kueue queue's quota), exactly as given to the
    node pools."""
    mirror: NotRequired[MirrorArgs]
    """Pull the chart and its images from a mirror; default: upstream."""
    cuda_version: NotRequired[str]
    """CUDA ``major.minor`` of the images, for pools without their own ``cuda_version``."""
    node_selector: NotRequired[Mapping[str, str]]
    """Node labels Volcano's own pods select (the system pool); default none."""
