"""Config schema for GPU pools and how each pool's GPUs are shared."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gpu_platform.config.model import ConfigModel

POOL_NAME_PATTERN = r"^[a-z]([-a-z0-9]{0,30}[a-z0-9])?$"


class TaintConfig(ConfigModel):
    """A Kubernetes taint in Kubernetes' own shape; each cloud's shape is derived from it."""

    key: str = Field(min_length=1, max_length=63)
    value: str = Field(default="", max_length=63)
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] = "NoSchedule"


class MigConfig(ConfigModel):
    strategy: Literal["single", "mixed"] = "mixed"
    """``single``: every GPU on the node gets the same profile and pods ask for ``nvidia.com/gpu``;
    ``mixed``: pods ask for ``nvidia.com/mig-<profile>``. A layout with several profiles needs mixed."""
    layout: str | list[str]
    """A named layout (``all-1g.10gb``, ``all-balanced``) or the list of profiles on each GPU
    (``["3g.40gb", "2g.20gb", "2g.20gb"]``), checked against the GPU's real slice placements."""


class SharingConfig(ConfigModel):
    mode: Literal["none", "time-slicing", "mps", "mig"] = "none"
    """How one physical GPU is shared. Time-slicing gives no memory or fault isolation."""
    replicas: int | None = None
    """Time-slicing/MPS: how many units each GPU advertises (at least 2)."""
    rename_by_default: bool = False
    """Advertise shared GPUs as ``nvidia.com/gpu.shared`` instead of ``nvidia.com/gpu``."""
    fail_requests_greater_than_one: bool = False
    """Time-slicing: refuse pods asking for more than one replica (two replicas are not twice the compute)."""
    mig: MigConfig | None = None
    managed_by: Literal["operator", "cloud"] = "operator"
    """``operator``: the GPU Operator's device plugin / MIG manager do it (default). ``cloud``: GKE
    ``gpu_sharing_config`` / ``gpu_partition_size`` or AKS ``gpu_instance_profile`` (fixed at creation)."""


class GpuPoolConfig(ConfigModel):
    name: str = Field(pattern=POOL_NAME_PATTERN)
    """Pool name: lowercase letters, digits and dashes; it names cloud resources and Kueue flavors."""
    machine_type: str | None = None
    """Cloud machine type from the GPU catalog (``g2-standard-8``, ``p5.48xlarge``, ``Standard_ND96isr_H100_v5``)."""
    gpu: str | None = None
    """Existing clusters: the GPU model key from the catalog (``l4``, ``h100-80gb``)."""
    gpus_per_node: int | None = Field(default=None, ge=1, le=16)
    """Existing clusters: GPUs per node. GKE N1 machines: attached T4 count (1, 2 or 4)."""
    cpus_per_node: int | None = Field(default=None, ge=1)
    """Existing clusters: vCPUs per node (for Kueue cpu quota)."""
    memory_gib_per_node: int | None = Field(default=None, ge=1)
    """Existing clusters: memory per node in GiB (for Kueue memory quota)."""
    min_nodes: int = Field(default=0, ge=0)
    """Autoscaler minimum; 0 lets an idle pool cost nothing."""
    max_nodes: int = Field(ge=0)
    """Autoscaler maximum; Kueue quotas are max nodes x units per node."""
    initial_nodes: int | None = Field(default=None, ge=0)
    """Node count at creation (default: min nodes). Later changes are left to the autoscaler."""
    spot: bool = False
    capacity_type: Literal["ON_DEMAND", "SPOT", "CAPACITY_BLOCK"] | None = None
    """EKS only: overrides ``spot``; ``CAPACITY_BLOCK`` for reserved EC2 capacity blocks."""
    zones: list[str] = Field(default_factory=list)
    image: str | None = None
    """Node image: GKE ``COS_CONTAINERD``/``UBUNTU_CONTAINERD``; EKS ``AL2023_x86_64_NVIDIA``/
    ``BOTTLEROCKET_x86_64_NVIDIA``; AKS ``Ubuntu``/``AzureLinux``."""
    disk_size_gb: int = Field(default=200, ge=50, le=65536)
    """Boot disk; GPU images (CUDA, PyTorch, vLLM) are large."""
    sharing: SharingConfig = Field(default_factory=SharingConfig)
    labels: dict[str, str] = Field(default_factory=dict)
    taints: list[TaintConfig] = Field(default_factory=list)
    """Extra taints; ``nvidia.com/gpu=present:NoSchedule`` is always set and cannot be removed."""
    cuda_version: str | None = Field(default=None, pattern=r"^\d+\.\d+$")
    """CUDA version the images on this pool are built with; the plan refuses a driver older than it needs."""
    isolation_required: bool = False
    """Workloads here need memory/fault isolation: time-slicing is refused (use MIG)."""
    reservation: str | None = None
    """GKE: a specific reservation name to consume. EKS with ``capacityType: CAPACITY_BLOCK``: the
    Capacity Block reservation ID (``cr-...``)."""
    efa: bool = False
    """EKS: attach all EFA interfaces of the instance (p4d/p5 class) through a launch template."""
    spot_max_price: float | None = None
    """AKS spot: -1 (up to on-demand price) or a positive price."""
