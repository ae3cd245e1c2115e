"""Argument types: the one definition of every setting's name, type, default and meaning.

Components take these TypedDicts; the stack file's sections are built from the same classes
(camelCase keys there, snake_case in code). ``validate`` checks values against them.
"""

from gpu_platform._moved import moved_attribute
from gpu_platform.args.autoscaling import EksAutoscaler
from gpu_platform.args.cluster import SystemPoolArgs
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
    "CapacityType",
    "CertManagerArgs",
    "Cloud",
    "ClusterQueueArgs",
    "DcgmExporterArgs",
    "DeploymentMode",
    "DriverArgs",
    "DriverOwner",
    "EksAutoscaler",
    "GpuInferenceServiceArgs",
    "GpuOperatorArgs",
    "GpuPoolArgs",
    "InferenceServiceConfigArgs",
    "KServeArgs",
    "KueueArgs",
    "ManagedBy",
    "MigArgs",
    "MigStrategy",
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


def __getattr__(name: str) -> object:
    # Each cloud's argument types moved to its folder; the old names resolve here, with a warning.
    return moved_attribute(__name__, name)
