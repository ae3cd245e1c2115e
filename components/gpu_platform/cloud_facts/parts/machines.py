"""A cloud's machines: its GPU machine catalog, the shape of its machine names, the system pool's machine and
labels, and the local disks a pool may use.

A part of ``CloudProfile`` (``gpu_platform.cloud_facts.profile``); a cloud's profile overrides what differs."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from gpu_platform.catalog.machines import MachineType
from gpu_platform.cloud_facts.parts.base import ProfileBase

if TYPE_CHECKING:
    from gpu_platform.catalog.cpu_machines import CpuShape


class MachineFacts(ProfileBase):
    """The cloud's machines and its system pool."""

    machines: ClassVar[Mapping[str, MachineType]] = {}
    system_machine_type: ClassVar[str | None] = None
    """Default machine of the untainted system pool of a created cluster."""
    system_pool_labels: ClassVar[Mapping[str, str]] = {}
    """A label the cloud itself puts on every system-pool node, which controllers can be pinned to."""
    system_pool_selector: ClassVar[Mapping[str, str]] = {}
    """A label the cloud itself puts on system-pool nodes (AKS ``kubernetes.azure.com/mode: system``)."""
    machine_shape: ClassVar[re.Pattern[str] | None] = None
    """What any machine type name of the cloud looks like (for the system pool's CPU machines)."""
    declared_node_keys: ClassVar[frozenset[str]] = frozenset()
    """Pool keys a catalog machine still needs declared (Yandex: the node's allocatable ``cpus_per_node`` and
    ``memory_gib_per_node``, which the cloud does not publish)."""
    local_ssd_machines: ClassVar[Mapping[str, int]] = {}
    """Machine types whose local NVMe disks a pool with ``local_ssds`` uses (every other one is refused) -> how
    much the cloud's facts record of them: GKE local SSDs, EKS instance-store GB, AKS NVMe disks."""
    local_nvme_ephemeral_storage: ClassVar[bool] = False
    """A pool's local NVMe (``local_ssds``) holds the node's ephemeral storage, so ``emptyDir`` volumes (KServe's
    download, a bucket mount's file cache) are on it: GKE's local SSDs as ephemeral storage, EKS's instance store
    (the kubelet's RAID0). Not AKS: its NVMe data disks are raw disks only Azure Container Storage serves."""

    @classmethod
    def machine(cls, name: str, pool: Mapping[str, Any] | None = None) -> MachineType | None:
        """The machine ``name``; ``pool`` (the pool's settings) picks the configuration where a name has
        several (Yandex platforms: the GPU count)."""
        return cls.machines.get(name)

    @classmethod
    def cpu_shape(cls, name: str) -> CpuShape | None:
        """vCPUs and memory of a CPU machine type, or ``None`` when the name does not say."""
        return None

    @classmethod
    def looks_like_machine(cls, name: str) -> bool:
        return bool(cls.machine_shape and cls.machine_shape.match(name))
