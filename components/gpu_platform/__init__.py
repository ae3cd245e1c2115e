"""gpu-platform: Pulumi components that turn a managed Kubernetes cluster into a GPU platform.

The public face: every component and its arguments type. Importing the package loads no cloud SDK;
each component module is imported on first use, and its cloud SDK only when it creates resources.

    from gpu_platform import GkeCluster, GkeGpuNodePool, GpuOperator
"""

from importlib import import_module
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version
from typing import TYPE_CHECKING, Any

from gpu_platform import _moved
from gpu_platform.args import (
    CertManagerArgs,
    GpuInferenceServiceArgs,
    GpuOperatorArgs,
    GpuPoolArgs,
    KServeArgs,
    KueueArgs,
)
from gpu_platform.args.autoprovisioning import DisruptionReason, DisruptionReasonName
from gpu_platform.args.autoscaling import EksAutoscaler, EksAutoscalerName
from gpu_platform.args.cluster import (
    ReleaseChannel,
    ReleaseChannelName,
)
from gpu_platform.args.common import (
    Cloud,
    CloudName,
    DriverOwner,
    DriverOwnerName,
)
from gpu_platform.args.docker_host import GpuDockerHostArgs, HostCloud, HostCloudName
from gpu_platform.args.dra import DraDriverArgs
from gpu_platform.args.kueue import (
    BorrowWithinCohort,
    BorrowWithinCohortName,
    QueueingStrategy,
    QueueingStrategyName,
    ReclaimWithinCohort,
    ReclaimWithinCohortName,
    RequeueTimestamp,
    RequeueTimestampName,
    WithinClusterQueue,
    WithinClusterQueueName,
)
from gpu_platform.args.observability import GpuObservabilityArgs, MetricsBackend, MetricsBackendName
from gpu_platform.args.operators import (
    DeploymentMode,
    DeploymentModeName,
)
from gpu_platform.args.platform import GpuPlatformArgs
from gpu_platform.args.pool import (
    CapacitySource,
    CapacitySourceName,
    CapacityType,
    CapacityTypeName,
    DeviceAllocation,
    DeviceAllocationName,
    ManagedBy,
    ManagedByName,
    MigStrategy,
    MigStrategyName,
    ReservationAffinity,
    ReservationAffinityName,
    SharingMode,
    SharingModeName,
    TaintEffect,
    TaintEffectName,
)
from gpu_platform.args.slurm import LoginServiceType, LoginServiceTypeName, SlurmClusterArgs
from gpu_platform.args.workloads import (
    Controller,
    ControllerName,
    GangScheduler,
    GangSchedulerName,
    JobSetArgs,
    KubeflowTrainerArgs,
    KubeRayArgs,
    LeaderWorkerSetArgs,
    TrainingRuntime,
    TrainingRuntimeName,
    VolcanoArgs,
)

# Enum-valued settings: each enum and ``<Enum>Name``, the Literal of its strings (both are accepted).
from gpu_platform.clouds.aks.args import (
    AksClusterArgs,
    AksGpuNodePoolArgs,
    AksNapGpuNodePoolArgs,
    NetworkOperatorArgs,
)
from gpu_platform.clouds.eks.args import (
    AutoscalerIam,
    AutoscalerIamName,
    ClusterAutoscalerArgs,
    EfaDevicePluginArgs,
    EksClusterArgs,
    EksGpuNodePoolArgs,
    EksKarpenterArgs,
    EksKarpenterGpuNodePoolArgs,
)
from gpu_platform.clouds.gke.args import (
    GkeClusterArgs,
    GkeDriverVersion,
    GkeDriverVersionName,
    GkeGpuComputeClassArgs,
    GkeGpuDirectArgs,
    GkeGpuNodePoolArgs,
)
from gpu_platform.clouds.openshift.args import OpenShiftGpuMachineSetArgs
from gpu_platform.errors import ArgumentsError, ConfigError

if TYPE_CHECKING:
    from gpu_platform.clouds.aks.cluster import AksCluster

    # DRA and node auto-provisioning
    from gpu_platform.clouds.aks.nap_node_pool import AksNapGpuNodePool
    from gpu_platform.clouds.aks.network_operator import NetworkOperator
    from gpu_platform.clouds.aks.node_pool import AksGpuNodePool
    from gpu_platform.clouds.eks.cluster import EksCluster
    from gpu_platform.clouds.eks.cluster_autoscaler import ClusterAutoscaler
    from gpu_platform.clouds.eks.efa import EfaDevicePlugin
    from gpu_platform.clouds.eks.karpenter import EksKarpenter
    from gpu_platform.clouds.eks.karpenter_node_pool import EksKarpenterGpuNodePool
    from gpu_platform.clouds.eks.node_pool import EksGpuNodePool
    from gpu_platform.clouds.gke.cluster import GkeCluster
    from gpu_platform.clouds.gke.compute_class import GkeGpuComputeClass
    from gpu_platform.clouds.gke.gpudirect import GkeGpuDirect
    from gpu_platform.clouds.gke.node_pool import GkeGpuNodePool
    from gpu_platform.clouds.openshift.machine_set import OpenShiftGpuMachineSet
    from gpu_platform.docker_host import GpuDockerHost
    from gpu_platform.inference import GpuInferenceService
    from gpu_platform.operators.cert_manager import CertManager
    from gpu_platform.operators.dra import DraDriver
    from gpu_platform.operators.gpu_operator import GpuOperator
    from gpu_platform.operators.kserve import KServe
    from gpu_platform.operators.kueue import Kueue
    from gpu_platform.operators.observability import GpuObservability
    from gpu_platform.operators.slurm import SlurmCluster
    from gpu_platform.operators.volcano import Volcano
    from gpu_platform.operators.workloads import JobSet, KubeflowTrainer, KubeRay, LeaderWorkerSet
    from gpu_platform.stack.platform import GpuPlatform

_moved.install()

try:
    __version__ = _version("gpu-platform")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

_COMPONENTS = {
    "GpuPlatform": "gpu_platform.stack.platform",
    "GkeCluster": "gpu_platform.clouds.gke.cluster",
    "EksCluster": "gpu_platform.clouds.eks.cluster",
    "AksCluster": "gpu_platform.clouds.aks.cluster",
    "GkeGpuNodePool": "gpu_platform.clouds.gke.node_pool",
    "EksGpuNodePool": "gpu_platform.clouds.eks.node_pool",
    "AksGpuNodePool": "gpu_platform.clouds.aks.node_pool",
    "GpuOperator": "gpu_platform.operators.gpu_operator",
    "Kueue": "gpu_platform.operators.kueue",
    "CertManager": "gpu_platform.operators.cert_manager",
    "KServe": "gpu_platform.operators.kserve",
    "GpuInferenceService": "gpu_platform.inference",
    "ClusterAutoscaler": "gpu_platform.clouds.eks.cluster_autoscaler",
    "EfaDevicePlugin": "gpu_platform.clouds.eks.efa",
    "NetworkOperator": "gpu_platform.clouds.aks.network_operator",
    "GkeGpuDirect": "gpu_platform.clouds.gke.gpudirect",
    "JobSet": "gpu_platform.operators.workloads",
    "LeaderWorkerSet": "gpu_platform.operators.workloads",
    "KubeflowTrainer": "gpu_platform.operators.workloads",
    "KubeRay": "gpu_platform.operators.workloads",
    "Volcano": "gpu_platform.operators.volcano",
    "SlurmCluster": "gpu_platform.operators.slurm",
    "GpuObservability": "gpu_platform.operators.observability",
    # DRA and node auto-provisioning
    "DraDriver": "gpu_platform.operators.dra",
    "EksKarpenter": "gpu_platform.clouds.eks.karpenter",
    "EksKarpenterGpuNodePool": "gpu_platform.clouds.eks.karpenter_node_pool",
    "AksNapGpuNodePool": "gpu_platform.clouds.aks.nap_node_pool",
    "GkeGpuComputeClass": "gpu_platform.clouds.gke.compute_class",
    "OpenShiftGpuMachineSet": "gpu_platform.clouds.openshift.machine_set",
    # Single GPU hosts
    "GpuDockerHost": "gpu_platform.docker_host",
}
"""Component class -> module, imported on first attribute access."""


def __getattr__(name: str) -> Any:
    if name in _COMPONENTS:
        return getattr(import_module(_COMPONENTS[name]), name)
    raise AttributeError(f"module 'gpu_platform' has no attribute {name!r}")


__all__ = [
    "AksCluster",
    "AksClusterArgs",
    "AksGpuNodePool",
    "AksGpuNodePoolArgs",
    "AksNapGpuNodePool",
    "AksNapGpuNodePoolArgs",
    "ArgumentsError",
    "AutoscalerIam",
    "AutoscalerIamName",
    "BorrowWithinCohort",
    "BorrowWithinCohortName",
    "CapacitySource",
    "CapacitySourceName",
    "CapacityType",
    "CapacityTypeName",
    "CertManager",
    "CertManagerArgs",
    "Cloud",
    "CloudName",
    "ClusterAutoscaler",
    "ClusterAutoscalerArgs",
    "ConfigError",
    "Controller",
    "ControllerName",
    "DeploymentMode",
    "DeploymentModeName",
    "DeviceAllocation",
    "DeviceAllocationName",
    "DisruptionReason",
    "DisruptionReasonName",
    "DraDriver",
    "DraDriverArgs",
    "DriverOwner",
    "DriverOwnerName",
    "EfaDevicePlugin",
    "EfaDevicePluginArgs",
    "EksAutoscaler",
    "EksAutoscalerName",
    "EksCluster",
    "EksClusterArgs",
    "EksGpuNodePool",
    "EksGpuNodePoolArgs",
    "EksKarpenter",
    "EksKarpenterArgs",
    "EksKarpenterGpuNodePool",
    "EksKarpenterGpuNodePoolArgs",
    "GangScheduler",
    "GangSchedulerName",
    "GkeCluster",
    "GkeClusterArgs",
    "GkeDriverVersion",
    "GkeDriverVersionName",
    "GkeGpuComputeClass",
    "GkeGpuComputeClassArgs",
    "GkeGpuDirect",
    "GkeGpuDirectArgs",
    "GkeGpuNodePool",
    "GkeGpuNodePoolArgs",
    "GpuDockerHost",
    "GpuDockerHostArgs",
    "GpuInferenceService",
    "GpuInferenceServiceArgs",
    "GpuObservability",
    "GpuObservabilityArgs",
    "GpuOperator",
    "GpuOperatorArgs",
    "GpuPlatform",
    "GpuPlatformArgs",
    "GpuPoolArgs",
    "HostCloud",
    "HostCloudName",
    "JobSet",
    "JobSetArgs",
    "KServe",
    "KServeArgs",
    "KubeRay",
    "KubeRayArgs",
    "KubeflowTrainer",
    "KubeflowTrainerArgs",
    "Kueue",
    "KueueArgs",
    "LeaderWorkerSet",
    "LeaderWorkerSetArgs",
    "LoginServiceType",
    "LoginServiceTypeName",
    "ManagedBy",
    "ManagedByName",
    "MetricsBackend",
    "MetricsBackendName",
    "MigStrategy",
    "MigStrategyName",
    "NetworkOperator",
    "NetworkOperatorArgs",
    "OpenShiftGpuMachineSet",
    "OpenShiftGpuMachineSetArgs",
    "QueueingStrategy",
    "QueueingStrategyName",
    "ReclaimWithinCohort",
    "ReclaimWithinCohortName",
    "ReleaseChannel",
    "ReleaseChannelName",
    "RequeueTimestamp",
    "RequeueTimestampName",
    "ReservationAffinity",
    "ReservationAffinityName",
    "SharingMode",
    "SharingModeName",
    "SlurmCluster",
    "SlurmClusterArgs",
    "TaintEffect",
    "TaintEffectName",
    "TrainingRuntime",
    "TrainingRuntimeName",
    "Volcano",
    "VolcanoArgs",
    "WithinClusterQueue",
    "WithinClusterQueueName",
    "__version__",
]
