"""The GPU catalog: the single source of truth for GPUs, machine types, MIG tables and drivers.

Everything else in the library derives from these tables; nothing else types a GPU fact.
"""

from gpu_platform.catalog.drivers import (
    CUDA_MIN_DRIVER,
    GPU_OPERATOR_DEFAULT_DRIVER,
    DriverVersion,
    min_driver_for_cuda,
)
from gpu_platform.catalog.gpus import GPUS, GpuModel
from gpu_platform.catalog.machines import MachineType
from gpu_platform.catalog.mig import (
    MIG_TABLES,
    MigProfile,
    MigTable,
    named_layouts,
    place_profiles,
    resolve_layout,
)

__all__ = [
    "CUDA_MIN_DRIVER",
    "GPUS",
    "GPU_OPERATOR_DEFAULT_DRIVER",
    "MIG_TABLES",
    "DriverVersion",
    "GpuModel",
    "MachineType",
    "MigProfile",
    "MigTable",
    "min_driver_for_cuda",
    "named_layouts",
    "place_profiles",
    "resolve_layout",
]
