"""GPU node pool plans per cloud: everything the cloud resource needs, decided before anything exists.

``plan_<cloud>_node_pool(args)`` checks the component's arguments and resolves them;
``<cloud>_node_pool_plan(pool, driver, inputs)`` builds the plan from already-resolved objects (the stack
layer's path). The components only turn a plan into SDK arguments. Argument names follow pulumi-gcp
10.2.0, pulumi-aws 7.51.1 and azure-native 3.29.0 (GPU_PLATFORM_FACTS.md section 1).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_platform import scheduling
from gpu_platform.args.nodepools import AksGpuNodePoolArgs, EksGpuNodePoolArgs, GkeGpuNodePoolArgs
from gpu_platform.args.validate import check_arguments
from gpu_platform.driver import DEFAULT_IMAGE, DriverPlan
from gpu_platform.errors import Problems
from gpu_platform.plans.names import digest
from gpu_platform.pools import GPU_TAINT, GpuPool, Taint
from gpu_platform.resolve.cloud_pools import (
    agent_pool_name_problem,
    aks_mig_profiles,
    default_agent_pool_name,
)
from gpu_platform.resolve.nodepool import resolve_node_pool
from gpu_platform.scheduling import CA_NODE_TEMPLATE
from gpu_platform.sharing import GPU_RESOURCE, node_resources

CLOUD_TAINT_EFFECT = {
    "NoSchedule": "NO_SCHEDULE",
    "PreferNoSchedule": "PREFER_NO_SCHEDULE",
    "NoExecute": "NO_EXECUTE",
}
"""Kubernetes taint effect -> the GKE/EKS API spelling (AKS keeps Kubernetes' spelling in strings)."""
GKE_SHARING_STRATEGY = {"time-slicing": "TIME_SHARING", "mps": "MPS"}
GKE_RESERVATION_KEY = "compute.googleapis.com/reservation-name"
EKS_ROOT_DEVICE = {"AL2023": "/dev/xvda", "BOTTLEROCKET": "/dev/xvdb"}
"""Where container images live: AL2023's root volume; Bottlerocket's data volume (its root is the OS)."""


def ensure_gpu_taint(taints: tuple[Taint, ...] | list[Taint]) -> None:
    """Last line of defence: never build a GPU pool whose taints lack ``nvidia.com/gpu:NoSchedule``."""
    if GPU_TAINT not in taints:
        raise RuntimeError(
            f"refusing to create a GPU node pool without the {GPU_TAINT.key}={GPU_TAINT.value}:{GPU_TAINT.effect} taint"
        )


@dataclass(frozen=True)
class NodePoolPlan:
    """A pool's nodes as Kubernetes sees them: plain values, known before anything is created."""

    pool: GpuPool
    driver: DriverPlan
    labels: dict[str, str]
    taints: tuple[Taint, ...]
    """Kubernetes shape, GPU taint first, including taints the cloud adds itself (AKS spot)."""
    inputs: Mapping[str, Any] = field(default_factory=dict)
    """The component's pass-through arguments (cluster, subnets ...), possibly Outputs."""
    physical_name: str = ""
    """The cloud pool's name: the pool name plus a digest of what the cloud cannot change in place, so a
    replacing change gets a new name and the new pool is created before the old one is deleted."""
    protect: bool = True

    @property
    def tolerations(self) -> list[dict[str, str]]:
        """What a workload needs to run on these nodes."""
        return scheduling.pool_tolerations(self.pool)

    @property
    def taint_dicts(self) -> list[dict[str, str]]:
        return [{"key": t.key, "value": t.value, "effect": t.effect} for t in self.taints]


def _base(pool: GpuPool, driver: DriverPlan, inputs: Mapping[str, Any], *fixed: Any) -> dict[str, Any]:
    taints = (*scheduling.pool_taints(pool), *scheduling.cloud_added_taints(pool))
    ensure_gpu_taint(taints)
    return {
        "pool": pool,
        "driver": driver,
        "labels": scheduling.pool_labels(pool, driver),
        "taints": taints,
        "inputs": dict(inputs),
        "physical_name": f"{pool.name}-{digest(*fixed)}",
        "protect": inputs.get("protect", True),
    }


# --- GKE ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GkeNodePoolPlan(NodePoolPlan):
    accelerator: dict[str, Any] = field(default_factory=dict)
    """``guest_accelerators[0]``: type, count, driver install mode, GKE-native sharing or partitioning."""
    initial_node_count: int = 0
    """Per zone, so the pool's initial nodes are split over its zones."""
    location_policy: str = "BALANCED"
    image_type: str = DEFAULT_IMAGE["gke"]
    workload_identity: bool = True

    @property
    def cloud_taints(self) -> list[dict[str, str]]:
        return [{"key": t.key, "value": t.value, "effect": CLOUD_TAINT_EFFECT[t.effect]} for t in self.taints]


def _gke_accelerator(pool: GpuPool, driver: DriverPlan) -> dict[str, Any]:
    assert pool.machine is not None and pool.machine.accelerator_type
    accel: dict[str, Any] = {
        "type": pool.machine.accelerator_type,
        "count": pool.gpus_per_node,
        "gpu_driver_installation_config": {"gpu_driver_version": driver.gke_driver_version},
    }
    s = pool.sharing
    if s.managed_by == "cloud" and s.mode in GKE_SHARING_STRATEGY:
        accel["gpu_sharing_config"] = {
            "gpu_sharing_strategy": GKE_SHARING_STRATEGY[s.mode],
            "max_shared_clients_per_gpu": s.replicas,
        }
    elif s.managed_by == "cloud" and s.mode == "mig":
        accel["gpu_partition_size"] = s.mig_profiles[0]
    return accel


def gke_node_pool_plan(pool: GpuPool, driver: DriverPlan, inputs: Mapping[str, Any]) -> GkeNodePoolPlan:
    accelerator = _gke_accelerator(pool, driver)
    # GKE recreates a pool for a new accelerator (type, count, driver mode, sharing), spot or reservation.
    return GkeNodePoolPlan(
        **_base(pool, driver, inputs, accelerator, pool.spot, pool.reservation),
        accelerator=accelerator,
        initial_node_count=math.ceil(pool.initial_nodes / max(len(pool.zones), 1)),
        # ANY prefers unused reservations and lowers Spot preemption risk (pulumi-gcp docs).
        location_policy="ANY" if pool.spot or pool.reservation else "BALANCED",
        image_type=pool.image or DEFAULT_IMAGE["gke"],
        workload_identity=inputs.get("workload_identity", True),
    )


def plan_gke_node_pool(args: GkeGpuNodePoolArgs) -> GkeNodePoolPlan:
    """``GkeGpuNodePool``'s arguments checked and resolved; ``ArgumentsError`` lists every problem."""
    p = Problems()
    checked = check_arguments(GkeGpuNodePoolArgs, args, p)
    resolved = resolve_node_pool("gke", checked, p) if checked is not None else None
    p.raise_for_arguments()
    assert checked is not None and resolved is not None
    return gke_node_pool_plan(*resolved, checked)


# --- EKS ------------------------------------------------------------------------------------------


def node_template_tags(pool: GpuPool, labels: Mapping[str, str], taints: Sequence[Taint]) -> dict[str, str]:
    """The pool's nodes as the Cluster Autoscaler must imagine them while the group is empty.

    Labels, taints and every extended resource a node will advertise (GPU, MIG profiles, shared replicas,
    EFA devices) as ASG tags ``k8s.io/cluster-autoscaler/node-template/{label,taint,resources}/<name>``
    (cluster-autoscaler FAQ "How can I scale a node group to 0?"). The autoscaler otherwise assumes the
    instance type's whole GPUs and nothing else, so pods asking for MIG slices, renamed replicas or EFA
    never scale an empty group up. ``nvidia.com/gpu`` is stated even when 0, for the same reason.
    """
    tags = {f"{CA_NODE_TEMPLATE}/label/{k}": v for k, v in sorted(labels.items())}
    tags.update({f"{CA_NODE_TEMPLATE}/taint/{t.key}": f"{t.value}:{t.effect}" for t in taints})
    resources = {GPU_RESOURCE: 0, **node_resources(pool)}
    tags.update({f"{CA_NODE_TEMPLATE}/resources/{r}": str(n) for r, n in sorted(resources.items())})
    return tags


@dataclass(frozen=True)
class EksNodePoolPlan(NodePoolPlan):
    ami_type: str = DEFAULT_IMAGE["eks"]
    capacity_type: str = "ON_DEMAND"
    root_device: str = EKS_ROOT_DEVICE["AL2023"]
    efa_interfaces: int = 0
    """EFA network cards to attach (0 without EFA)."""
    autoscaler_tags: Mapping[str, str] = field(default_factory=dict)
    """``node_template_tags``: put on the node group's Auto Scaling group."""

    @property
    def cloud_taints(self) -> list[dict[str, str | None]]:
        return [
            {"key": t.key, "value": t.value or None, "effect": CLOUD_TAINT_EFFECT[t.effect]}
            for t in self.taints
        ]


def eks_node_pool_plan(pool: GpuPool, driver: DriverPlan, inputs: Mapping[str, Any]) -> EksNodePoolPlan:
    assert pool.machine is not None
    ami = pool.image or DEFAULT_IMAGE["eks"]
    capacity = pool.capacity_type or ("SPOT" if pool.spot else "ON_DEMAND")
    # EKS replaces a node group for a new AMI type, instance type, capacity type or subnets (zones).
    fixed = (ami, pool.machine.name, capacity, pool.zones, pool.efa)
    base = _base(pool, driver, inputs, *fixed)
    return EksNodePoolPlan(
        **base,
        autoscaler_tags=node_template_tags(pool, base["labels"], base["taints"]),
        ami_type=ami,
        capacity_type=capacity,
        root_device=EKS_ROOT_DEVICE["BOTTLEROCKET" if ami.startswith("BOTTLEROCKET") else "AL2023"],
        efa_interfaces=pool.machine.efa_interfaces if pool.efa else 0,
    )


def plan_eks_node_pool(args: EksGpuNodePoolArgs) -> EksNodePoolPlan:
    """``EksGpuNodePool``'s arguments checked and resolved; ``ArgumentsError`` lists every problem."""
    p = Problems()
    checked = check_arguments(EksGpuNodePoolArgs, args, p)
    resolved = resolve_node_pool("eks", checked, p) if checked is not None else None
    if (
        checked is not None
        and resolved is not None
        and resolved[0].efa
        and checked.get("security_group_ids") is None
    ):
        p.add(("security_group_ids",), "EFA interfaces need security groups (the cluster security group)")
    p.raise_for_arguments()
    assert checked is not None and resolved is not None
    return eks_node_pool_plan(*resolved, checked)


# --- AKS ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AksNodePoolPlan(NodePoolPlan):
    os_sku: str = DEFAULT_IMAGE["aks"]
    gpu_instance_profile: str | None = None
    """``MIG<n>g`` for AKS-managed MIG; fixed when the pool is created."""
    spot: dict[str, Any] = field(default_factory=dict)
    """``scale_set_priority``, eviction policy and max price of a spot pool."""

    @property
    def cloud_taints(self) -> list[str]:
        return [f"{t.key}={t.value}:{t.effect}" for t in self.taints]


def aks_node_pool_plan(pool: GpuPool, driver: DriverPlan, inputs: Mapping[str, Any]) -> AksNodePoolPlan:
    s = pool.sharing
    profile = None
    if s.mode == "mig" and s.managed_by == "cloud":
        assert pool.mig_table is not None
        profile = aks_mig_profiles(pool.mig_table)[s.mig_profiles[0]]
    spot: dict[str, Any] = {}
    if pool.spot:
        price = pool.spot_max_price if pool.spot_max_price is not None else -1
        spot = {"scale_set_priority": "Spot", "scale_set_eviction_policy": "Delete", "spot_max_price": price}
    assert pool.machine is not None
    os_sku = pool.image or DEFAULT_IMAGE["aks"]
    # AKS fixes these at creation (see nodepools.aks.REPLACE_ON_CHANGES).
    fixed = (pool.machine.name, profile, driver.aks_gpu_driver, spot, pool.zones, pool.disk_size_gb, os_sku)
    base = _base(pool, driver, inputs, *fixed)
    generated = default_agent_pool_name(pool.name)[:6] + base["physical_name"][-6:]
    return AksNodePoolPlan(
        **{**base, "physical_name": inputs.get("agent_pool_name") or generated},
        os_sku=os_sku,
        gpu_instance_profile=profile,
        spot=spot,
    )


def plan_aks_node_pool(args: AksGpuNodePoolArgs) -> AksNodePoolPlan:
    """``AksGpuNodePool``'s arguments checked and resolved; ``ArgumentsError`` lists every problem."""
    p = Problems()
    checked = check_arguments(AksGpuNodePoolArgs, args, p)
    explicit = checked.get("agent_pool_name") if checked is not None else None
    if explicit is not None and (reason := agent_pool_name_problem(explicit)):
        p.add(("agent_pool_name",), reason)
    resolved = resolve_node_pool("aks", checked, p) if checked is not None else None
    p.raise_for_arguments()
    assert checked is not None and resolved is not None
    return aks_node_pool_plan(*resolved, checked)
