"""The GPU pool: one definition for the stack file (``gpuPools`` entries, camelCase) and every
component argument that takes a pool (``pool``/``pools``, snake_case).

Each field's docstring says its default (a named constant below), what it excludes and where the
upstream behaviour is documented; the JSON schema for editors and the multi-language component
schema are both generated from these classes. No ``from __future__ import annotations`` here:
Pulumi's component analyzer needs real annotations.
"""

import enum
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal, NotRequired, TypeAlias

from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform.args.validate import ARGS_CONFIG


class SharingMode(enum.StrEnum):
    """How one physical GPU is shared between pods."""

    NONE = "none"
    """Each pod gets whole GPUs."""
    TIME_SLICING = "time-slicing"
    """Replicas of each GPU, scheduled in turns: no memory or fault isolation."""
    MPS = "mps"
    """CUDA MPS: memory and compute limited per client; no fault isolation."""
    MIG = "mig"
    """Multi-Instance GPU: hardware partitions with their own memory and faults."""
    ISOLATED = "isolated"
    """Memory-isolated fractions (HAMi): each pod gets a slice of a card's memory and a share of its compute,
    enforced per container; any GPU, any size, no fault isolation."""


SharingModeName = Literal["none", "time-slicing", "mps", "mig", "isolated"]
"""``SharingMode``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    SharingModeValue: TypeAlias = SharingMode | SharingModeName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    SharingModeValue = SharingMode


class ManagedBy(enum.StrEnum):
    """Who implements a pool's sharing."""

    OPERATOR = "operator"
    """The GPU Operator's device plugin and MIG manager."""
    CLOUD = "cloud"
    """GKE ``gpu_sharing_config``/``gpu_partition_size`` or AKS ``gpu_instance_profile``."""


ManagedByName = Literal["operator", "cloud"]
"""``ManagedBy``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    ManagedByValue: TypeAlias = ManagedBy | ManagedByName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    ManagedByValue = ManagedBy


class MigStrategy(enum.StrEnum):
    """How MIG devices are advertised (NVIDIA device plugin ``MIG_STRATEGY``)."""

    SINGLE = "single"
    """Every GPU has one profile; pods ask for ``nvidia.com/gpu``."""
    MIXED = "mixed"
    """Pods ask for ``nvidia.com/mig-<profile>``; needed when a layout has several profiles."""


MigStrategyName = Literal["single", "mixed"]
"""``MigStrategy``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    MigStrategyValue: TypeAlias = MigStrategy | MigStrategyName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    MigStrategyValue = MigStrategy


class TaintEffect(enum.StrEnum):
    """Kubernetes taint effects."""

    NO_SCHEDULE = "NoSchedule"
    """Pods without a matching toleration are not scheduled on the node."""
    PREFER_NO_SCHEDULE = "PreferNoSchedule"
    """The scheduler avoids the node for pods without a toleration, but may still use it."""
    NO_EXECUTE = "NoExecute"
    """Like ``NoSchedule``, and running pods without a toleration are evicted."""


TaintEffectName = Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]
"""``TaintEffect``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    TaintEffectValue: TypeAlias = TaintEffect | TaintEffectName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    TaintEffectValue = TaintEffect


class CapacityType(enum.StrEnum):
    """EKS managed node group capacity types."""

    ON_DEMAND = "ON_DEMAND"
    """On-Demand instances."""
    SPOT = "SPOT"
    """Spot instances: cheaper, reclaimed by EC2 with a two-minute notice."""
    CAPACITY_BLOCK = "CAPACITY_BLOCK"
    """EC2 Capacity Blocks for ML: reserved GPU capacity for a fixed window (``reservation`` = its ID)."""


CapacityTypeName = Literal["ON_DEMAND", "SPOT", "CAPACITY_BLOCK"]
"""``CapacityType``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    CapacityTypeValue: TypeAlias = CapacityType | CapacityTypeName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    CapacityTypeValue = CapacityType


class CapacitySource(enum.StrEnum):
    """Where a pool's nodes come from: one vocabulary on every cloud (docs/capacity.md)."""

    ON_DEMAND = "on-demand"
    """Ordinary on-demand VMs: no commitment, no preemption, often unavailable for H100/H200/B200."""
    SPOT = "spot"
    """Spot/preemptible VMs: cheapest, reclaimed by the cloud at short notice."""
    RESERVATION = "reservation"
    """Reserved capacity: GKE reservations (``specific`` or ``any``, shared ones across projects), EKS
    On-Demand Capacity Reservations (``cr-...``), AKS capacity reservation groups (the group's resource ID)."""
    CAPACITY_BLOCK = "capacity-block"
    """EC2 Capacity Blocks for ML: GPU capacity bought for a fixed window (the block's ``cr-...`` ID)."""
    FLEX_START = "flex-start"
    """GKE flex-start (Dynamic Workload Scheduler): nodes when capacity frees up, for at most seven days."""
    QUEUED_PROVISIONING = "queued-provisioning"
    """GKE queued provisioning (Dynamic Workload Scheduler): all nodes of a job at once through a
    ProvisioningRequest, which Kueue's ``ProvisioningRequestConfig`` admission check creates."""


CapacitySourceName = Literal[
    "on-demand", "spot", "reservation", "capacity-block", "flex-start", "queued-provisioning"
]
"""``CapacitySource``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    CapacitySourceValue: TypeAlias = CapacitySource | CapacitySourceName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    CapacitySourceValue = CapacitySource


class ReservationAffinity(enum.StrEnum):
    """Which reservations a GKE pool consumes."""

    SPECIFIC = "specific"
    """Only the named reservation (GKE ``SPECIFIC_RESERVATION``)."""
    ANY = "any"
    """Any matching reservation of the project, then on-demand (GKE ``ANY_RESERVATION``)."""


ReservationAffinityName = Literal["specific", "any"]
"""``ReservationAffinity``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    ReservationAffinityValue: TypeAlias = ReservationAffinity | ReservationAffinityName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    ReservationAffinityValue = ReservationAffinity


@with_config(ARGS_CONFIG)
class CapacitySourceArgs(TypedDict):
    """One capacity source of a pool; a list of them is a fallback chain, tried in order."""

    source: CapacitySourceValue
    """``on-demand``, ``spot``, ``reservation``, ``capacity-block``, ``flex-start`` or ``queued-provisioning``."""
    reservation: NotRequired[str]
    """``reservation``/``capacity-block``: GKE the reservation's name, or a block of it
    (``<reservation>/reservationBlocks/<block>[/reservationSubBlocks/<sub-block>]``), or a shared one's
    ``projects/<project>/reservations/<reservation>[/...]``; EKS the reservation ID (``cr-...``); AKS the capacity
    reservation group's resource ID. Required except for a GKE ``affinity: any``."""
    affinity: NotRequired[ReservationAffinityValue]
    """GKE ``reservation``: ``specific`` (default; only the named reservation) or ``any``."""
    project: NotRequired[str]
    """GKE ``reservation`` with ``affinity: specific``: the project that owns a shared reservation; default the
    cluster's project."""
    nodes: NotRequired[int]
    """``reservation``/``capacity-block``: nodes the reservation holds for this pool. Kueue's quota for this
    source is that many nodes (never more than ``max_nodes`` over the whole chain); default ``max_nodes``."""
    max_run_hours: NotRequired[int]
    """GKE ``flex-start``/``queued-provisioning``: hours a node may run before GKE reclaims it, 1 to 168
    (default 168, GKE's maximum of seven days)."""


# --- DRA: how pods get a pool's GPUs ------------------------------------------------------


class DeviceAllocation(enum.StrEnum):
    """How pods are given a pool's GPUs: one mechanism per pool, never both on the same nodes."""

    DEVICE_PLUGIN = "device-plugin"
    """The NVIDIA device plugin advertises extended resources (``nvidia.com/gpu``, ``nvidia.com/mig-*``)."""
    DRA = "dra"
    """Dynamic Resource Allocation (``resource.k8s.io/v1``): pods reference ResourceClaims served by the
    NVIDIA DRA driver (``DraDriver`` / the stack's ``dra`` section); the device plugin stays off the nodes."""


DeviceAllocationName = Literal["device-plugin", "dra"]
"""``DeviceAllocation``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    DeviceAllocationValue: TypeAlias = DeviceAllocation | DeviceAllocationName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    DeviceAllocationValue = DeviceAllocation


DEFAULT_ALLOCATION = DeviceAllocation.DEVICE_PLUGIN.value
# --- end DRA ------------------------------------------------------------------------------------------

DEFAULT_MIN_NODES = 0
"""GPU pools scale to zero by default: an idle pool costs nothing."""
DEFAULT_DISK_SIZE_GB = 200
"""GPU images (CUDA, PyTorch, vLLM) are large."""
DEFAULT_SHARING_MODE = SharingMode.NONE.value
DEFAULT_MANAGED_BY = ManagedBy.OPERATOR.value
DEFAULT_MIG_STRATEGY = MigStrategy.MIXED.value
DEFAULT_TAINT_EFFECT = TaintEffect.NO_SCHEDULE.value
DEFAULT_SHARING_REPLICAS = 2
"""Smallest useful number of time-slicing/MPS replicas (used only to keep resolving after an error)."""
MAX_SHARED_CLIENTS = 48
DEFAULT_ISOLATED_SPLITS = 10
"""Mode ``isolated``: pods one card takes at most, HAMi's ``deviceSplitCount`` default (Project-HAMi/HAMi
v2.10.0 ``charts/hami/values.yaml``)."""
"""MPS and GKE time-sharing accept at most 48 clients per GPU (MIG user guide concurrency table)."""


@with_config(ARGS_CONFIG)
class TaintArgs(TypedDict):
    """A Kubernetes taint, in Kubernetes' shape; each cloud's spelling is derived from it."""

    key: str
    """Taint key (at most 63 characters)."""
    value: NotRequired[str]
    """Taint value; default empty."""
    effect: NotRequired[TaintEffectValue]
    """``NoSchedule`` (default), ``PreferNoSchedule`` or ``NoExecute``."""


@with_config(ARGS_CONFIG)
class MigArgs(TypedDict):
    """The MIG layout of every GPU in the pool: ``layout`` or ``profiles``, not both."""

    layout: NotRequired[str]
    """A named layout of the GPU Operator's MIG manager: ``all-<profile>`` (``all-1g.10gb``) or
    ``all-balanced``. Excludes ``profiles``."""
    profiles: NotRequired[Sequence[str]]
    """The profiles on each GPU (``["3g.40gb", "2g.20gb", "2g.20gb"]``), checked against the GPU's
    real slice placements (https://docs.nvidia.com/datacenter/tesla/mig-user-guide/). Excludes ``layout``."""
    strategy: NotRequired[MigStrategyValue]
    """``mixed`` (default): pods ask for ``nvidia.com/mig-<profile>``; ``single``: one profile on every
    GPU, pods ask for ``nvidia.com/gpu``."""


@with_config(ARGS_CONFIG)
class SharingArgs(TypedDict):
    """How the pool's GPUs are shared (https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-sharing.html)."""

    mode: NotRequired[SharingModeValue]
    """``none`` (default), ``time-slicing`` (no memory or fault isolation), ``mps``, ``mig`` or ``isolated``
    (memory-isolated fractions of any GPU through HAMi: pods ask for ``nvidia.com/gpumem`` MiB of a card)."""
    replicas: NotRequired[int]
    """Time-slicing and MPS: units each GPU advertises, 2 to 48. Isolated: pods one card takes at most (HAMi's
    ``deviceSplitCount``, default 10), the same on every isolated pool."""
    rename_by_default: NotRequired[bool]
    """Time-slicing/MPS: advertise ``nvidia.com/gpu.shared`` instead of ``nvidia.com/gpu`` (default false)."""
    fail_requests_greater_than_one: NotRequired[bool]
    """Time-slicing: refuse pods asking for more than one replica, since two replicas are not twice the
    compute (default false)."""
    mig: NotRequired[MigArgs]
    """Mode ``mig`` only: the layout of every GPU."""
    managed_by: NotRequired[ManagedByValue]
    """``operator`` (default): the GPU Operator's device plugin/MIG manager. ``cloud``: GKE's
    ``gpu_sharing_config``/``gpu_partition_size`` or AKS's ``gpu_instance_profile`` (fixed at creation)."""


@with_config(ARGS_CONFIG)
class GpuPoolArgs(TypedDict):
    """One pool of identical GPU nodes, always tainted ``nvidia.com/gpu=present:NoSchedule``."""

    name: str
    """Lowercase letters, digits and dashes (at most 32); names the cloud pool, its labels and its
    Kueue flavor."""
    max_nodes: int
    """Autoscaler maximum; Kueue quotas are ``max_nodes`` x what each node offers pods (GPU units,
    allocatable cpu and memory less the GPU Operator's pods)."""
    machine_type: NotRequired[str]
    """Machine type from the GPU catalog (``g2-standard-8``, ``p5.48xlarge``, ``Standard_ND96isr_H100_v5``).
    Required except on existing clusters, where ``gpu`` and ``gpus_per_node`` describe the nodes."""
    gpu: NotRequired[str]
    """GPU model key from the catalog (``l4``, ``h100-80gb``). Existing clusters: required. Elsewhere it
    follows from ``machine_type`` and may only repeat it."""
    gpus_per_node: NotRequired[int]
    """Existing clusters: GPUs per node (required). GKE N1 machines: attached T4s (1, 2 or 4)."""
    cpus_per_node: NotRequired[int]
    """Existing clusters: each node's *allocatable* CPU in cores, rounded down (``kubectl get node``), for
    Kueue's cpu quota (required with Kueue). Cloud pools derive it from the machine type."""
    memory_gib_per_node: NotRequired[int]
    """Existing clusters: each node's *allocatable* memory in GiB, rounded down, for Kueue's memory quota
    (required with Kueue)."""
    min_nodes: NotRequired[int]
    """Autoscaler minimum; default ``DEFAULT_MIN_NODES`` (0, scale to zero)."""
    initial_nodes: NotRequired[int]
    """Nodes at creation, between ``min_nodes`` and ``max_nodes``; default ``min_nodes``. Later the
    autoscaler owns the count."""
    capacity: NotRequired[Sequence[CapacitySourceArgs]]
    """Where the nodes come from, in order of preference (docs/capacity.md); default ``[{source: on-demand}]``.
    One entry is one source; several are a fallback chain, served by a GKE ComputeClass, Karpenter (EKS
    ``cluster.autoscaler: karpenter``) or AKS node auto-provisioning. Excludes ``spot``, ``capacity_type``
    and ``reservation``, its older spellings."""
    spot: NotRequired[bool]
    """Older spelling of ``capacity: [{source: spot}]`` (default false). EKS: excludes ``capacity_type``
    other than ``SPOT``."""
    capacity_type: NotRequired[CapacityTypeValue]
    """Older spelling, EKS only: ``ON_DEMAND``, ``SPOT`` or ``CAPACITY_BLOCK`` (with ``reservation``)."""
    zones: NotRequired[Sequence[str]]
    """Zones of the cluster's region for the nodes (GKE ``us-central1-a``, EKS ``us-east-1a``, AKS ``1``);
    default: the cluster's zones. GKE: each must offer the machine's GPU (docs/capacity.md, zone stockouts);
    without zones, a pool whose GPU is in only some zones of the region spans exactly those."""
    image: NotRequired[str]
    """Node image: GKE ``COS_CONTAINERD`` (default) or ``UBUNTU_CONTAINERD``; EKS ``AL2023_x86_64_NVIDIA``
    (default) or ``BOTTLEROCKET_x86_64_NVIDIA``; AKS ``Ubuntu`` (default), ``Ubuntu2204`` or ``AzureLinux``."""
    disk_size_gb: NotRequired[int]
    """Boot/image disk in GB, 50 to 65536; default ``DEFAULT_DISK_SIZE_GB`` (200)."""
    sharing: NotRequired[SharingArgs]
    """How the GPUs are shared; default: not shared."""
    labels: NotRequired[Mapping[str, str]]
    """Extra node labels. Keys under ``gpu-platform.io/`` and the operator's config labels are set by the
    library and refused here."""
    taints: NotRequired[Sequence[TaintArgs]]
    """Extra taints; ``nvidia.com/gpu=present:NoSchedule`` is always set and cannot be weakened."""
    cuda_version: NotRequired[str]
    """CUDA ``major.minor`` the pool's images are built with (``"12.8"``, quoted); the plan refuses a
    node driver older than it needs. Default: the stack's ``cudaVersion``."""
    isolation_required: NotRequired[bool]
    """Workloads here need memory and fault isolation: time-slicing is refused (default false)."""
    reservation: NotRequired[str]
    """Older spelling of ``capacity: [{source: reservation, reservation: ...}]`` (GKE: a specific reservation)
    or, with ``capacity_type: CAPACITY_BLOCK``, of ``[{source: capacity-block, ...}]`` (EKS). Excludes ``spot``."""
    efa: NotRequired[bool]
    """EKS: attach every EFA interface of the instance (p4d/p5 class) for NCCL over EFA (default false)."""
    topology: NotRequired[bool]
    """Kueue Topology-Aware Scheduling (default false): the pool's ResourceFlavor names the ``Topology`` of
    the node labels the cloud sets on this machine type (GKE ``cloud.google.com/gce-topology-*`` on A3 Mega,
    A3 Ultra, A4; EKS ``topology.k8s.aws/network-node-layer-1..3`` on p4d/p4de/p5/p5e/p5en/g6e; AKS
    ND-series InfiniBand sizes: ``kubernetes.io/hostname`` only), so a job's pod set can require or prefer
    one block, rack or node (docs/networking.md). Refused on machine types without such labels and
    without the stack's ``kueue`` section."""
    infiniband: NotRequired[bool]
    """AKS ND-series InfiniBand sizes (``Standard_ND96isr_H100_v5`` ...; default false): the stack installs the
    NVIDIA Network Operator (DOCA driver, RDMA shared device plugin) on the pool's nodes, pods request
    ``rdma/shared_ib`` and Kueue's quota covers it; with the operator-owned driver GPUDirect RDMA is on
    (``driver.rdma``). Without it NCCL between nodes uses TCP."""
    gpudirect: NotRequired[bool]
    """GKE GPUDirect on the machine's extra NICs (default false): TCPXO on ``a3-megagpu-8g``, RDMA (RoCE, gIB)
    on ``a3-ultragpu-8g`` and ``a4-highgpu-8g``. The stack creates the extra VPCs and subnets, turns on the
    cluster's multi-networking, attaches the NICs to the pool's nodes, creates the ``Network`` and
    ``GKENetworkParamSet`` objects and runs Google's NCCL plugin installer on the pool (docs/networking.md).
    COS_CONTAINERD images only; one capacity source. Without it NCCL between nodes uses the primary gVNIC."""
    local_ssds: NotRequired[bool]
    """Use the machine's local NVMe disks (default false; machines without them are refused, naming those with
    them). GKE: they back the nodes' ephemeral storage (images, ``emptyDir``, checkpoints) instead of the boot
    disk (``a3-highgpu-8g``, ``a3-megagpu-8g``: 16 SSDs; ``a3-ultragpu-8g``, ``a4-highgpu-8g``: 32). EKS: the
    instance store becomes one RAID0 array under the kubelet and containerd (every GPU instance type; managed
    node groups on AL2023 and Bottlerocket through the launch template's user data, Karpenter pools through
    ``instanceStorePolicy``). AKS: Azure Container Storage serves the NVMe data disks as the ``local``
    StorageClass, for generic ephemeral volumes (``Standard_NC24ads_A100_v4``, ``Standard_NC48ads_A100_v4``,
    ``Standard_NC96ads_A100_v4``, ``Standard_ND96isr_H100_v5``, ``Standard_ND96isr_H200_v5``); images and
    ``emptyDir`` stay on the OS disk. Off by default because GKE and EKS set it up when a node is created:
    turning it on replaces a GKE pool or EKS node group (``gpu-platform diff`` says so; a protected pool must be
    unprotected first) and Karpenter replaces its nodes (drift); on AKS no pool changes. Set it on new pools."""
    compact_placement: NotRequired[bool]
    """Place the nodes close together (default false): GKE ``placement_policy`` ``COMPACT``, EKS a cluster
    placement group (EFA pools always get one). One zone only; GKE and EKS."""
    spot_max_price: NotRequired[float]
    """AKS spot pools: ``-1`` (up to the on-demand price, default) or a positive price in USD per hour."""
    allocation: NotRequired[DeviceAllocationValue]
    """``device-plugin`` (default) or ``dra``: pods claim the GPUs through ResourceClaims served by the NVIDIA
    DRA driver (Kubernetes >= 1.34.2, the stack's ``dra`` section or the ``DraDriver`` component). DRA pools
    carry no device-plugin sharing: time-slicing/MPS are refused (sharing is per claim), MIG only where the
    cloud partitions the GPUs at node creation (AKS ``managed_by: cloud``); the GPU Operator's device plugin and
    MIG manager are kept off their nodes (https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/dra-intro-install.html)."""
