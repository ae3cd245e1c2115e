"""A GPU pool with every fact resolved from the catalog: what the rest of the library reasons about.

The arguments (``args.pool.GpuPoolArgs``) say what the user typed; ``GpuPool`` says what it means:
which GPU, how many per node, how it is shared. Node pools, the GPU Operator, Kueue and KServe all
derive from it, so a fact is never typed twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpu_platform.catalog.gpudirect import GpuDirect
from gpu_platform.catalog.gpus import GpuModel
from gpu_platform.catalog.machines import MachineType
from gpu_platform.catalog.mig import MigTable
from gpu_platform.catalog.topology import NetworkTopology


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str
    """Kubernetes spelling: ``NoSchedule``, ``PreferNoSchedule``, ``NoExecute``."""


GPU_TAINT = Taint("nvidia.com/gpu", "present", "NoSchedule")
"""Always on every GPU pool, so ordinary pods never land on expensive nodes."""

STARTUP_TAINT = Taint("startup-taint.cluster-autoscaler.kubernetes.io/gpu-resources", "pending", "NoSchedule")
"""On new nodes of pools whose GPU resources appear late (MIG ``mixed``, renamed sharing): the Cluster
Autoscaler treats a node with a taint under this prefix as not ready yet but counts it as coming capacity
(cluster-autoscaler FAQ, "Startup taints"), so it adds no second node while the first is partitioned. The
library's startup-taint remover (``addons.gpu_operator.startup_taint``) takes it off once the node advertises them."""

GPU_UNHEALTHY_TAINT = Taint(
    "status-taint.cluster-autoscaler.kubernetes.io/gpu-unhealthy", "true", "NoSchedule"
)
"""Put on a GPU node by the library's health checks (``addons.observability.gpu_health``) when its kernel log shows an Xid that
needs the GPU reset or the node drained; the value the checks write is the Xid's reason (``Xid79``). Nothing new
lands on the node: the scheduler, Kueue's admitted pods and Karpenter's simulation honour ``NoSchedule``; running
jobs are left to finish or checkpoint. Under this prefix the Cluster Autoscaler treats it as a status taint
(cluster-autoscaler FAQ, "Status taints"): the node stays ready but is not a template for new nodes, so a pool
whose only node failed still scales up. The GPU Operator's operands and the health agents tolerate it (they must
keep running to report and to reset); workloads and Kueue flavors never do."""


@dataclass(frozen=True)
class Sharing:
    mode: str
    """``none``, ``time-slicing``, ``mps`` or ``mig``."""
    managed_by: str = "operator"
    """``operator`` or ``cloud`` (GKE-native sharing/partitioning, AKS MIG instance profile)."""
    replicas: int = 1
    rename_by_default: bool = False
    fail_requests_greater_than_one: bool = False
    mig_strategy: str | None = None
    mig_layout: str | None = None
    """Name of the MIG config the pool's nodes select (``all-1g.10gb`` or ``custom-<pool>``)."""
    mig_profiles: tuple[str, ...] = ()
    """Profiles on each GPU."""
    mig_named: bool = True
    """The layout is one of the operator's named layouts (else an explicit list)."""


@dataclass(frozen=True)
class CapacitySource:
    """One resolved entry of a pool's ``capacity`` (``args.pool.CapacitySourceArgs``)."""

    source: str
    """``on-demand``, ``spot``, ``reservation``, ``capacity-block``, ``flex-start`` or ``queued-provisioning``."""
    reservation: str | None = None
    """GKE reservation name, EC2 ``cr-...`` ID or AKS capacity reservation group ID."""
    affinity: str = "specific"
    """GKE reservations: ``specific`` or ``any``."""
    project: str | None = None
    """GKE: owner project of a shared reservation."""
    nodes: int | None = None
    """Reserved nodes (Kueue's quota for this source); ``None``: the pool's ``max_nodes``."""
    max_run_hours: int | None = None
    """GKE flex-start/queued provisioning: hours before the node is reclaimed."""

    @property
    def reserved(self) -> bool:
        """Capacity bought ahead (a reservation or a Capacity Block)."""
        return self.source in ("reservation", "capacity-block")


ON_DEMAND = CapacitySource("on-demand")


@dataclass(frozen=True)
class GpuPool:
    name: str
    cloud: str
    gpu: GpuModel
    gpus_per_node: int
    min_nodes: int
    max_nodes: int
    sharing: Sharing
    machine: MachineType | None = None
    vcpus: int | None = None
    memory_gib: int | None = None
    initial_nodes: int = 0
    spot: bool = False
    capacity_type: str | None = None
    zones: tuple[str, ...] = ()
    image: str | None = None
    disk_size_gb: int = 200
    user_labels: dict[str, str] = field(default_factory=dict)
    user_taints: tuple[Taint, ...] = ()
    cuda_version: str | None = None
    """CUDA ``major.minor`` of the pool's images (its own or the stack's), for the driver check."""
    cuda_declared: bool = False
    """The pool declares ``cuda_version`` itself (problems are filed there, not at the stack's)."""
    isolation_required: bool = False
    reservation: str | None = None
    efa: bool = False
    topology: NetworkTopology | None = None
    """Kueue topology-aware scheduling: the machine's network topology, named by the pool's flavor."""
    infiniband: bool = False
    """AKS ND-series: the InfiniBand HCAs are requestable (``rdma/shared_ib``) through the Network Operator."""
    gpudirect: GpuDirect | None = None
    """GKE: the machine's GPUDirect path, set up for this pool (extra NICs, Network objects, NCCL plugin)."""
    compact_placement: bool = False
    """Nodes placed close together: GKE ``COMPACT`` placement policy, EKS cluster placement group."""
    local_ssds: bool = False
    """The machine's local NVMe disks are used: the nodes' ephemeral storage (GKE local SSDs, EKS instance store
    as RAID0), or Azure Container Storage's ``local`` volumes (AKS)."""
    spot_max_price: float | None = None
    index: int = 0
    """Position in ``gpuPools`` (for error paths)."""
    allocation: str = "device-plugin"
    """``device-plugin`` or ``dra``: who hands the GPUs to pods; never both on one pool."""
    capacity: tuple[CapacitySource, ...] = ()
    """Where the nodes come from, in order (empty: from ``spot``/``capacity_type``/``reservation``)."""

    @property
    def sources(self) -> tuple[CapacitySource, ...]:
        """The pool's capacity sources in order; pools made without ``capacity`` derive them from the older
        fields, so every consumer reads one vocabulary."""
        if self.capacity:
            return self.capacity
        if self.capacity_type == "CAPACITY_BLOCK":
            return (CapacitySource("capacity-block", self.reservation),)
        if self.spot:
            return (CapacitySource("spot"),)
        if self.reservation:
            return (CapacitySource("reservation", self.reservation),)
        return (ON_DEMAND,)

    @property
    def primary(self) -> CapacitySource:
        return self.sources[0]

    @property
    def chain(self) -> bool:
        """Several capacity sources: an auto-provisioner (ComputeClass, Karpenter, NAP) picks among them."""
        return len(self.sources) > 1

    @property
    def queued_provisioning(self) -> bool:
        """Nodes only through ProvisioningRequests (GKE Dynamic Workload Scheduler), which Kueue creates."""
        return self.primary.source == "queued-provisioning"

    @property
    def dra(self) -> bool:
        """The pool's GPUs are allocated through DRA ResourceClaims, not device-plugin extended resources."""
        return self.allocation == "dra"

    @property
    def mig_table(self) -> MigTable | None:
        from gpu_platform.catalog.mig import MIG_TABLES

        return MIG_TABLES.get(self.gpu.mig_table) if self.gpu.mig_table else None

    @property
    def machine_name(self) -> str:
        return self.machine.name if self.machine else f"{self.gpu.key}x{self.gpus_per_node}"

    def __hash__(self) -> int:
        return hash((self.cloud, self.name))
