"""gpu-platform: Pulumi components that turn a managed Kubernetes cluster into a GPU platform.

The public face: every component and its arguments type. Importing the package loads no cloud SDK;
each component module is imported on first use, and its cloud SDK only when it creates resources.

    from gpu_platform import GkeCluster, GkeGpuNodePool, GpuOperator
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version
from typing import TYPE_CHECKING, Any

from gpu_platform import _moved
from gpu_platform.addons.docker_host.settings import GpuDockerHostArgs, HostCloud, HostCloudName
from gpu_platform.addons.dra.settings import DraDriverArgs
from gpu_platform.addons.kserve.service_settings import GpuInferenceServiceArgs
from gpu_platform.addons.kueue.settings import (
    BorrowWithinCohort,
    BorrowWithinCohortName,
    KueueArgs,
    QueueingStrategy,
    QueueingStrategyName,
    ReclaimWithinCohort,
    ReclaimWithinCohortName,
    RequeueTimestamp,
    RequeueTimestampName,
    WithinClusterQueue,
    WithinClusterQueueName,
)
from gpu_platform.addons.observability.settings import (
    GpuObservabilityArgs,
    MetricsBackend,
    MetricsBackendName,
)
from gpu_platform.addons.slurm.settings import LoginServiceType, LoginServiceTypeName, SlurmClusterArgs
from gpu_platform.addons.workloads.settings import (
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
from gpu_platform.args import CertManagerArgs, GpuOperatorArgs, GpuPoolArgs, KServeArgs
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
from gpu_platform.args.operators import (
    DeploymentMode,
    DeploymentModeName,
)
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
from gpu_platform.stack.platform_args import GpuPlatformArgs

if TYPE_CHECKING:
    from gpu_platform.addons.cert_manager.component import CertManager
    from gpu_platform.addons.dra.component import DraDriver
    from gpu_platform.addons.gpu_operator.component import GpuOperator
    from gpu_platform.addons.kserve.component import KServe
    from gpu_platform.addons.kserve.service import GpuInferenceService
    from gpu_platform.addons.kueue.component import Kueue
    from gpu_platform.addons.observability.component import GpuObservability
    from gpu_platform.addons.slurm.component import SlurmCluster
    from gpu_platform.addons.volcano.component import Volcano
    from gpu_platform.addons.workloads.component import JobSet, KubeflowTrainer, KubeRay, LeaderWorkerSet
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
    from gpu_platform.stack.platform import GpuPlatform

_moved.install()

try:
    __version__ = _version("gpu-platform")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

_COMPONENTS: tuple[str, ...] = (
    "GpuPlatform",
    "GkeCluster",
    "EksCluster",
    "AksCluster",
    "GkeGpuNodePool",
    "EksGpuNodePool",
    "AksGpuNodePool",
    "GpuOperator",
    "Kueue",
    "CertManager",
    "KServe",
    "GpuInferenceService",
    "ClusterAutoscaler",
    "EfaDevicePlugin",
    "NetworkOperator",
    "GkeGpuDirect",
    "JobSet",
    "LeaderWorkerSet",
    "KubeflowTrainer",
    "KubeRay",
    "Volcano",
    "SlurmCluster",
    "GpuObservability",
    "DraDriver",
    "EksKarpenter",
    "EksKarpenterGpuNodePool",
    "AksNapGpuNodePool",
    "GkeGpuComputeClass",
    "OpenShiftGpuMachineSet",
    "GpuDockerHost",
)
"""The component classes, each imported on first attribute access (``_component``)."""


def _component(name: str) -> Any:
    """The class ``name``, its module imported now: pulumi_kubernetes, and a cloud SDK only when it creates
    resources. Plain imports (not ``import_module``), so the import contracts see every edge."""
    if name == "GpuPlatform":
        from gpu_platform.stack import platform as stack_platform

        return getattr(stack_platform, name)
    if name == "GkeCluster":
        from gpu_platform.clouds.gke import cluster as gke_cluster

        return getattr(gke_cluster, name)
    if name == "EksCluster":
        from gpu_platform.clouds.eks import cluster as eks_cluster

        return getattr(eks_cluster, name)
    if name == "AksCluster":
        from gpu_platform.clouds.aks import cluster as aks_cluster

        return getattr(aks_cluster, name)
    if name == "GkeGpuNodePool":
        from gpu_platform.clouds.gke import node_pool as gke_node_pool

        return getattr(gke_node_pool, name)
    if name == "EksGpuNodePool":
        from gpu_platform.clouds.eks import node_pool as eks_node_pool

        return getattr(eks_node_pool, name)
    if name == "AksGpuNodePool":
        from gpu_platform.clouds.aks import node_pool as aks_node_pool

        return getattr(aks_node_pool, name)
    if name == "GpuOperator":
        from gpu_platform.addons.gpu_operator import component as gpu_operator_component

        return getattr(gpu_operator_component, name)
    if name == "Kueue":
        from gpu_platform.addons.kueue import component as kueue_component

        return getattr(kueue_component, name)
    if name == "CertManager":
        from gpu_platform.addons.cert_manager import component as cert_manager_component

        return getattr(cert_manager_component, name)
    if name == "KServe":
        from gpu_platform.addons.kserve import component as kserve_component

        return getattr(kserve_component, name)
    if name == "GpuInferenceService":
        from gpu_platform.addons.kserve import service as kserve_service

        return getattr(kserve_service, name)
    if name == "ClusterAutoscaler":
        from gpu_platform.clouds.eks import cluster_autoscaler as eks_cluster_autoscaler

        return getattr(eks_cluster_autoscaler, name)
    if name == "EfaDevicePlugin":
        from gpu_platform.clouds.eks import efa as eks_efa

        return getattr(eks_efa, name)
    if name == "NetworkOperator":
        from gpu_platform.clouds.aks import network_operator as aks_network_operator

        return getattr(aks_network_operator, name)
    if name == "GkeGpuDirect":
        from gpu_platform.clouds.gke import gpudirect as gke_gpudirect

        return getattr(gke_gpudirect, name)
    if name in ("JobSet", "LeaderWorkerSet", "KubeflowTrainer", "KubeRay"):
        from gpu_platform.addons.workloads import component as workloads_component

        return getattr(workloads_component, name)
    if name == "Volcano":
        from gpu_platform.addons.volcano import component as volcano_component

        return getattr(volcano_component, name)
    if name == "SlurmCluster":
        from gpu_platform.addons.slurm import component as slurm_component

        return getattr(slurm_component, name)
    if name == "GpuObservability":
        from gpu_platform.addons.observability import component as observability_component

        return getattr(observability_component, name)
    if name == "DraDriver":
        from gpu_platform.addons.dra import component as dra_component

        return getattr(dra_component, name)
    if name == "EksKarpenter":
        from gpu_platform.clouds.eks import karpenter as eks_karpenter

        return getattr(eks_karpenter, name)
    if name == "EksKarpenterGpuNodePool":
        from gpu_platform.clouds.eks import karpenter_node_pool as eks_karpenter_node_pool

        return getattr(eks_karpenter_node_pool, name)
    if name == "AksNapGpuNodePool":
        from gpu_platform.clouds.aks import nap_node_pool as aks_nap_node_pool

        return getattr(aks_nap_node_pool, name)
    if name == "GkeGpuComputeClass":
        from gpu_platform.clouds.gke import compute_class as gke_compute_class

        return getattr(gke_compute_class, name)
    if name == "OpenShiftGpuMachineSet":
        from gpu_platform.clouds.openshift import machine_set as openshift_machine_set

        return getattr(openshift_machine_set, name)
    if name == "GpuDockerHost":
        from gpu_platform import docker_host as docker_host

        return getattr(docker_host, name)
    raise AttributeError(f"module 'gpu_platform' has no attribute {name!r}")


def __getattr__(name: str) -> Any:
    return _component(name)


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
