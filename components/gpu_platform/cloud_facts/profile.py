"""What cross-cloud code may ask about a cloud: the ``CloudProfile`` interface.

Each cloud answers in its own folder (``gpu_platform/cloud_facts/<name>/profile.py``) and is registered once
in ``gpu_platform.cloud_facts``. Code outside the cloud folders never compares a cloud's name; it asks the pool's or
the stack's profile (``profile_of``). A profile holds facts and rules only: it imports nothing above the
catalog, the pool model and the driver plan, so every layer may ask it. Plans, components and the stack
wiring of a cloud are in ``gpu_platform/clouds/<cloud>/``, reached through ``clouds.registry``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

from gpu_platform.catalog.machines import MachineType
from gpu_platform.diff_rule import DiffRule
from gpu_platform.driver import DriverPlan, DriverPlanError
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool, Taint
from gpu_platform.sdk import require

if TYPE_CHECKING:
    from gpu_platform.catalog.cpu_machines import CpuShape
    from gpu_platform.catalog.drivers import DriverVersion
    from gpu_platform.sdk import Extra
    from gpu_platform.versions import UpstreamFile

PoolProblems = Callable[[int], Problems]
"""Where the problems of pool ``i`` are filed: ``gpuPools[i]``, ``pools[i]`` or ``pool``."""


@dataclass(frozen=True)
class ModelBucket:
    """How a model server on this cloud reads weights straight from the cloud's object store: a static, read-only
    PersistentVolume of the cloud's CSI driver (the serving add-on builds it, ``addons/serving/model_cache.py``)."""

    scheme: str
    """Which model URIs are in the cloud's object store: ``gs`` (``gs://``), ``s3`` (``s3://``) or ``azure`` (an
    ``https://<account>.blob.core.windows.net/<container>`` URL)."""
    mount: str
    """The CSI driver that mounts such a bucket, as the serving add-on names its mount kinds: ``gcsfuse`` (Cloud
    Storage FUSE CSI driver), ``mountpoint-s3`` (Mountpoint for Amazon S3 CSI driver v2) or ``blob-fuse2`` (Azure
    Blob CSI driver with BlobFuse2)."""


@dataclass(frozen=True)
class InferenceGateway:
    """The cloud's managed Gateway API controller that serves InferencePool backends itself (no chart)."""

    implementation: str
    """How the serving add-on's ``GatewayPlan.implementation`` names it."""
    external_class: str
    """The GatewayClass of an external load balancer."""
    internal_class: str
    """The GatewayClass of an internal load balancer."""
    requires: tuple[str, ...]
    """What the cluster must offer that the serving add-on does not create; ``{class_name}`` is the class used."""
    pool_policies: bool = False
    """Its load balancer needs a health check and a backend policy per InferencePool (GKE's ``HealthCheckPolicy``
    and ``GCPBackendPolicy``), which the serving add-on creates."""


@dataclass(frozen=True)
class NodeImage:
    """A GPU node image a cloud offers, and what it brings with it."""

    name: str
    """The cloud's own spelling (GKE ``image_type``, EKS ``ami_type``, AKS ``os_sku``)."""
    os: str
    """``cos``, ``ubuntu``, ``al2023``, ``bottlerocket`` or ``azurelinux``."""
    device_plugin: str = "operator"
    """Who runs the NVIDIA device plugin on it: ``operator`` or ``cloud`` (Bottlerocket ships its own)."""
    root_device: str | None = None
    """Block device of the root volume, where the cloud's launch template must name it (EKS)."""


@dataclass(frozen=True)
class DockerHostImage:
    """The VM image a single GPU host (``GpuDockerHost``) boots on this cloud, and what it brings."""

    service: str
    """The cloud's VM service, for messages (``Compute Engine``, ``EC2``, ``Azure Virtual Machines``)."""
    image: str
    """The cloud's reference to the image: a Compute Engine image family URL, an SSM parameter whose value is
    an AMI ID, or an Azure Marketplace ``publisher:offer:sku:version`` URN."""
    driver: str
    """The NVIDIA driver the image runs (or the driver cloud-init installs), taken as a floor for the CUDA
    check: the first production release of the branch when only the branch is fixed."""
    driver_from: str
    """``image`` (the cloud ships it on the image) or ``install`` (cloud-init installs it)."""
    source: str
    """Where the image and its driver are documented."""
    section: str
    """Key of this cloud's settings in ``GpuDockerHostArgs`` (``gce``, ``ec2``, ``azure``)."""
    input_problems: (
        Callable[[Mapping[str, Any], Mapping[str, Any], MachineType | None, Problems], None] | None
    ) = field(default=None, compare=False)
    """The cloud's own rules on a host's arguments, its settings section, and its machine (IDs, zones, labels as
    tags, user names, keys), each problem filed at its key; ``None``: none beyond the shared checks."""


def _no_state(type_: str, name: str, inputs: Mapping[str, Any]) -> dict[str, Any]:
    return {}


def _no_call(token: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
    return None


@dataclass(frozen=True)
class OperatorObject:
    """A Kubernetes object the GPU Operator's release needs first on a cloud (``gpu_operator_objects``)."""

    suffix: str
    """Its resource name after the component's (``<component>-<suffix>``)."""
    kind: str
    """``ResourceQuota`` or ``DaemonSet``."""
    metadata: Mapping[str, Any]
    spec: Mapping[str, Any]
    in_operator_namespace: bool = False
    """Created in the operator's namespace (its ``metadata`` has no namespace); else where ``metadata`` says."""


@dataclass(frozen=True)
class ResourceTypes:
    """The cloud provider's resource types as the offline plan and ``gpu-platform diff`` must know them."""

    force_new: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Properties the provider cannot change in place, per type token (a change replaces the resource)."""
    in_place_if: Mapping[tuple[str, str], Callable[[Any, Any], bool]] = field(default_factory=dict)
    """(type, path) -> predicate(old, new): a force-new change that is made in place when it holds."""
    stateful: frozenset[str] = frozenset()
    """Types whose removal or replacement loses state (clusters, networks, node pools and their pods)."""
    node_pools: frozenset[str] = frozenset()
    mock_state: Callable[[str, str, Mapping[str, Any]], dict[str, Any]] = _no_state
    """Outputs the provider adds to a resource that later code reads (offline plans)."""
    mock_call: Callable[[str, Mapping[str, Any]], dict[str, Any] | None] = _no_call
    """The result of a provider function (``None``: not this cloud's)."""
    diff_rules: tuple[DiffRule, ...] = ()
    """What ``gpu-platform diff`` flags in these resources beyond their replacement: what recreates a pool's nodes,
    repartitions their GPUs, restarts or replaces a VM (``gpu_platform.diff_rule``; docs/day2.md lists them)."""


class CloudProfile:
    """One cloud's facts and rules. Subclasses override what differs; the defaults describe a cloud that
    creates nothing special (no cloud-managed sharing, no capacity types, no extra labels)."""

    name: ClassVar[str]
    """The ``cloud:`` value of the stack file."""
    display: ClassVar[str]
    """How messages name it (``GKE``)."""
    article: ClassVar[str] = "a"
    """``a``/``an`` before ``display``."""
    extra: ClassVar[Extra | None] = None
    """The package extra bringing this cloud's Pulumi SDK (``None``: no SDK needed)."""
    resource_types: ClassVar[ResourceTypes] = ResourceTypes()
    creates_nodes: ClassVar[bool] = True
    """The library creates this cloud's clusters and pools (not a cluster made elsewhere)."""
    machines: ClassVar[Mapping[str, MachineType]] = {}
    images: ClassVar[Mapping[str, NodeImage]] = {}
    default_image: ClassVar[str | None] = None
    system_machine_type: ClassVar[str | None] = None
    """Default machine of the untainted system pool of a created cluster."""
    system_pool_labels: ClassVar[Mapping[str, str]] = {}
    """A label the cloud itself puts on every system-pool node, which controllers can be pinned to."""
    machine_shape: ClassVar[re.Pattern[str] | None] = None
    """What any machine type name of the cloud looks like (for the system pool's CPU machines)."""
    min_network_prefix: ClassVar[int] = 16
    """Largest prefix length of a new cluster's network (what the subnet layouts need)."""
    region_required: ClassVar[bool] = False
    cluster_keys: ClassVar[frozenset[str]] = frozenset()
    """``cluster`` keys that mean something on this cloud only."""
    region_shape: ClassVar[re.Pattern[str] | None] = None
    """What ``cluster.region`` looks like on this cloud (its regions, and on GKE its zones too); ``None``: any."""
    region_example: ClassVar[str] = ""
    """A region of this cloud, for messages."""
    host_driver_floor: ClassVar[str | None] = None
    """Oldest driver the cloud's GPU images ship (the CUDA check's floor for cloud-owned drivers)."""
    mig_manager_reboot: ClassVar[bool] = False
    """The GPU Operator's MIG manager must reboot nodes to apply a layout (cloud VMs)."""
    cloud_sharing_modes: ClassVar[frozenset[str]] = frozenset()
    """Sharing modes the cloud itself can manage (``sharing.managed_by: cloud``)."""
    cloud_mig_needs_cloud_driver: ClassVar[bool] = False
    """The cloud partitions GPUs only with the driver it installs itself (AKS ``gpu_instance_profile``)."""
    cloud_mig_strategy: ClassVar[str | None] = None
    """How the cloud's own device plugin advertises cloud-made MIG slices (``None``: the user's strategy)."""
    cloud_sharing_runs_own_device_plugin: ClassVar[bool] = False
    """Cloud-managed sharing is served by the cloud's device plugin, not the operator's."""
    default_device_plugin_off_label: ClassVar[tuple[str, str] | None] = None
    """The node label that keeps the cloud's default device plugin off where the operator's runs."""
    privileged_pods_need_scc: ClassVar[bool] = False
    """A privileged pod runs only once its ServiceAccount is granted an SCC that allows it (OpenShift): the GPU
    health checks (node-problem-detector reads ``/dev/kmsg``) are then off unless asked for."""
    system_pool_selector: ClassVar[Mapping[str, str]] = {}
    """A label the cloud itself puts on system-pool nodes (AKS ``kubernetes.azure.com/mode: system``)."""
    capacity_types: ClassVar[bool] = False
    """Pools take ``capacity_type`` (EKS ``ON_DEMAND``/``SPOT``/``CAPACITY_BLOCK``): ``pool_capacity_type``."""
    reservation_kind: ClassVar[str | None] = None
    """What a pool's ``reservation`` names on this cloud, for messages; ``None`` when it takes none."""
    capacity_sources: ClassVar[frozenset[str]] = frozenset({"on-demand", "spot"})
    """``capacity`` sources a pool of one source may name here (docs/capacity.md)."""
    chain_sources: ClassVar[frozenset[str]] = frozenset()
    """Sources a fallback chain (``capacity`` with several entries) may name; empty: no chains here."""
    chain_served_by: ClassVar[str | None] = None
    """What serves a chain on this cloud, for messages (GKE ComputeClass, Karpenter, AKS NAP)."""
    chain_provisioner: ClassVar[str | None] = None
    """The auto-provisioner of chains (``compute-class``, ``karpenter``, ``nap``), whose limits the pool meets."""
    chain_autoscaler: ClassVar[str | None] = None
    """The ``cluster.autoscaler`` a chain needs (EKS ``karpenter``); ``None``: the cloud's own provisioner."""
    chain_needs_created_cluster: ClassVar[bool] = False
    """The stack switches the chain's provisioner on in the cluster it creates (AKS NAP)."""
    reservation_affinities: ClassVar[bool] = False
    """Reservations take ``affinity`` (specific/any) and ``project`` (shared reservations): GKE."""
    max_run_sources: ClassVar[frozenset[str]] = frozenset()
    """Sources whose nodes the cloud reclaims after a maximum run duration (``max_run_hours``)."""
    max_run_hours: ClassVar[int] = 0
    provisioning_request_class: ClassVar[str | None] = None
    """The ProvisioningRequest class of ``queued-provisioning`` pools (Kueue's ProvisioningRequestConfig)."""
    """The cloud's largest ``max_run_hours`` (its default too)."""
    efa: ClassVar[bool] = False
    compact_placement: ClassVar[str | None] = None
    """What ``compact_placement`` makes on this cloud, for messages; ``None`` when it offers none."""
    compact_placement_series: ClassVar[tuple[str, ...]] = ()
    """Machine-name prefixes compact placement is documented for (empty: every GPU machine)."""
    spot_max_price: ClassVar[bool] = False
    publishes_allocatable: ClassVar[bool] = False
    """The cloud publishes the kubelet's reservations, so node allocatable can be computed."""
    kueue_vm_overhead: ClassVar[bool] = False
    """Kueue's VM memory overhead estimate applies (the node's memory is the VM's)."""
    autoscaler_choice: ClassVar[bool] = False
    """The stack chooses the cluster's autoscaler (``cluster.autoscaler``)."""
    platform_monitoring_namespace: ClassVar[str | None] = None
    """The platform runs its own Prometheus Operator and owns its CRDs (``monitoring.coreos.com``: OpenShift's
    cluster monitoring), which Helm cannot adopt: metrics go through it (ServiceMonitors and rules only), never
    a kube-prometheus-stack the library installs. The library's rules go in this namespace, created with
    ``platform_monitoring_labels`` so the platform's Prometheus reads them. ``None``: no such platform."""
    platform_monitoring_labels: ClassVar[Mapping[str, str]] = {}
    """The labels that make the platform's monitoring read a namespace's ServiceMonitors and rules."""
    platform_prometheus_namespace: ClassVar[str | None] = None
    """Where the platform's Prometheus (service account ``prometheus-k8s``) runs: what Kueue's metrics Role binds."""
    gpu_operator_namespace: ClassVar[str | None] = None
    """Where the GPU Operator runs when the platform installs it another way (OLM on OpenShift); ``None``: the
    Helm release's namespace."""
    platform_namespaces: ClassVar[Mapping[str, str]] = {}
    """Namespaces the platform itself owns or installs into (OpenShift's ``openshift-nfd``), with their owner:
    never a team's, a service's or Slurm's."""
    reserved_namespace_prefixes: ClassVar[tuple[str, ...]] = ("kube-",)
    """Namespace prefixes the platform keeps for itself: Kubernetes ``kube-`` ("Namespaces": avoid the prefix,
    it is reserved for Kubernetes system namespaces), OpenShift also ``openshift-``."""
    local_ssd_machines: ClassVar[Mapping[str, int]] = {}
    """Machine types whose local NVMe disks a pool with ``local_ssds`` uses (every other one is refused) -> how
    much the cloud's facts record of them: GKE local SSDs, EKS instance-store GB, AKS NVMe disks."""
    node_repair: ClassVar[str | None] = "the library creates none of this cluster's nodes, so it repairs none"
    """Why ``observability.node_auto_repair`` does nothing here (``false`` is refused, naming it); ``None`` where it
    is the cloud's node-repair setting, which the stack turns on (EKS)."""
    managed_prometheus: ClassVar[str | None] = None
    """The cloud's managed Prometheus (its ``observability.backend`` value), or ``None`` where there is none."""
    docker_host: ClassVar[DockerHostImage | None] = None
    """The image of a single GPU Docker host (``GpuDockerHost``) on this cloud; ``None``: not offered."""
    declared_node_keys: ClassVar[frozenset[str]] = frozenset()
    """Pool keys a catalog machine still needs declared (Yandex: the node's allocatable ``cpus_per_node`` and
    ``memory_gib_per_node``, which the cloud does not publish)."""
    model_bucket: ClassVar[ModelBucket | None] = None
    """The cloud's object store as a model-weight mount (``serving``); ``None``: models in a bucket are downloaded
    by KServe's storage initializer."""
    local_nvme_ephemeral_storage: ClassVar[bool] = False
    """A pool's local NVMe (``local_ssds``) holds the node's ephemeral storage, so ``emptyDir`` volumes (KServe's
    download, a bucket mount's file cache) are on it: GKE's local SSDs as ephemeral storage, EKS's instance store
    (the kubelet's RAID0). Not AKS: its NVMe data disks are raw disks only Azure Container Storage serves."""
    inference_gateway: ClassVar[InferenceGateway | None] = None
    """The cloud's managed inference Gateway (``serving``); ``None``: the serving add-on installs Envoy Gateway
    with Envoy AI Gateway."""

    @classmethod
    def sdk(cls, by: object) -> ModuleType:
        """Import the cloud's Pulumi SDK; a missing extra is one line naming it (``MissingExtraError``)."""
        if cls.extra is None:
            raise TypeError(f"{cls.name} needs no cloud SDK")
        return require(cls.extra, by)

    @classmethod
    def chain_selector(cls, pool: GpuPool) -> dict[str, str]:
        """Node labels a pod must select so the chain's auto-provisioner creates nodes for it (beyond the pool's
        own labels, which every node of the pool carries)."""
        return {}

    @classmethod
    def reservation_problem(cls, source: str, reservation: str) -> str | None:
        """Why ``reservation`` cannot name a reservation of ``source`` here (``None``: it can)."""
        return None

    # --- machines ------------------------------------------------------------------------------------

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

    # --- where machines are offered ------------------------------------------------------------------

    @classmethod
    def zone_region(cls, zone: str) -> str | None:
        """The region of a zone name, or ``None`` when ``zone`` is not one (or the cloud's zones do not name
        their region, like Azure's ``1``)."""
        return None

    @classmethod
    def region_zones(cls, region: str) -> tuple[str, ...] | None:
        """Every zone of ``region`` as the cloud publishes them; ``None``: not published."""
        return None

    @classmethod
    def region_problem(cls, region: str) -> str | None:
        """Why ``region`` is no region of this cloud (an availability zone, another cloud's region), or ``None``."""
        if cls.region_shape is None or cls.region_shape.match(region):
            return None
        zone = region.isdigit() or (region[-1:].isalpha() and cls.region_shape.match(region[:-1]) is not None)
        what = "an availability zone, not a region" if zone else f"not {cls.article} {cls.display} region"
        return f"'{region}' is {what}; give a region like {cls.region_example}"

    @classmethod
    def namespace_owner(cls, name: str) -> str | None:
        """Who owns namespace ``name`` on this platform, for messages (``None``: a team or service may use it): its
        own namespaces, those it installs the library's operators or monitoring into, and its reserved prefixes."""
        owned = {
            **{ns: f"{cls.display}'s {what}" for ns, what in cls.platform_namespaces.items()},
            **{
                ns: f"the namespace of {what} on {cls.display}"
                for ns, what in (
                    (cls.gpu_operator_namespace, "the GPU Operator"),
                    (cls.platform_prometheus_namespace, "the platform's Prometheus"),
                    (cls.platform_monitoring_namespace, "the library's GPU monitoring rules"),
                )
                if ns
            },
        }
        if name in owned:
            return owned[name]
        prefix = next((x for x in cls.reserved_namespace_prefixes if name.startswith(x)), None)
        return f"in the '{prefix}*' namespaces reserved on {cls.display}" if prefix else None

    @classmethod
    def offered_zones(cls, machine: MachineType, region: str) -> tuple[str, ...] | None:
        """The zones of ``region`` that offer ``machine``'s GPU, in order, where the cloud publishes it;
        ``None`` where nothing is published for that GPU or region, so nothing is refused."""
        return None

    @classmethod
    def offering_regions(cls, machine: MachineType) -> tuple[str, ...]:
        """The regions with a zone that offers ``machine``'s GPU (empty where not published)."""
        return ()

    @classmethod
    def offer_source(cls) -> str:
        """Where ``offered_zones`` comes from, for messages."""
        return ""

    # --- node allocatable ----------------------------------------------------------------------------

    eviction_memory_mib: ClassVar[int] = 0

    @classmethod
    def default_max_pods(cls, machine_type: str, vcpus: int) -> int:
        raise ValueError(f"no published node reservation for cloud {cls.name!r}")

    @classmethod
    def reserved(cls, vcpus: int, memory_mib: int, max_pods: int) -> tuple[int, int]:
        """CPU millicores and memory MiB the kubelet reserves on a node."""
        raise ValueError(f"no published node reservation for cloud {cls.name!r}")

    # --- images and drivers --------------------------------------------------------------------------

    @classmethod
    def image(cls, pool: GpuPool) -> NodeImage | None:
        name = pool.image or cls.default_image
        return cls.images.get(name) if name else None

    @classmethod
    def driver(
        cls,
        image: str | None,
        owner: str,
        operator_version: str,
        driver_version: str | None = None,
        host_version: str | None = None,
    ) -> DriverPlan:
        """Who owns the driver, toolkit and device plugin on this cloud's ``image`` (``DriverPlanError`` names
        what is supported when the ownership is not)."""
        from gpu_platform.catalog.drivers import DriverVersion
        from gpu_platform.driver import operator_driver_version

        op_version = operator_driver_version(operator_version, driver_version)
        host = DriverVersion.parse(host_version) if host_version else None
        return cls.plan_driver(image, owner, op_version, host)

    @classmethod
    def image_ships_device_plugin(cls, name: str) -> bool:
        """Nodes of this image run the cloud's own NVIDIA device plugin (also for images outside the table,
        as the policy pack sees programs that are not the library's)."""
        image = cls.images.get(name)
        return image is not None and image.device_plugin == "cloud"

    @classmethod
    def plan_driver(
        cls, image: str | None, owner: str, operator: DriverVersion, host: DriverVersion | None
    ) -> DriverPlan:
        raise DriverPlanError(f"no driver rules for cloud {cls.name!r}")

    @classmethod
    def driver_installer(cls, pool: GpuPool) -> UpstreamFile | None:
        """The cloud's driver-installer manifest for ``pool``'s nodes, deployed when the driver plan says
        ``cloud_installer``; ``None``: the cloud has none."""
        return None

    @classmethod
    def gpu_operator_objects(
        cls, pools: Sequence[GpuPool], driver: DriverPlan, installer_version: str | None
    ) -> list[OperatorObject]:
        """What the GPU Operator's release needs first on this cloud, beyond its own ConfigMaps (GKE: the quota
        that admits its critical-priority pods, and the cloud's driver installer when the driver plan says
        ``cloud_installer``); ``installer_version``: ``gpuOperator.driver.installerVersion``."""
        return []

    @classmethod
    def driver_root(cls, driver: DriverPlan) -> str:
        """Where the driver's files are on the host (the DRA plugin's ``nvidiaDriverRoot``)."""
        return "/"

    @classmethod
    def gpu_operator_values(cls, values: dict[str, Any], driver: DriverPlan) -> None:
        """Adjust the GPU Operator's values to how the cloud ships the driver and toolkit (in place)."""

    # --- labels and taints ---------------------------------------------------------------------------

    @classmethod
    def accelerator_label(cls, pool: GpuPool) -> tuple[str, str] | None:
        """The autoscaler's GPU label, on pools whose nodes advertise ``nvidia.com/gpu``."""
        return None

    startup_taint_for_late_resources: ClassVar[bool] = False
    """The cloud's pools are grown by an upstream Cluster Autoscaler the library knows honours startup taints
    (``pools.STARTUP_TAINT``): pools whose GPU resources appear late carry it until they do."""

    @classmethod
    def added_taints(cls, pool: GpuPool) -> list[Taint]:
        """Taints the cloud adds to a pool's nodes by itself, which workloads must tolerate too."""
        return []

    # --- checks --------------------------------------------------------------------------------------

    @classmethod
    def pool_problems(cls, pool: GpuPool, p: Problems) -> None:
        """The cloud's own limits on one pool (``p`` is the pool's location)."""

    @classmethod
    def cross_pool_problems(cls, pools: Sequence[GpuPool], at: PoolProblems) -> None:
        """Limits across a cluster's pools."""

    @classmethod
    def auto_pool_problems(cls, pool: GpuPool, p: Problems) -> None:
        """Limits on a pool an auto-provisioner creates (Karpenter, NAP, ComputeClass)."""

    @classmethod
    def autoscaler_problems(
        cls,
        c: Mapping[str, Any],
        create: bool,
        pools: Sequence[GpuPool],
        at: PoolProblems,
        p: Problems,
        version: str | None,
    ) -> str | None:
        """Where the stack chooses the cluster's autoscaler (``autoscaler_choice``): the choice, with its
        default, after what it needs of the cluster section ``c`` and the pools (``version``: the cluster's
        ``kubernetes_version`` when it is a valid one). ``None``: no choice here."""
        return None

    @classmethod
    def pool_capacity_type(cls, source: str) -> str | None:
        """The ``capacity_type`` of a one-source pool whose first source is ``source`` (where the cloud has
        ``capacity_types``)."""
        return None

    @classmethod
    def provisioner_problems(cls, pool: GpuPool, p: Problems) -> None:
        """What the cloud's auto-provisioner (``chain_provisioner``) cannot express of a pool it serves
        (``cloud_facts/<cloud>/autoprovisioning.py``); nothing where the cloud has none."""

    @classmethod
    def node_group_problems(cls, pool: GpuPool, p: Problems) -> None:
        """Limits on a pool the library creates as the cloud's own node group (not an auto-provisioner's)."""

    @classmethod
    def node_agent_taints(cls, pool: GpuPool) -> list[Taint]:
        """Taints the cloud puts on some of the pool's nodes that only the node agents (driver, device plugin,
        exporter, health checks, fabric installers) tolerate, never workloads: the cloud lets only the pods it
        meant for those nodes in (GKE queued provisioning)."""
        return []

    @classmethod
    def auto_pool_driver_problem(cls, driver: DriverPlan) -> str | None:
        """Why a pool the cloud's auto-provisioner creates cannot run under the cluster's driver plan (AKS NAP
        with the operator's driver); ``None``: it can. One message for the stack and the component."""
        return None

    @classmethod
    def dra_pool_problems(cls, pool: GpuPool, p: Problems) -> None:
        """What a DRA pool cannot be on this cloud."""

    @classmethod
    def gpu_operator_setting_problems(cls, settings: Mapping[str, Any], p: Problems) -> None:
        """``gpu_operator`` settings that would do nothing on this platform (``p`` is at the section)."""

    @classmethod
    def scale_from_zero_problem(cls, pool: GpuPool) -> str | None:
        """Why the cloud's autoscaler cannot grow this pool from zero nodes, or ``None`` when it can."""
        return None

    scale_from_zero_fix: ClassVar[str] = "{{min_nodes}} 1 (one node always up)"

    @classmethod
    def zone_pattern(cls, region: str) -> tuple[str, re.Pattern[str], str] | None:
        """The region a pool's zones must be in, what a zone of it looks like and an example."""
        return None

    @classmethod
    def attach_problems(
        cls, c: Mapping[str, Any], pools: Sequence[GpuPool], at: PoolProblems, p: Problems
    ) -> None:
        """What attaching pools to a cluster made elsewhere needs on this cloud."""

    @classmethod
    def cluster_zones(
        cls, c: Mapping[str, Any], region: str | None, pools: Sequence[GpuPool], at: PoolProblems, p: Problems
    ) -> tuple[str, ...]:
        """The cluster's zones from ``cluster.zones``, checked (``()`` where the cloud chooses)."""
        return ()

    @classmethod
    def cluster_settings_problems(
        cls, c: Mapping[str, Any], vpc: str | None, pools: Sequence[GpuPool], at: PoolProblems, p: Problems
    ) -> None:
        """Cloud-only cluster settings checked (``p`` is the cluster section); ``vpc`` is a new cluster's
        network (``vpc_cidr`` with its default), ``None`` when the cluster was made elsewhere or it is refused."""

    @classmethod
    def dra_values(cls, values: dict[str, Any]) -> None:
        """Adjust the NVIDIA DRA driver's chart values to the cloud (in place)."""
