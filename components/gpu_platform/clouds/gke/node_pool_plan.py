"""A GKE GPU node pool's plan: accelerator, driver install mode, GKE-native sharing, per-zone initial nodes.

Argument names follow pulumi-gcp 10.2.0 (PyPI, ``pulumi_gcp/container/node_pool.py`` and ``_inputs.py``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.catalog.nvlink import HIGH_THROUGHPUT
from gpu_platform.cloud_facts.gke.profile import PROFILE, SHARING_STRATEGY, region_of
from gpu_platform.cloud_facts.gke.reservations import ReservationPath
from gpu_platform.driver import DriverPlan
from gpu_platform.plans.node_pool_plan import CLOUD_TAINT_EFFECT, NodePoolPlan, base_plan
from gpu_platform.pools import CapacitySource, GpuPool

RESERVATION_KEY = "compute.googleapis.com/reservation-name"
DWS_SOURCES = frozenset({"flex-start", "queued-provisioning"})
"""Sources served by GKE's Dynamic Workload Scheduler (flex-start VMs)."""
COMPACT = "COMPACT"
"""``placement_policy.type``: the only value pulumi-gcp 10.2.0 documents for GPU node pools."""


@dataclass(frozen=True)
class WorkloadPolicyPlan:
    """The Compute Engine workload policy that places a pool in one NVLink domain (``catalog/nvlink.py``)."""

    name: str
    """The policy's name; the node pool's ``placement_policy.policy_name``."""
    region: str
    """The pool's region: a node pool may only name a policy of its own project and region."""
    accelerator_topology: str
    type: str = HIGH_THROUGHPUT

    @property
    def workload_policy(self) -> dict[str, str]:
        """``compute.ResourcePolicy.workload_policy``."""
        return {"type": self.type, "accelerator_topology": self.accelerator_topology}


@dataclass(frozen=True)
class GkeNodePoolPlan(NodePoolPlan):
    accelerator: dict[str, Any] = field(default_factory=dict)
    """``guest_accelerators[0]``: type, count, driver install mode, GKE-native sharing or partitioning."""
    initial_node_count: int = 0
    """Per zone, so the pool's initial nodes are split over its zones."""
    location_policy: str = "BALANCED"
    image_type: str = PROFILE.default_image or ""
    workload_identity: bool = True
    reservation_affinity: dict[str, Any] | None = None
    """``node_config.reservation_affinity`` (``consume_reservation_type``, ``key``, ``values``)."""
    flex_start: bool = False
    """``node_config.flex_start``: Dynamic Workload Scheduler VMs (flex-start, and queued provisioning too)."""
    max_run_duration: str | None = None
    """``node_config.max_run_duration`` (``"<seconds>s"``): when GKE reclaims a flex-start node."""
    queued_provisioning: bool = False
    """``queued_provisioning.enabled``: nodes only through ProvisioningRequests (Kueue's admission check)."""

    @property
    def auto_repair(self) -> bool:
        """``management.auto_repair``: off on Dynamic Workload Scheduler pools, whose VMs GKE does not repair
        (GoogleCloudPlatform/cluster-toolkit ``modules/compute/gke-node-pool/main.tf``: "enable_flex_start needs
        node auto_repair set to false"); a failed node there is released and obtained again by a new request."""
        return not self.flex_start

    placement_policy: str | None = None
    """``COMPACT`` for ``compact_placement`` pools and NVLink-domain pools (one zone): the nodes are placed close
    together."""
    workload_policy: WorkloadPolicyPlan | None = None
    """NVLink-domain pools (A4X): the workload policy their ``placement_policy`` names."""
    additional_node_networks: tuple[Mapping[str, Any], ...] = ()
    """``network_config.additional_node_network_configs``: the extra NICs of a GPUDirect pool, in order."""
    gvnic: bool = False
    local_ssd_count: int | None = None
    """``node_config.ephemeral_storage_local_ssd_config.local_ssd_count``: the machine's local NVMe SSDs back
    the node's ephemeral storage (``cloud_facts.gke.local_ssd``); ``None``: the machine has none."""
    """``node_config.gvnic``: Google's virtual NIC, which GPUDirect's extra NICs are."""

    @property
    def cloud_taints(self) -> list[dict[str, str]]:
        """``node_config.taints``: the nodes' taints but those GKE adds itself (the Arm taint), which it owns."""
        own = PROFILE.added_taints(self.pool)
        return [
            {"key": t.key, "value": t.value, "effect": CLOUD_TAINT_EFFECT[t.effect]}
            for t in self.taints
            if t not in own
        ]


def _gke_accelerator(pool: GpuPool, driver: DriverPlan) -> dict[str, Any]:
    assert pool.machine is not None and pool.machine.accelerator_type
    accel: dict[str, Any] = {
        "type": pool.machine.accelerator_type,
        "count": pool.gpus_per_node,
        "gpu_driver_installation_config": {"gpu_driver_version": driver.pool_driver},
    }
    s = pool.sharing
    if s.managed_by == "cloud" and s.mode in SHARING_STRATEGY:
        accel["gpu_sharing_config"] = {
            "gpu_sharing_strategy": SHARING_STRATEGY[s.mode],
            "max_shared_clients_per_gpu": s.replicas,
        }
    elif s.managed_by == "cloud" and s.mode == "mig":
        accel["gpu_partition_size"] = s.mig_profiles[0]
    return accel


def reservation_path(source: CapacitySource) -> ReservationPath:
    """The reservation (or its block) a source consumes, in the pool's ``project`` unless it names its own."""
    assert source.reservation is not None
    path = ReservationPath.parse(source.reservation)
    assert path is not None, "checked by the GKE profile's reservation_problem"
    return path.with_project(source.project)


def reservation_name(source: CapacitySource) -> str:
    """A reservation as GKE names it: shared reservations of another project as ``projects/<p>/reservations/<n>``,
    a block as ``<reservation>/reservationBlocks/<block>``."""
    return reservation_path(source).affinity_value()


def reservation_affinity(pool: GpuPool) -> dict[str, Any] | None:
    """What the pool's one source consumes: a named (or shared) reservation, any reservation then on-demand,
    or explicitly none for Dynamic Workload Scheduler VMs, which GKE requires (``--reservation-affinity=none``)."""
    source = pool.primary
    if source.reserved and source.affinity == "any":
        return {"consume_reservation_type": "ANY_RESERVATION"}
    if source.reserved:
        return {
            "consume_reservation_type": "SPECIFIC_RESERVATION",
            "key": RESERVATION_KEY,
            "values": [reservation_name(source)],
        }
    if source.source in DWS_SOURCES:
        return {"consume_reservation_type": "NO_RESERVATION"}
    return None


def _replacing(pool: GpuPool) -> tuple[Any, ...]:
    """Capacity facts GKE cannot change on a live pool beyond spot and the reservation's name (which the pool's
    name already digests): empty for those pools, so their names stay as they were."""
    s = pool.primary
    if s.source in ("on-demand", "spot") or (s.reserved and s.affinity == "specific" and not s.project):
        return ()
    return (s.source, s.affinity, s.project, s.max_run_hours)


def _nvlink_domain_topology(pool: GpuPool) -> str | None:
    """The accelerator topology of the pool's NVLink domain; ``None`` for machines without one."""
    domain = pool.machine.nvlink_domain if pool.machine is not None else None
    return domain.accelerator_topology if domain is not None else None


def gke_node_pool_plan(pool: GpuPool, driver: DriverPlan, inputs: Mapping[str, Any]) -> GkeNodePoolPlan:
    accelerator = _gke_accelerator(pool, driver)
    source = pool.primary
    dws = source.source in DWS_SOURCES
    # GKE recreates a pool for a new accelerator (type, count, driver mode, sharing), spot, reservation or
    # capacity source, and for a new placement policy (immutable on a node pool). Only a set policy enters the
    # name, so pools without one keep theirs.
    fixed: tuple[Any, ...] = (accelerator, pool.spot, pool.reservation, *_replacing(pool))
    topology = _nvlink_domain_topology(pool)
    placement = COMPACT if pool.compact_placement or topology else None
    if placement:
        fixed += (placement,)
    if topology:  # a workload policy cannot change while the pool has nodes
        fixed += (HIGH_THROUGHPUT, topology)
    if pool.gpudirect is not None:  # the extra NICs are fixed at creation
        fixed += (pool.gpudirect.kind,)
    local_ssds = (
        PROFILE.local_ssd_machines.get(pool.machine.name) if pool.local_ssds and pool.machine else None
    )
    if local_ssds:  # ephemeral storage is fixed at creation
        fixed += (("local-ssd", local_ssds),)
    base = base_plan(pool, driver, inputs, *fixed)
    workload_policy = None
    if topology:
        assert len(pool.zones) == 1, "an NVLink-domain pool is in one zone (checked by the GKE profile)"
        workload_policy = WorkloadPolicyPlan(
            f"{base['physical_name']}-{topology}", region_of(pool.zones[0]), topology
        )
    return GkeNodePoolPlan(
        **base,
        placement_policy=placement,
        workload_policy=workload_policy,
        additional_node_networks=tuple(inputs.get("additional_node_networks", ())),
        gvnic=pool.gpudirect is not None,
        local_ssd_count=local_ssds,
        accelerator=accelerator,
        initial_node_count=math.ceil(pool.initial_nodes / max(len(pool.zones), 1)),
        # ANY prefers unused reservations and lowers Spot preemption risk (pulumi-gcp docs).
        # Dynamic Workload Scheduler pools too: capacity is found in whichever zone has it.
        location_policy="ANY" if pool.spot or source.reserved or dws else "BALANCED",
        image_type=pool.image or PROFILE.default_image or "",
        workload_identity=inputs.get("workload_identity", True),
        reservation_affinity=reservation_affinity(pool),
        # Queued provisioning is flex-start VMs obtained all at once ("--flex-start --enable-queued-provisioning").
        flex_start=dws,
        max_run_duration=f"{source.max_run_hours * 3600}s" if dws and source.max_run_hours else None,
        queued_provisioning=source.source == "queued-provisioning",
    )
