"""Argument types: the one definition of every setting's name, type, default and meaning.

Components take these TypedDicts; the stack file's sections are built from the same classes
(camelCase keys there, snake_case in code). ``validate`` checks values against them.
"""

from gpu_platform.args.autoscaling import ClusterAutoscalerArgs, EfaDevicePluginArgs, EksAutoscaler
from gpu_platform.args.cluster import AksClusterArgs, EksClusterArgs, GkeClusterArgs, SystemPoolArgs
from gpu_platform.args.common import Cloud, DriverArgs, DriverOwner
from gpu_platform.args.inference import GpuInferenceServiceArgs, InferenceServiceConfigArgs
from gpu_platform.args.kueue import (
    ClusterQueueArgs,
    KueueArgs,
    PreemptionArgs,
    PriorityClassArgs,
    RequeuingStrategyArgs,
    TeamArgs,
    WaitForPodsReadyArgs,
)
from gpu_platform.args.nodepools import (
    AksGpuNodePoolArgs,
    EksGpuNodePoolArgs,
    GkeGpuNodePoolArgs,
    OpenShiftGpuMachineSetArgs,
)
from gpu_platform.args.operators import (
    CertManagerArgs,
    DcgmExporterArgs,
    DeploymentMode,
    GpuOperatorArgs,
    KServeArgs,
)
from gpu_platform.args.pool import (
    CapacityType,
    GpuPoolArgs,
    ManagedBy,
    MigArgs,
    MigStrategy,
    SharingArgs,
    SharingMode,
    TaintArgs,
    TaintEffect,
)

__all__ = [
    "AksClusterArgs",
    "AksGpuNodePoolArgs",
    "CapacityType",
    "CertManagerArgs",
    "Cloud",
    "ClusterAutoscalerArgs",
    "ClusterQueueArgs",
    "DcgmExporterArgs",
    "DeploymentMode",
    "DriverArgs",
    "DriverOwner",
    "EfaDevicePluginArgs",
    "EksAutoscaler",
    "EksClusterArgs",
    "EksGpuNodePoolArgs",
    "GkeClusterArgs",
    "GkeGpuNodePoolArgs",
    "GpuInferenceServiceArgs",
    "GpuOperatorArgs",
    "GpuPoolArgs",
    "InferenceServiceConfigArgs",
    "KServeArgs",
    "KueueArgs",
    "ManagedBy",
    "MigArgs",
    "MigStrategy",
    "OpenShiftGpuMachineSetArgs",
    "PreemptionArgs",
    "PriorityClassArgs",
    "RequeuingStrategyArgs",
    "SharingArgs",
    "SharingMode",
    "SystemPoolArgs",
    "TaintArgs",
    "TaintEffect",
    "TeamArgs",
    "WaitForPodsReadyArgs",
]
