"""GKE GPU node pool: ``pulumi_gcp.container.NodePool`` with the GPU taint, labels and accelerator config.

Argument names follow pulumi-gcp 10.2.0 (GPU_PLATFORM_FACTS.md section 1.1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NotRequired, TypedDict

import pulumi
from pulumi import Input

from gpu_platform.args import GpuPoolArgs
from gpu_platform.config.errors import ConfigError
from gpu_platform.driver import DEFAULT_IMAGE
from gpu_platform.nodepools import CLOUD_TAINT_EFFECT, PoolPlan, ensure_gpu_taint, resolve_pool_plan

CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
"""Google's recommended node scope: access is then limited by the node service account's IAM roles."""
RESERVATION_NAME_KEY = "compute.googleapis.com/reservation-name"
GKE_SHARING_STRATEGY = {"time-slicing": "TIME_SHARING", "mps": "MPS"}

REPLACE_ON_CHANGES = ["nodeConfig.guestAccelerators", "nodeConfig.spot", "nodeConfig.reservationAffinity"]
"""GKE cannot change these on a live pool (accelerator type/count, driver install mode, partition size,
sharing, spot, reservation): a change is a new pool."""
IGNORE_CHANGES = ["initialNodeCount", "nodeCount"]
"""The autoscaler owns the node count; ``initialNodeCount`` only applies at creation."""


class GkeGpuNodePoolArgs(TypedDict):
    cluster: Input[str]
    """Cluster name, or its ID ``projects/<project>/locations/<location>/clusters/<name>``."""
    location: Input[str]
    """Cluster location (region or zone)."""
    pool: GpuPoolArgs
    """The pool, as in the stack config's ``gpuPools`` entries (snake_case)."""
    project: NotRequired[Input[str]]
    """Default: the provider's project."""
    service_account: NotRequired[Input[str]]
    """Node service account email; default: the Compute Engine default account. Use a least-privilege one
    (``GkeCluster.node_service_account_email``)."""
    workload_identity: NotRequired[bool]
    """Run the GKE metadata server on the nodes (Workload Identity). Default ``True``; set ``False`` only for
    clusters without Workload Identity."""
    kubernetes_version: NotRequired[Input[str]]
    """Node version; default: the cluster's."""
    driver_owner: NotRequired[str]
    """``auto`` (default), ``operator`` or ``cloud``: must match the GPU Operator's ``driver.owner``."""
    operator_version: NotRequired[str]
    """GPU Operator chart version (default ``versions.GPU_OPERATOR``), for the driver it installs."""
    driver_version: NotRequired[str]
    """Operator-managed driver version override, for the CUDA check."""
    host_driver_version: NotRequired[str]
    """Cloud-managed driver version, for the CUDA check."""


def _accelerator(plan: PoolPlan) -> dict[str, Any]:
    pool = plan.pool
    assert pool.machine is not None and pool.machine.accelerator_type
    accel: dict[str, Any] = {
        "type": pool.machine.accelerator_type,
        "count": pool.gpus_per_node,
        "gpu_driver_installation_config": {"gpu_driver_version": plan.driver.gke_driver_version},
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


def check_gke_pool(args: GkeGpuNodePoolArgs) -> PoolPlan:
    """Every check on known values, before anything is registered."""
    plan = resolve_pool_plan("gke", args)
    pool = plan.pool
    problems = []
    if pool.machine is None or not pool.machine.accelerator_type:
        problems.append(("pool.machine_type", "GKE needs a machine type with a guest accelerator"))
    s = pool.sharing
    if s.managed_by == "cloud" and s.mode == "mig" and any("+" in p for p in s.mig_profiles):
        problems.append(
            (
                "pool.sharing.mig.layout",
                "GKE gpu_partition_size takes plain <n>g.<m>gb profiles, not '+me' ones",
            )
        )
    if problems:
        raise ConfigError(problems)
    return plan


class GkeGpuNodePool(pulumi.ComponentResource):
    """A tainted, labelled, autoscaled GKE GPU node pool.

    - Taint ``nvidia.com/gpu=present:NO_SCHEDULE`` always (GKE adds one only in some cases), then the user's.
    - Labels from ``scheduling.pool_labels``: pool, GPU model, sharing mode, device-plugin config, and
      ``gke-no-default-nvidia-gpu-device-plugin=true`` when the GPU Operator runs the device plugin.
    - ``gpu_driver_installation_config`` from the shared ``DriverPlan`` (``INSTALLATION_DISABLED``: Google's
      installer DaemonSet or the operator installs it). GKE-native sharing (``sharing.managed_by: cloud``):
      ``gpu_sharing_config`` (TIME_SHARING/MPS) or ``gpu_partition_size`` (MIG).
    - Autoscaling uses GKE's *total* limits so ``min_nodes``/``max_nodes`` mean the same as elsewhere
      (Kueue quotas are max nodes x units per node); ``initial_node_count`` is per zone, so the initial
      count is split over ``zones``. Node counts are in ``ignore_changes``.

    Replacements: a change of accelerator type or count, driver install mode, partition size, GKE
    sharing, spot or reservation replaces the pool (``replace_on_changes``). The pool keeps the pool's
    name, so it is deleted before its replacement is created (``delete_before_replace``); that also avoids
    needing twice the GPU quota. A machine type change within a family (same accelerator) is applied by
    GKE in place with a rolling node re-creation.
    """

    node_pool_name: pulumi.Output[str]
    labels: pulumi.Output[dict[str, str]]
    taints: pulumi.Output[list[dict[str, str]]]
    """Kubernetes shape, as pods must tolerate them."""

    def __init__(self, name: str, args: GkeGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        plan = check_gke_pool(args)
        super().__init__("gpu-platform:index:GkeGpuNodePool", name, None, opts)
        import pulumi_gcp.container as gcp_container

        pool = plan.pool
        self.pool = pool
        self.driver = plan.driver
        ensure_gpu_taint(plan.taints)
        taints = [
            gcp_container.NodePoolNodeConfigTaintArgs(
                key=t.key, value=t.value, effect=CLOUD_TAINT_EFFECT[t.effect]
            )
            for t in plan.taints
        ]
        reservation = None
        if pool.reservation:
            reservation = gcp_container.NodePoolNodeConfigReservationAffinityArgs(
                consume_reservation_type="SPECIFIC_RESERVATION",
                key=RESERVATION_NAME_KEY,
                values=[pool.reservation],
            )
        workload_metadata = None
        if args.get("workload_identity", True):
            workload_metadata = gcp_container.NodePoolNodeConfigWorkloadMetadataConfigArgs(
                mode="GKE_METADATA"
            )
        assert pool.machine is not None
        zones: Sequence[str] = pool.zones
        self.node_pool = gcp_container.NodePool(
            f"{name}-nodepool",
            name=pool.name,
            cluster=args["cluster"],
            location=args["location"],
            project=args.get("project"),
            version=args.get("kubernetes_version"),
            node_locations=list(zones) or None,
            initial_node_count=math.ceil(pool.initial_nodes / max(len(zones), 1)),
            ignore_node_count_changes=True,
            autoscaling=gcp_container.NodePoolAutoscalingArgs(
                total_min_node_count=pool.min_nodes,
                total_max_node_count=pool.max_nodes,
                # ANY prefers unused reservations and lowers Spot preemption risk (pulumi-gcp docs).
                location_policy="ANY" if pool.spot or pool.reservation else "BALANCED",
            ),
            management=gcp_container.NodePoolManagementArgs(auto_repair=True, auto_upgrade=True),
            node_config=gcp_container.NodePoolNodeConfigArgs(
                machine_type=pool.machine.name,
                guest_accelerators=[_accelerator(plan)],
                labels=plan.labels,
                taints=taints,
                spot=pool.spot,
                reservation_affinity=reservation,
                image_type=pool.image or DEFAULT_IMAGE["gke"],
                disk_size_gb=pool.disk_size_gb,
                service_account=args.get("service_account"),
                oauth_scopes=[CLOUD_PLATFORM_SCOPE],
                workload_metadata_config=workload_metadata,
            ),
            opts=pulumi.ResourceOptions(
                parent=self,
                ignore_changes=IGNORE_CHANGES,
                replace_on_changes=REPLACE_ON_CHANGES,
                delete_before_replace=True,
            ),
        )
        self.node_pool_name = self.node_pool.name
        self.labels = pulumi.Output.from_input(plan.labels)
        self.taints = pulumi.Output.from_input(
            [{"key": t.key, "value": t.value, "effect": t.effect} for t in plan.taints]
        )
        self.register_outputs(
            {"node_pool_name": self.node_pool_name, "labels": self.labels, "taints": self.taints}
        )
