"""EKS: instance types, AMI types, driver ownership, allocatable, labels, zones and pool rules."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from gpu_platform import versions
from gpu_platform.args.autoprovisioning import DEFAULT_KARPENTER_REPLICAS
from gpu_platform.args.autoscaling import EksAutoscaler
from gpu_platform.args.cluster import DEFAULT_SYSTEM_MIN_NODES
from gpu_platform.catalog.cpu_machines import CpuShape
from gpu_platform.catalog.drivers import DriverVersion
from gpu_platform.catalog.machines import MachineType
from gpu_platform.cloud_facts.eks import machines as table
from gpu_platform.cloud_facts.eks import resource_types as types
from gpu_platform.cloud_facts.eks.allocatable import (
    AMI_CPU_BASIS_POINTS,
    AMI_CPU_RANGES,
    MEMORY_BASE_MIB,
    MEMORY_PER_POD_MIB,
    node_group_max_pods,
)
from gpu_platform.cloud_facts.eks.autoprovisioning import karpenter_pool_problems
from gpu_platform.cloud_facts.eks.host_inputs import host_input_problems
from gpu_platform.cloud_facts.eks.instance_store import INSTANCE_STORE_NVME_GB
from gpu_platform.cloud_facts.profile import (
    CloudProfile,
    DockerHostImage,
    ModelBucket,
    NodeImage,
    PoolProblems,
    ResourceTypes,
)
from gpu_platform.driver import DriverPlan, DriverPlanError
from gpu_platform.errors import Key, Problems
from gpu_platform.formats.resource_ids import what_is
from gpu_platform.formats.secret import is_stand_in
from gpu_platform.pools import GpuPool
from gpu_platform.sdk import Extra

ACCELERATOR_LABEL = "k8s.amazonaws.com/accelerator"
"""The Cluster Autoscaler's GPU label on AWS (its README, "Special note on GPU instances"): a new node with it
but without ``nvidia.com/gpu`` yet counts as not ready, so the autoscaler waits for the device plugin instead
of adding more nodes. Only on pools whose nodes advertise ``nvidia.com/gpu``: on MIG or renamed-sharing pools
that resource never appears and the node would look unready for ever
(kubernetes/autoscaler ``processors/customresources/gpu_processor.go``)."""
CA_TAG_PREFIX = "k8s.io/cluster-autoscaler"
CA_NODE_TEMPLATE = f"{CA_TAG_PREFIX}/node-template"
"""Cluster Autoscaler's AWS tags describing an empty node group's nodes (cloudprovider/aws/README.md)."""
ASG_TAG_KEY_MAX = 128
"""Longest tag key EC2 Auto Scaling accepts."""
MAX_ZONES = 6
"""Public subnets of up to six zones keep stable CIDR slots (``cluster_plan.PUBLIC_SLOTS``)."""
DEFAULT_ZONES = 3
SECURITY_GROUP_ID = re.compile(r"^sg-[0-9a-f]{8}([0-9a-f]{9})?$")
"""Zones a created cluster's VPC spans when ``cluster.zones`` is not given."""
ROLE_ARN = re.compile(r"^arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+$")
SUBNET_ID = re.compile(r"^subnet-[0-9a-f]{8}([0-9a-f]{9})?$")
"""EC2 subnet IDs (8 or 17 hex digits)."""
CAPACITY_TYPE = {"spot": "SPOT", "capacity-block": "CAPACITY_BLOCK"}
"""A one-source pool's managed node group capacity type (ODCRs are ``ON_DEMAND`` with a targeted reservation)."""


def subnet_id_problems(ids: Any, p: Problems) -> None:
    """Subnet IDs as EKS takes them: a non-empty list of ``subnet-...`` IDs, none twice (``p`` is the list's
    location). Outputs pass unchecked."""
    if isinstance(ids, str):
        p.add((), f"a list of subnet IDs, not one string: [{ids!r}]")
        return
    if not isinstance(ids, (list, tuple)):
        return
    if not ids:
        p.add((), "at least one subnet ID (the subnets decide the nodes' zones)")
    for i, subnet in enumerate(ids):
        if not isinstance(subnet, str) or is_stand_in(subnet):  # a secret: checked when pulumi up reads it
            continue
        if "/" in subnet:
            p.add((i,), f"'{subnet}' is a CIDR; give the subnet's ID, like subnet-0123456789abcdef0")
        elif not SUBNET_ID.match(subnet):
            what = f"is {kind}, not" if (kind := what_is(subnet)) else "is not"
            p.add((i,), f"'{subnet}' {what} a subnet ID like subnet-0123456789abcdef0")
        elif subnet in ids[:i]:
            p.add((i,), f"'{subnet}' is listed twice")


HOST_DRIVER_FLOOR = "580.95.05"
"""EKS AL2023 / Bottlerocket NVIDIA AMIs of 2026 ship the R580 branch [U]: the CUDA check's floor."""
BOTTLEROCKET = NodeImage(
    "BOTTLEROCKET_x86_64_NVIDIA", "bottlerocket", device_plugin="cloud", root_device="/dev/xvdb"
)
AL2023 = NodeImage("AL2023_x86_64_NVIDIA", "al2023", root_device="/dev/xvda")
KARPENTER_AMI_RELEASES = {AL2023.os: versions.EKS_AL2023_AMI_RELEASE}
"""The AMI release a Karpenter pool's alias names by default, per family (``al2023@v20260714``): pinned, so AWS's
releases never drift GPU nodes. No Bottlerocket release is pinned here: those pools name one (``ami_version``)."""


def karpenter_ami_alias(pool: GpuPool, ami_version: str | None = None) -> str | None:
    """The ``amiSelectorTerms`` alias of a Karpenter pool (``al2023@v20260714``): its family at ``ami_version``,
    else at the family's pinned release; ``None`` when the family has none pinned and no version is named."""
    image = pool.image or AL2023.name
    family = next((i.os for i in (AL2023, BOTTLEROCKET) if i.name == image), AL2023.os)
    release = ami_version or KARPENTER_AMI_RELEASES.get(family)
    return f"{family}@{release}" if release else None


CAPACITY_RESERVATION_ID = re.compile(r"^cr-[0-9a-f]{8}([0-9a-f]{9})?$")
"""EC2 capacity reservation IDs (On-Demand Capacity Reservations and Capacity Blocks alike)."""


def _karpenter_problems(
    c: Mapping[str, Any],
    create: bool,
    pools: Sequence[GpuPool],
    at: PoolProblems,
    p: Problems,
) -> None:
    """Karpenter needs the cluster's subnets tagged, a node for each controller replica off its own nodes,
    and pools it can size (``karpenter_pool_problems``)."""
    if not create:
        p.add(
            ("autoscaler",),
            "karpenter only on a cluster the stack creates (it tags the subnets and security group Karpenter "
            "discovers); on an attached cluster use cluster-autoscaler or none",
        )
        return
    low = c.get("system_pool", {}).get("min_nodes", DEFAULT_SYSTEM_MIN_NODES)
    if low < DEFAULT_KARPENTER_REPLICAS:
        p.add(
            ("system_pool", "min_nodes"),
            f"{low} is too few with {{{{cluster.autoscaler}}}} karpenter: its {DEFAULT_KARPENTER_REPLICAS} "
            "controller replicas each need their own system node (never a Karpenter node)",
        )
    for pool in pools:
        karpenter_pool_problems(pool, at(pool.index))
        if karpenter_ami_alias(pool) is None:
            at(pool.index).add(
                ("image",),
                f"{pool.image} has no AMI release the stack pins for Karpenter (it pins AL2023's, "
                "versions.EKS_AL2023_AMI_RELEASE): leave image unset, or use EksKarpenterGpuNodePool with its "
                "ami_version",
            )


class EksProfile(CloudProfile):
    name = "eks"
    display = "EKS"
    article = "an"
    extra = Extra("eks", "pulumi_aws", "pulumi-aws", "the AWS SDK")
    region_shape = re.compile(r"^[a-z]{2}(-[a-z]+)+-[0-9]+$")
    region_example = "us-east-1"
    docker_host = DockerHostImage(
        service="EC2",
        image="/aws/service/deeplearning/ami/x86_64/base-oss-nvidia-driver-gpu-ubuntu-22.04/latest/ami-id",
        driver="595.91.07",
        driver_from="image",
        source="AWS Deep Learning Base OSS Nvidia Driver GPU AMI (Ubuntu 22.04), AMI ID from its public SSM "
        "parameter; release notes 2026-10 list NVIDIA driver 595.91.07, Docker and the Container Toolkit",
        section="ec2",
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
    managed_prometheus = "amazon-managed-prometheus"
    node_repair = None
    machines: ClassVar[Mapping[str, MachineType]] = table.MACHINES
    images: ClassVar[Mapping[str, NodeImage]] = {i.name: i for i in (AL2023, BOTTLEROCKET)}
    default_image = AL2023.name
    system_machine_type = "m6i.large"
    machine_shape = table.MACHINE_NAME
    cluster_keys = frozenset(
        {
            "existing_node_role_arn",
            "existing_subnet_ids",
            "existing_security_group_ids",
            "zones",
            "autoscaler",
            "pod_identity_agent",
        }
    )
    host_driver_floor = HOST_DRIVER_FLOOR
    mig_manager_reboot = True
    capacity_types = True
    reservation_kind = "EKS Capacity Blocks"
    # Managed node groups: capacity type ON_DEMAND (with an ODCR targeted by the launch template), SPOT or
    # CAPACITY_BLOCK; Karpenter adds chains of its capacity types (``reserved`` for ODCRs and Capacity Blocks).
    capacity_sources = frozenset({"on-demand", "spot", "reservation", "capacity-block"})
    chain_sources = frozenset({"on-demand", "spot", "reservation", "capacity-block"})
    chain_served_by = "Karpenter (cluster.autoscaler: karpenter)"
    chain_provisioner = "karpenter"
    chain_autoscaler = "karpenter"

    @classmethod
    def reservation_problem(cls, source: str, reservation: str) -> str | None:
        if not CAPACITY_RESERVATION_ID.match(reservation):
            what = "Capacity Block" if source == "capacity-block" else "capacity reservation"
            return f"'{reservation}' is not a {what} ID like cr-0123456789abcdef0"
        return None

    efa = True
    efa_machines = "an EKS instance type with EFA interfaces (p4d, p4de, p5, p5e, p5en, ...)"
    local_ssd_machines = INSTANCE_STORE_NVME_GB
    local_nvme_ephemeral_storage = True
    model_bucket = ModelBucket("s3", "mountpoint-s3")
    """``s3://`` buckets through Mountpoint for Amazon S3 CSI driver v2 (``s3.csi.aws.com``, static provisioning
    only; awslabs/mountpoint-s3-csi-driver ``docs/CACHING.md`` for its ``emptyDir`` cache)."""
    compact_placement = "a cluster placement group"
    publishes_allocatable = True
    kueue_vm_overhead = True
    autoscaler_choice = True
    eviction_memory_mib = 100
    startup_taint_for_late_resources = True
    """Managed node groups are grown by the upstream Cluster Autoscaler (the library's or the cluster
    owner's), which honours startup taints; Karpenter NodePools never carry such pools (refused)."""

    @classmethod
    def cpu_shape(cls, name: str) -> CpuShape | None:
        return table.cpu_shape(name)

    @classmethod
    def default_max_pods(cls, machine_type: str, vcpus: int) -> int:
        return node_group_max_pods(machine_type, vcpus)

    @classmethod
    def reserved(cls, vcpus: int, memory_mib: int, max_pods: int) -> tuple[int, int]:
        """The AMI's integer arithmetic, range by range (so 192 vCPUs reserve 550m, not 550.0m rounded)."""
        total = vcpus * 1000
        ends = (*AMI_CPU_RANGES[1:], total)
        cpu = 0
        for start, end, points in zip(AMI_CPU_RANGES, ends, AMI_CPU_BASIS_POINTS, strict=True):
            if total > start:
                cpu += (min(total, end) - start) * points // 10000
        return cpu, MEMORY_PER_POD_MIB * max_pods + MEMORY_BASE_MIB

    @classmethod
    def plan_driver(
        cls, image: str | None, owner: str, operator: DriverVersion, host: DriverVersion | None
    ) -> DriverPlan:
        node_image = cls.images[image or AL2023.name]
        if owner == "operator":
            raise DriverPlanError(
                f"EKS {node_image.name} nodes ship the NVIDIA driver and container toolkit; the operator cannot "
                "replace a host driver. Use owner 'cloud' (or 'auto')"
            )
        floor = host or DriverVersion.parse(HOST_DRIVER_FLOOR)
        return DriverPlan("cloud", "cloud", node_image.device_plugin, floor)

    @classmethod
    def image_ships_device_plugin(cls, name: str) -> bool:
        """Every Bottlerocket NVIDIA variant (x86_64 and ARM) runs Bottlerocket's own device plugin."""
        return name.startswith("BOTTLEROCKET") or super().image_ships_device_plugin(name)

    @classmethod
    def accelerator_label(cls, pool: GpuPool) -> tuple[str, str] | None:
        return ACCELERATOR_LABEL, f"nvidia-{pool.gpu.key}"

    @classmethod
    def pool_problems(cls, pool: GpuPool, p: Problems) -> None:
        if pool.max_nodes < 1:
            p.add(("max_nodes",), "EKS node groups need {{max_nodes}} >= 1")
        # Each label and taint becomes a Cluster Autoscaler tag on the Auto Scaling group (scale from zero).
        room = ASG_TAG_KEY_MAX - len(f"{CA_NODE_TEMPLATE}/label/")
        for key in pool.user_labels:
            if len(key) > room:
                p.add(
                    ("labels", Key(key)), f"longer than {room} characters: too long for the autoscaler's tag"
                )
        room = ASG_TAG_KEY_MAX - len(f"{CA_NODE_TEMPLATE}/taint/")
        for j, taint in enumerate(pool.user_taints):
            if len(taint.key) > room:
                p.add(
                    ("taints", j, "key"), f"longer than {room} characters: too long for the autoscaler's tag"
                )

    @classmethod
    def auto_pool_problems(cls, pool: GpuPool, p: Problems) -> None:
        cls.pool_problems(pool, p)

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
        """``cluster.autoscaler`` (Cluster Autoscaler by default on a cluster the stack creates, else none) and
        what it needs: Karpenter's checks, or the node groups' own."""
        default = EksAutoscaler.CLUSTER_AUTOSCALER.value if create else EksAutoscaler.NONE.value
        choice: str = c.get("autoscaler", default)
        if choice == EksAutoscaler.NONE.value and "pod_identity_agent" in c:
            p.add(
                ("pod_identity_agent",),
                "only with {{cluster.autoscaler}} cluster-autoscaler or karpenter; remove it",
            )
        if choice == EksAutoscaler.KARPENTER.value:
            _karpenter_problems(c, create, pools, at, p)
        else:
            for pool in pools:
                if not pool.chain:
                    cls.node_group_problems(pool, at(pool.index))
        if choice == EksAutoscaler.CLUSTER_AUTOSCALER.value and version:
            minor = ".".join(version.lstrip("v").split(".")[:2])
            if minor not in versions.CLUSTER_AUTOSCALER_IMAGE_TAGS:
                p.add(
                    ("kubernetes_version",),
                    f"{minor} has no pinned Cluster Autoscaler (its minor must match the cluster's); valid: "
                    f"{', '.join(versions.CLUSTER_AUTOSCALER_IMAGE_TAGS)}, or {{{{cluster.autoscaler}}}} none",
                )
        return choice

    @classmethod
    def provisioner_problems(cls, pool: GpuPool, p: Problems) -> None:
        karpenter_pool_problems(pool, p)

    @classmethod
    def pool_capacity_type(cls, source: str) -> str:
        return CAPACITY_TYPE.get(source, "ON_DEMAND")

    @classmethod
    def node_group_problems(cls, pool: GpuPool, p: Problems) -> None:
        # An On-Demand Capacity Reservation and a Capacity Block each live in one Availability Zone (EC2 user
        # guide, "Capacity Reservations"; "Capacity Blocks for ML"): a node group over several subnets launches
        # most nodes outside it (paid on-demand, or refused for a block), and the launch template's EFA subnet
        # would be a guess. Karpenter reads the zone from the reservation itself, so this is node groups only.
        if pool.primary.source in ("reservation", "capacity-block") and len(pool.zones) != 1:
            p.add(
                ("zones",),
                f"a {pool.primary.source} lives in one Availability Zone: give its zone as the pool's only zone "
                "(aws ec2 describe-capacity-reservations --capacity-reservation-ids <id> "
                "--query 'CapacityReservations[0].AvailabilityZone')",
            )

    @classmethod
    def dra_pool_problems(cls, pool: GpuPool, p: Problems) -> None:
        image = cls.image(pool)
        if pool.image and image is not None and image.device_plugin == "cloud":
            p.add(
                ("image",),
                f"{pool.image} runs its own NVIDIA device plugin, which the library cannot switch off, and a "
                "device plugin never runs next to DRA: use AL2023_x86_64_NVIDIA for DRA pools",
            )

    @classmethod
    def zone_pattern(cls, region: str) -> tuple[str, re.Pattern[str], str] | None:
        return region, re.compile(rf"^{re.escape(region)}[a-z]$"), f"{region}a"

    @classmethod
    def attach_problems(
        cls, c: Mapping[str, Any], pools: Sequence[GpuPool], at: PoolProblems, p: Problems
    ) -> None:
        for key in ("existing_node_role_arn", "existing_subnet_ids"):
            if not c.get(key):
                p.add((key,), "required when cluster.create is false on EKS")
        if c.get("existing_subnet_ids"):
            subnet_id_problems(list(c["existing_subnet_ids"]), p.at("existing_subnet_ids"))
        for pool in pools:
            if pool.zones:
                at(pool.index).add(
                    ("zones",), "on an attached EKS cluster the subnets decide the zones; remove it"
                )
            if pool.efa and not c.get("existing_security_group_ids"):
                at(pool.index).add(
                    ("efa",),
                    "EFA on an attached cluster needs {{cluster.existing_security_group_ids}}: the cluster security "
                    "group (EFA needs one that allows all traffic to and from itself)",
                )
        for j, group in enumerate(c.get("existing_security_group_ids", ())):
            if not SECURITY_GROUP_ID.match(group) and not is_stand_in(group):
                what = f"is {kind}, not" if (kind := what_is(group)) else "is not"
                p.add(
                    ("existing_security_group_ids", j),
                    f"'{group}' {what} a security group ID like sg-0123abcd",
                )

    @classmethod
    def cluster_zones(
        cls, c: Mapping[str, Any], region: str | None, pools: Sequence[GpuPool], at: PoolProblems, p: Problems
    ) -> tuple[str, ...]:
        """The VPC's zones: fixed in config whenever pools name zones, so pool edits never move subnets."""
        zones = tuple(c.get("zones", ()))
        if zones and not 2 <= len(zones) <= MAX_ZONES:
            p.add(("zones",), f"EKS needs two to {MAX_ZONES} zones (got {len(zones)})")
        for j, zone in enumerate(zones):
            if zone in zones[:j]:
                p.add(("zones", j), f"'{zone}' is listed twice")
            elif region and not re.match(rf"^{re.escape(region)}[a-z]$", zone):
                p.add(("zones", j), f"'{zone}' is not a zone of {region} (like {region}a)")
        in_region = re.compile(rf"^{re.escape(region or '')}[a-z]$")
        # A pool whose zones are not even in the region is already refused: no follow-on requirement.
        named = [pool for pool in pools if pool.zones and all(in_region.match(z) for z in pool.zones)]
        if named and not zones and c.get("create", True):
            p.add(
                ("zones",),
                f"required when pools name zones (pool '{named[0].name}'): list the VPC's zones so that editing "
                "a pool never moves a subnet; pools use a subset",
            )
        if zones:
            for pool in pools:
                for j, zone in enumerate(pool.zones):
                    if zone not in zones and in_region.match(zone):
                        reason = f"'{zone}' is not one of {{{{cluster.zones}}}} ({', '.join(zones)})"
                        at(pool.index).add(("zones", j), reason)
        return zones

    @classmethod
    def cluster_settings_problems(
        cls, c: Mapping[str, Any], vpc: str | None, pools: Sequence[GpuPool], at: PoolProblems, p: Problems
    ) -> None:
        arn = c.get("existing_node_role_arn")
        if arn is not None and not ROLE_ARN.match(arn) and not is_stand_in(arn):
            p.add(
                ("existing_node_role_arn",),
                f"'{arn}' is not an IAM role ARN like arn:aws:iam::123456789012:role/nodes",
            )


PROFILE = EksProfile()
