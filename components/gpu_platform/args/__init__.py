"""Argument types: the one definition of every setting's name, type, default and meaning.

Components take these TypedDicts; the stack file's sections are built from the same classes
(camelCase keys there, snake_case in code). ``validate`` checks values against them.
"""

from gpu_platform._moved import moved_attribute
from gpu_platform.args.autoscaling import EksAutoscaler
from gpu_platform.args.cluster import SystemPoolArgs
from gpu_platform.args.common import Cloud, DriverArgs, DriverOwner
from gpu_platform.args.mirror import MirrorArgs
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
    "DcgmExporterArgs",
    "DeploymentMode",
    "DriverArgs",
    "DriverOwner",
    "EksAutoscaler",
    "GpuOperatorArgs",
    "GpuPoolArgs",
    "KServeArgs",
    "ManagedBy",
    "MigArgs",
    "MigStrategy",
    "MirrorArgs",
    "SharingArgs",
    "SharingMode",
    "SystemPoolArgs",
    "TaintArgs",
    "TaintEffect",
]


def __getattr__(name: str) -> object:
    # Each cloud's and each add-on's argument types moved to its folder; the old names resolve here, with a warning.
    return moved_attribute(__name__, name)
