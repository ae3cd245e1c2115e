"""AKS: VM sizes, OS SKUs, driver ownership, allocatable, taints, zones and pool rules."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, ClassVar

from gpu_platform.catalog.allocatable import bracketed
from gpu_platform.catalog.cpu_machines import CpuShape
from gpu_platform.catalog.drivers import DriverVersion
from gpu_platform.catalog.machines import MachineType
from gpu_platform.catalog.mig import MigTable
from gpu_platform.cloud_facts.aks import machines as table
from gpu_platform.cloud_facts.aks import resource_types as types
from gpu_platform.cloud_facts.aks.allocatable import (
    CPU_BRACKETS,
    DEFAULT_MAX_PODS,
    MEMORY_BASE_MIB,
    MEMORY_CAP,
    MEMORY_PER_POD_MIB,
)
from gpu_platform.cloud_facts.aks.autoprovisioning import nap_pool_problems
from gpu_platform.cloud_facts.aks.host_inputs import host_input_problems
from gpu_platform.cloud_facts.aks.local_nvme import NVME_DATA_DISKS
from gpu_platform.cloud_facts.aks.serving import METRICS_READER
from gpu_platform.cloud_facts.profile import (
    CloudProfile,
    DockerHostImage,
    ModelBucket,
    NodeImage,
    PoolProblems,
    ResourceTypes,
)
from gpu_platform.driver import DriverPlan
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool, Taint
from gpu_platform.sdk import Extra

SPOT_TAINT = Taint("kubernetes.azure.com/scalesetpriority", "spot", "NoSchedule")
"""Added by AKS itself to spot pools; everything that runs there must tolerate it."""
AGENT_POOL_NAME = re.compile(r"^[a-z][a-z0-9]{0,11}$")
"""AKS Linux agent pool names: lowercase letters and digits, at most 12 characters."""
ZONES = ("1", "2", "3")
"""Azure availability zones within a region."""
MIG_COMPUTE_SLICES = (1, 2, 3, 4, 7)
"""AKS ``gpu_instance_profile`` values are ``MIG<compute slices>g``."""
RUNTIME_CLASS = "nvidia-container-runtime"
"""The runtime class AKS's own toolkit registers (the operator's pods use it when AKS owns the toolkit)."""
HOST_DRIVER_FLOOR = "550.144.03"
"""AKS GPU node images: 550.144.03 observed (LLMKube #1424, CUDA 12.4) [3P]: the CUDA check's floor."""
DRIVER_NONE = "None"
"""``gpu_profile.driver``: AKS installs no driver (the GPU Operator does)."""
DRIVER_INSTALL = "Install"
"""``gpu_profile.driver``: AKS installs the driver."""


def default_agent_pool_name(pool_name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", pool_name.lower())[:12]


def agent_pool_name_problem(name: str) -> str | None:
    if not AGENT_POOL_NAME.match(name):
        return f"AKS pool name '{name}' must be 1-12 lowercase letters/digits, starting with a letter"
    return None


def mig_instance_profiles(table: MigTable) -> dict[str, str]:
    """MIG profile -> ``gpu_instance_profile``: per compute size the profile with the fewest memory slices
    (on an A100 40GB: 1g.5gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb, as AKS documents)."""
    out: dict[str, str] = {}
    for compute in MIG_COMPUTE_SLICES:
        plain = [p for p in table.profiles.values() if p.compute_slices == compute and "+" not in p.name]
        if plain:
            out[min(plain, key=lambda p: p.memory_slices).name] = f"MIG{compute}g"
    return out


CAPACITY_RESERVATION_GROUP_ID = re.compile(
    r"^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.Compute/capacityReservationGroups/[^/]+$",
    re.IGNORECASE,
)
"""An Azure capacity reservation group's resource ID (what ``AgentPool.capacity_reservation_group_id`` takes)."""


class AksProfile(CloudProfile):
    name = "aks"
    display = "AKS"
    article = "an"
    extra = Extra("aks", "pulumi_azure_native", "pulumi-azure-native", "the Azure Native SDK")
    region_shape = re.compile(r"^[A-Za-z][A-Za-z0-9 ]*$")
    region_example = "eastus2"
    docker_host = DockerHostImage(
        service="Azure Virtual Machines",
        image="Canonical:ubuntu-24_04-lts:server:latest",
        driver="580.65.06",
        driver_from="install",
        source="Ubuntu 24.04 LTS from Canonical's Azure Marketplace offer; Azure ships no Linux GPU image with a "
        "driver for plain VMs, so cloud-init installs Canonical's signed nvidia:580-server driver (the branch's "
        "first release, 580.65.06, is the CUDA 13.0 minimum)",
        section="azure",
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
    managed_prometheus = "azure-managed-prometheus"
    # Microsoft Learn, "Automatically repair Azure Kubernetes Service (AKS) nodes": AKS repairs unhealthy nodes
    # itself; there is no setting to turn it off.
    node_repair = "AKS repairs unhealthy nodes itself, always (node auto-repair has no off switch)"
    machines: ClassVar[Mapping[str, MachineType]] = table.MACHINES
    images: ClassVar[Mapping[str, NodeImage]] = {
        "Ubuntu": NodeImage("Ubuntu", "ubuntu"),
        "Ubuntu2204": NodeImage("Ubuntu2204", "ubuntu"),
        "AzureLinux": NodeImage("AzureLinux", "azurelinux"),
    }
    default_image = "Ubuntu"
    system_machine_type = "Standard_D4s_v5"
    system_pool_labels = {"kubernetes.azure.com/mode": "system"}
    """AKS marks every node of a System-mode pool (the library's ``AksCluster`` system pool is one)."""
    machine_shape = table.MACHINE_NAME
    min_network_prefix = 20
    cluster_keys = frozenset({"resource_group"})
    host_driver_floor = HOST_DRIVER_FLOOR
    mig_manager_reboot = True
    cloud_sharing_modes = frozenset({"mig"})
    cloud_mig_needs_cloud_driver = True
    cloud_mig_setting = "gpu_instance_profile"
    dra_cloud_mig = True
    spot_max_price = True
    local_ssd_machines = NVME_DATA_DISKS
    metrics_reader = METRICS_READER
    """KEDA reads the Azure Monitor workspace as a user-assigned managed identity (``cloud_facts.aks.serving``)."""
    model_bucket = ModelBucket("azure", "blob-fuse2")
    """Blob containers through the Azure Blob CSI driver with BlobFuse2 (``blob.csi.azure.com``, ``protocol:
    fuse2``; Microsoft's ``azure-csi-blob-storage-provision``)."""
    # Agent pools: Regular or Spot priority, or a capacity reservation group (capacityReservationGroupID);
    # node auto-provisioning chains Karpenter's spot and on-demand (AKSNodeClass has no reservation field).
    capacity_sources = frozenset({"on-demand", "spot", "reservation"})
    chain_sources = frozenset({"on-demand", "spot"})
    chain_served_by = "AKS node auto-provisioning"
    chain_provisioner = "nap"
    chain_needs_created_cluster = True

    @classmethod
    def provisioner_problems(cls, pool: GpuPool, p: Problems) -> None:
        nap_pool_problems(pool, p)

    @classmethod
    def reservation_problem(cls, source: str, reservation: str) -> str | None:
        if not CAPACITY_RESERVATION_GROUP_ID.match(reservation):
            return (
                f"'{reservation}' is not a capacity reservation group ID like /subscriptions/<id>/resourceGroups/"
                "<rg>/providers/Microsoft.Compute/capacityReservationGroups/<name>"
            )
        return None

    system_pool_selector: ClassVar[Mapping[str, str]] = {"kubernetes.azure.com/mode": "system"}
    publishes_allocatable = True
    kueue_vm_overhead = True
    eviction_memory_mib = 100

    @classmethod
    def cpu_shape(cls, name: str) -> CpuShape | None:
        return table.cpu_shape(name)

    @classmethod
    def default_max_pods(cls, machine_type: str, vcpus: int) -> int:
        return DEFAULT_MAX_PODS

    @classmethod
    def reserved(cls, vcpus: int, memory_mib: int, max_pods: int) -> tuple[int, int]:
        cpu = math.ceil(bracketed(Fraction(vcpus * 1000), CPU_BRACKETS))
        per_pod = MEMORY_PER_POD_MIB * max_pods + MEMORY_BASE_MIB
        return cpu, math.ceil(min(Fraction(per_pod), memory_mib * MEMORY_CAP))

    @classmethod
    def plan_driver(
        cls, image: str | None, owner: str, operator: DriverVersion, host: DriverVersion | None
    ) -> DriverPlan:
        if owner == "cloud":
            floor = host or DriverVersion.parse(HOST_DRIVER_FLOOR)
            return DriverPlan("cloud", "cloud", "operator", floor, pool_driver=DRIVER_INSTALL)
        return DriverPlan("operator", "operator", "operator", operator, pool_driver=DRIVER_NONE)

    @classmethod
    def gpu_operator_values(cls, values: dict[str, Any], driver: DriverPlan) -> None:
        if driver.toolkit == "cloud":
            values["operator"] = {"runtimeClass": RUNTIME_CLASS}

    @classmethod
    def auto_pool_driver_problem(cls, driver: DriverPlan) -> str | None:
        if driver.pool_driver != DRIVER_NONE:
            return None
        return (
            "the GPU Operator cannot own the driver on NAP pools: AKS runs its own NAP release, and where its "
            "AKSNodeClass CRD has no spec.gpu the API server drops gpu.mode None without an error, so AKS installs "
            "its driver beside the operator's. Use owner 'cloud' (and give the GPU Operator the same), or an "
            "AksGpuNodePool"
        )

    @classmethod
    def added_taints(cls, pool: GpuPool) -> list[Taint]:
        return [SPOT_TAINT] if pool.spot else []

    @classmethod
    def pool_problems(cls, pool: GpuPool, p: Problems, check_name: bool = True) -> None:
        """AKS limits on a pool; ``check_name=False`` when the caller names the agent pool explicitly."""
        reason = agent_pool_name_problem(default_agent_pool_name(pool.name))
        if check_name and reason:
            p.add(("name",), reason)
        for i, zone in enumerate(pool.zones):
            if zone not in ZONES:
                p.add(("zones", i), f"AKS availability zones are {', '.join(ZONES)}, not '{zone}'")
        s = pool.sharing
        if s.mode != "mig" or s.managed_by != "cloud":
            return
        assert pool.machine is not None and pool.mig_table is not None
        if not pool.machine.cloud_mig:
            p.add(
                ("sharing", "managed_by"),
                f"AKS documents gpu_instance_profile only for Standard_ND96asr_v4, not {pool.machine.name}",
            )
            return
        valid = mig_instance_profiles(pool.mig_table)
        if s.mig_profiles[0] not in valid:
            offered = ", ".join(f"{v} ({prof})" for prof, v in valid.items())
            p.add(
                ("sharing", "mig", "layout"),
                f"AKS gpu_instance_profile cannot express {s.mig_profiles[0]}; on {pool.mig_table.display} it offers {offered}",
            )

    @classmethod
    def cross_pool_problems(cls, pools: Sequence[GpuPool], at: PoolProblems) -> None:
        """Pool names unique after shortening, one OS per cluster."""
        seen: dict[str, GpuPool] = {}
        for pool in pools:
            short = default_agent_pool_name(pool.name)
            if short in seen:
                at(pool.index).add(
                    ("name",),
                    f"AKS pool name '{short}' (no dashes, 12 characters) repeats pool '{seen[short].name}'",
                )
            seen.setdefault(short, pool)
        images = [(p, p.image or cls.default_image) for p in pools]
        for pool, image in images[1:]:
            first, first_image = images[0]
            if image != first_image:
                at(pool.index).add(
                    ("image",),
                    f"'{image}' differs from pool '{first.name}' ('{first_image}'); the GPU Operator does not support "
                    "mixed OS versions in one AKS cluster",
                )

    @classmethod
    def scale_from_zero_problem(cls, pool: GpuPool) -> str | None:
        s = pool.sharing
        if s.mode == "mig":
            return "AKS's autoscaler cannot learn an empty pool's MIG resources (Azure/AKS#4216)"
        if s.managed_by == "operator" and s.mode in ("time-slicing", "mps"):
            return f"AKS's autoscaler sees an empty pool's GPUs as whole nvidia.com/gpu, not the GPU Operator's {s.mode} replicas"
        if s.mode == "isolated":
            return "AKS's autoscaler sees an empty pool's GPUs as whole nvidia.com/gpu, not HAMi's nvidia.com/vgpu units"
        return None

    @classmethod
    def attach_problems(
        cls, c: Mapping[str, Any], pools: Sequence[GpuPool], at: PoolProblems, p: Problems
    ) -> None:
        if not c.get("resource_group"):
            p.add(("resource_group",), "required when cluster.create is false on AKS")


PROFILE = AksProfile()
