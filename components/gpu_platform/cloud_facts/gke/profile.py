"""GKE: machines, node images, driver ownership, allocatable, labels, zones and pool rules."""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, ClassVar

from gpu_platform.catalog.allocatable import MIB_PER_GIB, bracketed
from gpu_platform.catalog.cpu_machines import CpuShape
from gpu_platform.catalog.drivers import DriverVersion
from gpu_platform.catalog.machines import MachineType
from gpu_platform.cloud_facts.gke import machines as table
from gpu_platform.cloud_facts.gke import resource_types as types
from gpu_platform.cloud_facts.gke import zones as gpu_zones
from gpu_platform.cloud_facts.gke.allocatable import (
    CPU_BRACKETS,
    DEFAULT_MAX_PODS,
    MEMORY_BRACKETS,
    SMALL_MACHINE_MEMORY_MIB,
)
from gpu_platform.cloud_facts.gke.autoprovisioning import compute_class_pool_problems
from gpu_platform.cloud_facts.gke.critical_pods import GKE_QUOTA_NAME, gke_resource_quota_spec
from gpu_platform.cloud_facts.gke.driver_installer import (
    A4X_INSTALLER,
    GKE_INSTALLER_NAME,
    gke_driver_installers,
    installer_file,
)
from gpu_platform.cloud_facts.gke.gpudirect import (
    DEFAULT_GPU_NETWORK_CIDR,
    LONGEST_GPU_NETWORK_PREFIX,
    GpuNetworkLayout,
)
from gpu_platform.cloud_facts.gke.host_inputs import host_input_problems
from gpu_platform.cloud_facts.gke.local_ssd import EPHEMERAL_LOCAL_SSDS
from gpu_platform.cloud_facts.gke.reservations import reservation_path_problem
from gpu_platform.cloud_facts.gke.serving import METRICS_READER, proxy_subnet_problem
from gpu_platform.cloud_facts.profile import (
    CloudProfile,
    DockerHostImage,
    InferenceGateway,
    ModelBucket,
    NodeImage,
    OperatorObject,
    PoolProblems,
    ResourceTypes,
)
from gpu_platform.driver import DriverPlan, DriverPlanError
from gpu_platform.errors import Problems
from gpu_platform.formats.network import private_network_problem
from gpu_platform.pools import GpuPool, Taint
from gpu_platform.sdk import Extra
from gpu_platform.versions import UpstreamFile

DRIVER_DIR = "/home/kubernetes/bin/nvidia"
"""Where Google's installer puts the driver on GKE nodes."""
NO_DEFAULT_DEVICE_PLUGIN_LABEL = "gke-no-default-nvidia-gpu-device-plugin"
"""Keeps GKE's own device plugin off a node where the GPU Operator's runs."""
INSTALLATION_DISABLED = "INSTALLATION_DISABLED"
"""``gpu_driver_installation_config.gpu_driver_version``: GKE installs nothing, the library's path does."""
SHARING_STRATEGY = {"time-slicing": "TIME_SHARING", "mps": "MPS"}
"""GKE-managed sharing: ``gpu_sharing_config.gpu_sharing_strategy`` per sharing mode."""
HOST_DRIVER_FLOOR = "535.230.02"
"""GKE automatic install "DEFAULT" installs the R535 branch on current GKE versions [U]: the CUDA check's
floor for cloud-owned drivers (override with ``gpuOperator.driver.hostVersion``)."""


ARM_TAINT = Taint("kubernetes.io/arch", "arm64", "NoSchedule")
"""GKE puts it on every Arm node (node pool ``taint_config.architecture_taint_behavior`` unset means ``ARM``), so
only pods that tolerate it land there ("Prepare an Arm workload for deployment",
https://cloud.google.com/kubernetes-engine/docs/how-to/prepare-arm-workloads-for-deployment). The library's
node pools leave it to GKE (Pulumi manages no taint GKE adds) and every pod it places on such a pool, and every
Kueue flavor, tolerates it."""
QUEUED_TAINT = Taint("cloud.google.com/gke-queued", "true", "NoSchedule")
"""GKE puts it on the nodes of queued-provisioning pools (GoogleCloudPlatform/cluster-toolkit
``modules/compute/gke-node-pool/main.tf``); GKE's webhook adds its toleration only to pods that consume a
ProvisioningRequest (kubernetes-sigs/kueue#14316). Workloads never tolerate it (the requested nodes stay theirs);
every DaemonSet a GPU node needs must, or the node never advertises its GPUs and admitted jobs stay Pending."""


GPUDIRECT_AUTO_POOL = (
    "the extra NICs are attached to node pools the library creates; an auto-created pool (a capacity chain, "
    "served by a ComputeClass) gets none: give the pool one capacity source"
)


def a4x_problems(pool: GpuPool, p: Problems) -> None:
    """What an A4X pool must be: served by Google's A4X installer, a COS installer that partitions nothing."""
    if (pool.image or "COS_CONTAINERD") != "COS_CONTAINERD":
        p.add(
            ("image",),
            f"{pool.machine.name if pool.machine else 'A4X'} needs COS_CONTAINERD: the library installs its "
            "driver with Google's A4X installer for Container-Optimized OS (nvidia-driver-installer/cos/"
            "daemonset-preloaded-latest-a4x.yaml); the GPU Operator's driver on Ubuntu Arm nodes is not "
            "documented for GKE",
        )
    s = pool.sharing
    if s.mode == "mig" and s.managed_by == "cloud":
        p.add(
            ("sharing", "managed_by"),
            "Google's A4X driver installer has no partition container, so GKE's gpu_partition_size is never "
            "applied: use 'operator' (the GPU Operator's MIG manager)",
        )


def nvlink_domain_problems(pool: GpuPool, p: Problems) -> None:
    """What a pool placed in one NVLink domain by a workload policy must be (``catalog/nvlink.py``): in one zone,
    no bigger than the domain, and served by a reservation, the only way Compute Engine provisions these VMs."""
    machine = pool.machine
    domain = machine.nvlink_domain if machine is not None else None
    if machine is None or domain is None:
        return
    what = f"{machine.name} pools are placed in one {domain.name} domain by a workload policy"
    if len(pool.zones) != 1:
        p.add(("zones",), f"{what}, which is in one zone: give exactly one zone (got {len(pool.zones)})")
    most = domain.nodes(pool.gpus_per_node)
    if pool.max_nodes > most:
        p.add(
            ("max_nodes",),
            f"{what}: one domain holds {most} nodes ({domain.gpus} GPUs, {pool.gpus_per_node} per node), so "
            f"{{{{max_nodes}}}} is at most {most} (got {pool.max_nodes}); add a pool per further domain",
        )
    if pool.chain:
        p.add(
            ("capacity",),
            f"{what}, which only node pools the library creates carry; a capacity chain is served by auto-created "
            "pools: give the pool one reservation",
        )
    elif not pool.primary.reserved:
        p.add(
            ("capacity",),
            f"{what}; Compute Engine creates such VMs only from a reservation (reservation-bound provisioning), "
            f"not '{pool.primary.source}': use [{{source: reservation, reservation: <name>}}]",
        )


def auto_pool_nvlink_domain_problems(pool: GpuPool, p: Problems) -> None:
    """Node pools GKE creates itself (a ComputeClass) get no workload policy from the library."""
    domain = pool.machine.nvlink_domain if pool.machine is not None else None
    if pool.machine is not None and domain is not None:
        p.add(
            ("machine_type",),
            f"{pool.machine.name} nodes are placed in one {domain.name} domain by a workload policy, which only "
            "node pools the library creates carry: use a GkeGpuNodePool",
        )


def gpudirect_problems(pool: GpuPool, p: Problems) -> None:
    """What a GPUDirect pool must be on GKE: a COS node pool of one capacity source (RDMA: in one zone)."""
    g = pool.gpudirect
    if g is None:
        return
    if (pool.image or "COS_CONTAINERD") != "COS_CONTAINERD":
        p.add(
            ("image",),
            f"{g.display} needs COS_CONTAINERD: Google's NCCL plugin installer writes to /home/kubernetes/bin, "
            "a Container-Optimized OS path",
        )
    if pool.chain:
        p.add(("gpudirect",), GPUDIRECT_AUTO_POOL)
    if g.kind == "rdma" and len(pool.zones) != 1:
        p.add(
            ("zones",),
            f"{g.display}: the RDMA VPC uses a zone's RoCE network profile (<zone>-vpc-roce): give exactly one "
            f"zone (got {len(pool.zones)})",
        )


_SPARE_RANGES = ("192.168.0.0/16", "172.16.0.0/16", "10.128.0.0/16")
"""Private ranges to suggest when the one given overlaps the cluster's network."""


def gpu_network_problems(
    cidr: str, cluster_network: str | None, pools: Sequence[GpuPool], p: Problems
) -> None:
    """``gpu_network_cidr``, the range the GPUDirect subnets come from: a private IPv4 network outside the
    cluster's network (its node, Pod and Service ranges: a pod's extra interfaces would otherwise route cluster
    addresses into a GPU VPC), with a subnet for every extra NIC and an address in each for every node."""
    key = ("gpu_network_cidr",)
    if reason := private_network_problem(cidr, DEFAULT_GPU_NETWORK_CIDR):
        p.add(key, reason)
        return
    net = ipaddress.IPv4Network(cidr)
    if net.prefixlen > LONGEST_GPU_NETWORK_PREFIX:
        p.add(
            key,
            f"'{cidr}' is too small: each RDMA subnet is a thirty-second of it and a Compute Engine subnet is a "
            f"/29 or larger: give a /{LONGEST_GPU_NETWORK_PREFIX} or larger",
        )
        return
    if cluster_network is not None and net.overlaps(cluster := ipaddress.IPv4Network(cluster_network)):
        spare = next((r for r in _SPARE_RANGES if not ipaddress.IPv4Network(r).overlaps(cluster)), "")
        p.add(
            key,
            f"'{cidr}' overlaps the cluster's network {cluster_network} ({{{{vpc_cidr}}}}: its node, Pod and "
            f"Service ranges): give a private range outside it, a /{LONGEST_GPU_NETWORK_PREFIX} or larger"
            + (f", such as {spare}" if spare else ""),
        )
        return
    _gpu_subnet_room(GpuNetworkLayout(net), pools, p)


def _gpu_subnet_room(layout: GpuNetworkLayout, pools: Sequence[GpuPool], p: Problems) -> None:
    """Every served path's NICs have a subnet slot, and every node an address in each subnet it attaches."""
    for kinds, name, subnets in (
        (("tcpx", "tcpxo"), "gVNIC", layout.gvnic_subnets),
        (("rdma",), "RDMA", layout.rdma_subnets),
        (("rdma",), "gvnic-1", [layout.second_gvnic]),
    ):
        served = [(q, q.gpudirect) for q in pools if q.gpudirect is not None and q.gpudirect.kind in kinds]
        if not served:
            continue
        nics = max(g.rdma_nics if name == "RDMA" else g.gvnics for _, g in served)
        if nics > len(subnets):
            p.add(
                ("gpu_network_cidr",), f"{nics} {name} NICs need {nics} subnets; the split has {len(subnets)}"
            )
        nodes = sum(q.max_nodes for q, _ in served)
        if nodes > (room := layout.usable(subnets[0])):
            p.add(
                ("gpu_network_cidr",),
                f"the GPUDirect pools' up to {nodes} nodes need an address each in every {name} subnet, a "
                f"/{subnets[0].prefixlen} of {layout.network} with {room}: give a larger range",
            )


def region_of(location: str) -> str:
    """``us-central1-a`` -> ``us-central1``; a region stays as it is."""
    parts = location.split("-")
    return "-".join(parts[:2]) if len(parts) > 2 else location


GCE_ZONE = re.compile(r"^[a-z]+-[a-z]+[0-9]+-[a-z]$")
"""A Compute Engine zone name (``us-central1-a``)."""
GCE_NAME = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")
"""Compute Engine resource names (RFC 1035), which reservations are."""


class GkeProfile(CloudProfile):
    name = "gke"
    display = "GKE"
    extra = Extra("gke", "pulumi_gcp", "pulumi-gcp", "the Google Cloud SDK")
    docker_host = DockerHostImage(
        service="Compute Engine",
        image="projects/deeplearning-platform-release/global/images/family/common-cu128-ubuntu-2204-nvidia-570",
        driver="570.26",
        driver_from="image",
        source="Google Cloud Deep Learning VM images (image family common-cu128-ubuntu-2204-nvidia-570: Ubuntu "
        "22.04, CUDA 12.8, NVIDIA driver branch 570 preinstalled); 570.26 is the branch's first release, the "
        "CUDA 12.8 minimum",
        section="gce",
        input_problems=host_input_problems,
    )
    resource_types = ResourceTypes(
        types.FORCE_NEW,
        types.IN_PLACE_IF,
        types.STATEFUL,
        types.NODE_POOLS,
        types.mock_state,
        types.mock_call,
        diff_rules=types.DIFF_RULES,
    )
    machines: ClassVar[Mapping[str, MachineType]] = table.MACHINES
    images: ClassVar[Mapping[str, NodeImage]] = {
        "COS_CONTAINERD": NodeImage("COS_CONTAINERD", "cos"),
        "UBUNTU_CONTAINERD": NodeImage("UBUNTU_CONTAINERD", "ubuntu"),
    }
    default_image = "COS_CONTAINERD"
    system_machine_type = "e2-standard-4"
    machine_shape = table.MACHINE_NAME
    region_required = True
    region_shape = re.compile(r"^[a-z]+-[a-z]+[0-9]+(-[a-z])?$")
    region_example = "us-central1"
    cluster_keys = frozenset({"project", "gpu_network_cidr", "proxy_subnet_cidr"})
    host_driver_floor = HOST_DRIVER_FLOOR
    driver_installer_nodes = "GKE COS nodes, where Google's installer puts the driver"
    mig_manager_reboot = True
    managed_prometheus = "gke-managed-prometheus"
    node_repair = (
        "the node pools are planned with GKE's node auto-repair on (management.autoRepair), as GKE recommends, "
        "except flex-start and queued-provisioning pools, where GKE refuses it"
    )
    cloud_sharing_modes = frozenset({"time-slicing", "mps", "mig"})
    cloud_mig_strategy = "single"
    cloud_sharing_runs_own_device_plugin = True
    default_device_plugin_off_label = (NO_DEFAULT_DEVICE_PLUGIN_LABEL, "true")
    reservation_kind = "GKE reservations"
    # A node pool has one provisioning model (nodeConfig.spot / reservationAffinity / flexStart /
    # queuedProvisioning); a chain of them is a custom ComputeClass's priorities.
    capacity_sources = frozenset(
        {"on-demand", "spot", "reservation", "capacity-block", "flex-start", "queued-provisioning"}
    )
    chain_sources = frozenset({"on-demand", "spot", "reservation", "capacity-block", "flex-start"})
    chain_served_by = "a GKE custom ComputeClass"
    chain_provisioner = "compute-class"
    reservation_affinities = True
    # Flex-start and queued-provisioning VMs run at most seven days (GKE "About GPU obtainability with
    # flex-start" and "Dynamic Workload Scheduler" pages).
    max_run_sources = frozenset({"flex-start", "queued-provisioning"})
    max_run_hours = 168
    provisioning_request_class = "queued-provisioning.gke.io"

    @classmethod
    def chain_selector(cls, pool: GpuPool) -> dict[str, str]:
        # GKE auto-creates node pools only for pods that select the ComputeClass by this label.
        return {"cloud.google.com/compute-class": pool.name}

    @classmethod
    def reservation_problem(cls, source: str, reservation: str) -> str | None:
        return reservation_path_problem(reservation)

    local_ssd_machines = EPHEMERAL_LOCAL_SSDS
    local_nvme_ephemeral_storage = True
    model_bucket = ModelBucket("gs", "gcsfuse")
    """``gs://`` buckets through the Cloud Storage FUSE CSI driver (``gcsfuse.csi.storage.gke.io``; Google's
    "Optimize the Cloud Storage FUSE CSI driver for GKE performance")."""
    inference_gateway = InferenceGateway(
        "gke",
        external_class="gke-l7-regional-external-managed",
        internal_class="gke-l7-rilb",
        requires=(),
        pool_policies=True,
        network_requires=(
            "the cluster's Gateway API enabled (gateway_api_config channel CHANNEL_STANDARD), which installs "
            "the Gateway API CRDs and GKE's GatewayClasses",
            "a proxy-only subnet (purpose REGIONAL_MANAGED_PROXY) in the cluster's region and VPC, which "
            "{class_name} load balancers need",
        ),
    )
    """GKE Inference Gateway: GKE's managed Gateway controller serves InferencePool backends with its regional
    classes, given the health check and backend policies the gateway-api-inference-extension's ``inferencepool``
    chart renders for ``provider.name: gke`` (v1.5.0 ``config/charts/inferencepool/templates/gke.yaml``)."""
    metrics_reader = METRICS_READER
    """KEDA reads Managed Service for Prometheus as a Google service account (``cloud_facts.gke.serving``)."""
    compact_placement = "a COMPACT placement policy"
    compact_placement_series = ("a2-", "a3-", "a4-", "g2-")
    """GPU series GKE documents compact placement for (A100, H100/H200/B200, L4; "Define compact placement
    for GKE nodes"); N1 with T4 is not among them."""
    publishes_allocatable = True
    kueue_vm_overhead = True
    eviction_memory_mib = 100
    scale_from_zero_fix = (
        "{{min_nodes}} 1 (one node always up), or GKE-managed sharing ({{sharing.managed_by}} cloud), "
        "which GKE's autoscaler knows"
    )

    @classmethod
    def cpu_shape(cls, name: str) -> CpuShape | None:
        return table.cpu_shape(name)

    @classmethod
    def default_max_pods(cls, machine_type: str, vcpus: int) -> int:
        return DEFAULT_MAX_PODS

    @classmethod
    def reserved(cls, vcpus: int, memory_mib: int, max_pods: int) -> tuple[int, int]:
        cpu = math.ceil(bracketed(Fraction(vcpus * 1000), CPU_BRACKETS))
        if memory_mib < MIB_PER_GIB:
            return cpu, SMALL_MACHINE_MEMORY_MIB
        return cpu, math.ceil(bracketed(Fraction(memory_mib), MEMORY_BRACKETS))

    @classmethod
    def plan_driver(
        cls, image: str | None, owner: str, operator: DriverVersion, host: DriverVersion | None
    ) -> DriverPlan:
        image = image or cls.default_image
        if owner == "operator" or (owner == "auto" and image == "UBUNTU_CONTAINERD"):
            # NVIDIA's GKE path B: the operator's driver manager, supported on Ubuntu images only.
            if image != "UBUNTU_CONTAINERD":
                raise DriverPlanError(
                    "the GPU Operator can install the driver on GKE only on UBUNTU_CONTAINERD images; "
                    f"'{image}' needs owner 'cloud' (Google's installer)"
                )
            return DriverPlan("operator", "operator", "operator", operator, pool_driver=INSTALLATION_DISABLED)
        if image == "UBUNTU_CONTAINERD":
            # Google's Ubuntu installer manifest depends on GPU model and node version; only the COS
            # installer is deployed by the library.
            raise DriverPlanError(
                "owner 'cloud' on GKE uses Google's COS driver installer; UBUNTU_CONTAINERD nodes need "
                "owner 'operator' (or 'auto'): NVIDIA's driver manager path for Ubuntu"
            )
        # NVIDIA's GKE path A: GKE's own install disabled, Google's COS installer DaemonSet puts the
        # driver under /home/kubernetes/bin/nvidia; the operator only adds toolkit/plugin/DCGM.
        floor = host or DriverVersion.parse(HOST_DRIVER_FLOOR)
        return DriverPlan(
            "cloud", "operator", "operator", floor, pool_driver=INSTALLATION_DISABLED, cloud_installer=True
        )

    @classmethod
    def driver_installer(cls, pool: GpuPool) -> UpstreamFile:
        return installer_file(pool)

    @classmethod
    def gpu_operator_objects(
        cls, pools: Sequence[GpuPool], driver: DriverPlan, installer_version: str | None
    ) -> list[OperatorObject]:
        quota = OperatorObject(
            "gke-critical-pods",
            "ResourceQuota",
            {"name": GKE_QUOTA_NAME},
            gke_resource_quota_spec(pools),
            in_operator_namespace=True,
        )
        installers = gke_driver_installers(pools, installer_version) if driver.cloud_installer else []
        return [
            quota,
            *(
                OperatorObject(
                    "gke-driver-installer" + d["metadata"]["name"].removeprefix(GKE_INSTALLER_NAME),
                    "DaemonSet",
                    d["metadata"],
                    d["spec"],
                )
                for d in installers
            ),
        ]

    @classmethod
    def driver_root(cls, driver: DriverPlan) -> str:
        return DRIVER_DIR

    @classmethod
    def gpu_operator_values(cls, values: dict[str, Any], driver: DriverPlan) -> None:
        # NVIDIA google-gke.rst; toolkit env works around GKE 1.33+ containerd config (its known issue).
        values["cdi"] = {"enabled": True}
        if driver.toolkit == "operator":
            values["toolkit"]["env"] = [{"name": "RUNTIME_CONFIG_SOURCE", "value": "file"}]
        if driver.cloud_installer:
            values["hostPaths"] = {"driverInstallDir": DRIVER_DIR}
            values["toolkit"]["installDir"] = DRIVER_DIR

    @classmethod
    def dra_values(cls, values: dict[str, Any]) -> None:
        # NVIDIA's GKE overrides (dra-intro-install, 26.3): GKE admits critical priority classes outside
        # kube-system only under a quota, and the controller's control-plane affinity cannot be met.
        values["kubeletPlugin"]["priorityClassName"] = ""
        values["controller"] = {"priorityClassName": "", "affinity": None}

    @classmethod
    def pool_problems(cls, pool: GpuPool, p: Problems) -> None:
        if pool.machine is None or not pool.machine.accelerator_type:
            p.add(("machine_type",), "GKE needs a machine type with a guest accelerator")
        elif cls.driver_installer(pool) == A4X_INSTALLER:
            a4x_problems(pool, p)
        nvlink_domain_problems(pool, p)
        if pool.compact_placement and pool.reservation:
            p.add(
                ("compact_placement",),
                "a reservation places its VMs itself (consume its block: "
                "<reservation>/reservationBlocks/<block>); remove compact_placement",
            )
        gpudirect_problems(pool, p)
        s = pool.sharing
        if s.managed_by == "cloud" and s.mode == "mig" and any("+" in prof for prof in s.mig_profiles):
            p.add(
                ("sharing", "mig", "layout"),
                "GKE gpu_partition_size takes plain <n>g.<m>gb profiles, not '+me' ones",
            )
        zones = len(pool.zones)
        per_zone = -(-pool.initial_nodes // zones) if zones else 0
        if zones > 1 and per_zone * zones > pool.max_nodes:
            # GKE's initial_node_count is per zone; the plan rounds up so no zone starts short.
            p.add(
                ("initial_nodes",),
                f"GKE starts {per_zone} node(s) in each of the {zones} zones, {per_zone * zones} in all, more "
                f"than {{{{max_nodes}}}} {pool.max_nodes}: "
                + (
                    f"use {zones * (pool.max_nodes // zones)} (a multiple of {zones}) or fewer zones"
                    if pool.max_nodes >= zones
                    else "use 0 or fewer zones"
                ),
            )

    @classmethod
    def cross_pool_problems(cls, pools: Sequence[GpuPool], at: PoolProblems) -> None:
        # One RoCE VPC serves every RDMA pool of the cluster, and its network profile is a zone's.
        rdma = [
            p for p in pools if p.gpudirect is not None and p.gpudirect.kind == "rdma" and len(p.zones) == 1
        ]
        for pool in rdma[1:]:
            if pool.zones[0] != rdma[0].zones[0]:
                at(pool.index).add(
                    ("zones",),
                    f"the cluster's RDMA VPC has the RoCE network profile of one zone ({rdma[0].zones[0]}, pool "
                    f"'{rdma[0].name}'): every gpudirect pool of an RDMA machine type must be in that zone",
                )

    @classmethod
    def cluster_settings_problems(
        cls, c: Mapping[str, Any], vpc: str | None, pools: Sequence[GpuPool], at: PoolProblems, p: Problems
    ) -> None:
        gpu_network_problems(c.get("gpu_network_cidr", DEFAULT_GPU_NETWORK_CIDR), vpc, pools, p)
        if "proxy_subnet_cidr" not in c:
            return
        if c.get("create", True) is False:
            p.add(
                ("proxy_subnet_cidr",),
                "only for a cluster the stack creates (with its network); on an attached cluster create the "
                "proxy-only subnet with the network's owner, and remove it",
            )
        elif reason := proxy_subnet_problem(c["proxy_subnet_cidr"], vpc):
            p.add(("proxy_subnet_cidr",), reason)

    @classmethod
    def node_agent_taints(cls, pool: GpuPool) -> list[Taint]:
        return [QUEUED_TAINT] if pool.queued_provisioning else []

    @classmethod
    def added_taints(cls, pool: GpuPool) -> list[Taint]:
        return [ARM_TAINT] if pool.machine is not None and pool.machine.cpu_arch == "arm64" else []

    @classmethod
    def auto_pool_problems(cls, pool: GpuPool, p: Problems) -> None:
        cls.pool_problems(pool, p)
        if pool.gpudirect is not None and not pool.chain:  # a chain is refused above already
            p.add(("gpudirect",), GPUDIRECT_AUTO_POOL)
        if not pool.chain:
            auto_pool_nvlink_domain_problems(pool, p)

    @classmethod
    def provisioner_problems(cls, pool: GpuPool, p: Problems) -> None:
        compute_class_pool_problems(pool, p)

    @classmethod
    def dra_pool_problems(cls, pool: GpuPool, p: Problems) -> None:
        s = pool.sharing
        if s.mode == "mig" and s.managed_by == "cloud":
            p.add(
                ("sharing", "managed_by"),
                "GKE gpu_partition_size is applied by Google's installer DaemonSet after the driver, racing the "
                "DRA kubelet plugin, and no GKE procedure covers DRA with MIG: use allocation 'device-plugin' "
                "for MIG on GKE",
            )

    @classmethod
    def scale_from_zero_problem(cls, pool: GpuPool) -> str | None:
        s = pool.sharing
        if s.managed_by == "operator" and s.mode == "mig":
            return "GKE's autoscaler sees an empty pool's GPUs as whole nvidia.com/gpu; the GPU Operator's MIG slices exist only once a node runs"
        if s.managed_by == "operator" and s.mode in ("time-slicing", "mps") and s.rename_by_default:
            return "GKE's autoscaler does not know nvidia.com/gpu.shared, which the GPU Operator adds only once a node runs"
        if s.mode == "isolated":
            return "GKE's autoscaler does not know nvidia.com/vgpu, which HAMi's device plugin adds only once a node runs"
        return None

    @classmethod
    def zone_pattern(cls, region: str) -> tuple[str, re.Pattern[str], str] | None:
        base = region_of(region)
        return base, re.compile(rf"^{re.escape(base)}-[a-z]$"), f"{base}-a"

    @classmethod
    def zone_region(cls, zone: str) -> str | None:
        return gpu_zones.region_of_zone(zone) if GCE_ZONE.match(zone) else None

    @classmethod
    def region_zones(cls, region: str) -> tuple[str, ...] | None:
        return gpu_zones.table().regions.get(region)

    @classmethod
    def offered_zones(cls, machine: MachineType, region: str) -> tuple[str, ...] | None:
        # Every GKE GPU machine carries its GPU as a guest accelerator type, which is how the table is keyed.
        return gpu_zones.zones_with(machine.accelerator_type, region)

    @classmethod
    def offering_regions(cls, machine: MachineType) -> tuple[str, ...]:
        return gpu_zones.regions_with(machine.accelerator_type) if machine.accelerator_type else ()

    @classmethod
    def offer_source(cls) -> str:
        return f"Compute Engine GPU zones as of {gpu_zones.table().retrieved}, data/{gpu_zones.DATA_FILE}"


PROFILE = GkeProfile()
