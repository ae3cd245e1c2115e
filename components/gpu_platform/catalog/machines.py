"""A GPU machine type: which GPU, how many per node, and the facts a cloud attaches to it.

Each cloud's table is in its folder (``gpu_platform/clouds/<cloud>/machines.py``); look machines up through the
cloud's profile (``profile_of(cloud).machine(name)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpu_platform.catalog.gpudirect import GpuDirect
from gpu_platform.catalog.gpus import GPUS, GpuModel
from gpu_platform.catalog.nvlink import NvlinkDomain
from gpu_platform.catalog.topology import NetworkTopology


@dataclass(frozen=True)
class MachineType:
    cloud: str
    name: str
    gpu_key: str
    gpus: int
    """GPUs per node. For attachable-GPU machines (GKE N1) the default count."""
    vcpus: int
    memory_gib: int
    """Node capacity; Kueue's cpu and memory quotas derive from it."""
    accelerator_type: str | None = None
    """The cloud's name for the attached accelerator (GKE ``guest_accelerators.type``)."""
    allowed_gpu_counts: tuple[int, ...] = ()
    """Counts of attachable GPUs the user may choose (GKE N1); empty when fixed by the shape."""
    efa_interfaces: int = 0
    """EFA network interfaces (EC2; 0 = no EFA)."""
    cloud_mig: bool = False
    """The cloud partitions this machine's GPUs itself (AKS ``gpu_instance_profile``: documented only for ND A100 v4)."""
    infiniband: bool = False
    """InfiniBand (RDMA) host channel adapters between the nodes (Azure ND-series ``r`` sizes)."""
    gpudirect: GpuDirect | None = None
    """GKE: the GPUDirect path of the machine's extra NICs (TCPX, TCPXO, RDMA); ``None``: gVNIC only."""
    topology: NetworkTopology | None = None
    """The network position the cloud labels this machine's nodes with (Kueue TAS); ``None``: none
    documented, so a pool of it cannot ask for topology-aware scheduling."""
    nvlink_domain: NvlinkDomain | None = None
    """The rack-scale NVLink domain the machine's nodes belong to (GB200 NVL72): its pools are placed in one
    domain, and hold at most one domain's nodes; ``None``: NVLink stays inside the node."""
    cpu_arch: str = "amd64"
    """The nodes' ``kubernetes.io/arch``: ``arm64`` on Grace (GB200) machines, whose images must have an arm64
    build and whose clouds may taint them for it."""
    notes: tuple[str, ...] = field(default=())

    @property
    def gpu(self) -> GpuModel:
        return GPUS[self.gpu_key]
