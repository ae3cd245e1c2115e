"""gpu-platform: Pulumi components that turn a managed Kubernetes cluster into a GPU platform.

The public face: every component and its arguments type. Importing the package loads no cloud SDK;
each component module is imported on first use, and its cloud SDK only when it creates resources.

    from gpu_platform import GkeCluster, GkeGpuNodePool, GpuOperator
"""

from collections.abc import Callable
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version
from types import ModuleType
from typing import TYPE_CHECKING, Any

from gpu_platform import _moved
from gpu_platform.addons.docker_host.settings import GpuDockerHostArgs, HostCloud, HostCloudName
from gpu_platform.addons.dra.settings import DraDriverArgs
from gpu_platform.addons.fleet.settings import Dispatcher, DispatcherName, GpuFleetArgs
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
from gpu_platform.addons.serving.settings import LlmServingArgs
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
    from gpu_platform.addons.fleet.component import GpuFleet
    from gpu_platform.addons.gpu_operator.component import GpuOperator
    from gpu_platform.addons.kserve.component import KServe
    from gpu_platform.addons.kserve.service import GpuInferenceService
    from gpu_platform.addons.kueue.component import Kueue
    from gpu_platform.addons.observability.component import GpuObservability
    from gpu_platform.addons.serving.component import LlmServing
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


def _stack_platform() -> ModuleType:
    from gpu_platform.stack import platform as stack_platform

    return stack_platform


def _gke_cluster() -> ModuleType:
    from gpu_platform.clouds.gke import cluster as gke_cluster

    return gke_cluster


def _eks_cluster() -> ModuleType:
    from gpu_platform.clouds.eks import cluster as eks_cluster

    return eks_cluster


def _aks_cluster() -> ModuleType:
    from gpu_platform.clouds.aks import cluster as aks_cluster

    return aks_cluster


def _gke_node_pool() -> ModuleType:
    from gpu_platform.clouds.gke import node_pool as gke_node_pool

    return gke_node_pool


def _eks_node_pool() -> ModuleType:
    from gpu_platform.clouds.eks import node_pool as eks_node_pool

    return eks_node_pool


def _aks_node_pool() -> ModuleType:
    from gpu_platform.clouds.aks import node_pool as aks_node_pool

    return aks_node_pool


def _gpu_operator_component() -> ModuleType:
    from gpu_platform.addons.gpu_operator import component as gpu_operator_component

    return gpu_operator_component


def _kueue_component() -> ModuleType:
    from gpu_platform.addons.kueue import component as kueue_component

    return kueue_component


def _cert_manager_component() -> ModuleType:
    from gpu_platform.addons.cert_manager import component as cert_manager_component

    return cert_manager_component


def _kserve_component() -> ModuleType:
    from gpu_platform.addons.kserve import component as kserve_component

    return kserve_component


def _kserve_service() -> ModuleType:
    from gpu_platform.addons.kserve import service as kserve_service

    return kserve_service


def _eks_cluster_autoscaler() -> ModuleType:
    from gpu_platform.clouds.eks import cluster_autoscaler as eks_cluster_autoscaler

    return eks_cluster_autoscaler


def _eks_efa() -> ModuleType:
    from gpu_platform.clouds.eks import efa as eks_efa

    return eks_efa


def _aks_network_operator() -> ModuleType:
    from gpu_platform.clouds.aks import network_operator as aks_network_operator

    return aks_network_operator


def _gke_gpudirect() -> ModuleType:
    from gpu_platform.clouds.gke import gpudirect as gke_gpudirect

    return gke_gpudirect


def _workloads_component() -> ModuleType:
    from gpu_platform.addons.workloads import component as workloads_component

    return workloads_component


def _serving_component() -> ModuleType:
    from gpu_platform.addons.serving import component as serving_component

    return serving_component


def _fleet_component() -> ModuleType:
    from gpu_platform.addons.fleet import component as fleet_component

    return fleet_component


def _volcano_component() -> ModuleType:
    from gpu_platform.addons.volcano import component as volcano_component

    return volcano_component


def _slurm_component() -> ModuleType:
    from gpu_platform.addons.slurm import component as slurm_component

    return slurm_component


def _observability_component() -> ModuleType:
    from gpu_platform.addons.observability import component as observability_component

    return observability_component


def _dra_component() -> ModuleType:
    from gpu_platform.addons.dra import component as dra_component

    return dra_component


def _eks_karpenter() -> ModuleType:
    from gpu_platform.clouds.eks import karpenter as eks_karpenter

    return eks_karpenter


def _eks_karpenter_node_pool() -> ModuleType:
    from gpu_platform.clouds.eks import karpenter_node_pool as eks_karpenter_node_pool

    return eks_karpenter_node_pool


def _aks_nap_node_pool() -> ModuleType:
    from gpu_platform.clouds.aks import nap_node_pool as aks_nap_node_pool

    return aks_nap_node_pool


def _gke_compute_class() -> ModuleType:
    from gpu_platform.clouds.gke import compute_class as gke_compute_class

    return gke_compute_class


def _openshift_machine_set() -> ModuleType:
    from gpu_platform.clouds.openshift import machine_set as openshift_machine_set

    return openshift_machine_set


def _docker_host() -> ModuleType:
    from gpu_platform import docker_host as docker_host

    return docker_host


_COMPONENTS: dict[str, Callable[[], ModuleType]] = {
    "GpuPlatform": _stack_platform,
    "GkeCluster": _gke_cluster,
    "EksCluster": _eks_cluster,
    "AksCluster": _aks_cluster,
    "GkeGpuNodePool": _gke_node_pool,
    "EksGpuNodePool": _eks_node_pool,
    "AksGpuNodePool": _aks_node_pool,
    "GpuOperator": _gpu_operator_component,
    "Kueue": _kueue_component,
    "CertManager": _cert_manager_component,
    "KServe": _kserve_component,
    "GpuInferenceService": _kserve_service,
    "LlmServing": _serving_component,
    "ClusterAutoscaler": _eks_cluster_autoscaler,
    "EfaDevicePlugin": _eks_efa,
    "NetworkOperator": _aks_network_operator,
    "GkeGpuDirect": _gke_gpudirect,
    "JobSet": _workloads_component,
    "LeaderWorkerSet": _workloads_component,
    "KubeflowTrainer": _workloads_component,
    "KubeRay": _workloads_component,
    "Volcano": _volcano_component,
    "SlurmCluster": _slurm_component,
    "GpuObservability": _observability_component,
    "DraDriver": _dra_component,
    "EksKarpenter": _eks_karpenter,
    "EksKarpenterGpuNodePool": _eks_karpenter_node_pool,
    "AksNapGpuNodePool": _aks_nap_node_pool,
    "GkeGpuComputeClass": _gke_compute_class,
    "OpenShiftGpuMachineSet": _openshift_machine_set,
    "GpuDockerHost": _docker_host,
    "GpuFleet": _fleet_component,
}
"""Component class -> its module, imported on first attribute access: pulumi_kubernetes, and a cloud SDK only when
it creates resources. Plain imports (not ``import_module``), so the import contracts see every edge."""


def __getattr__(name: str) -> Any:
    if name in _COMPONENTS:
        return getattr(_COMPONENTS[name](), name)
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
    "Dispatcher",
    "DispatcherName",
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
    "GpuFleet",
    "GpuFleetArgs",
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
    "LlmServing",
    "LlmServingArgs",
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
