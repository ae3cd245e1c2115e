"""``GkeGpuNodePool``: a tainted, labelled, autoscaled GKE GPU node pool (pulumi-gcp ``container.NodePool``).

- Taint ``nvidia.com/gpu=present:NO_SCHEDULE`` always (GKE adds one only in some cases), then the user's.
- Labels from ``scheduling.pool_labels``: pool, GPU model, sharing mode, device-plugin config, and
  ``gke-no-default-nvidia-gpu-device-plugin=true`` when the GPU Operator runs the device plugin.
- ``gpu_driver_installation_config`` from the shared ``DriverPlan``; GKE-native sharing
  (``sharing.managed_by: cloud``): ``gpu_sharing_config`` or ``gpu_partition_size``.
- GPUDirect pools (``pool.gpudirect``): gVNIC and one ``additional_node_network_configs`` entry per extra NIC
  (``additional_node_networks``, from ``GkeGpuDirect``).
- NVLink-domain pools (A4X, GB200 NVL72): a Compute Engine workload policy (``HIGH_THROUGHPUT``, the domain's
  ``accelerator_topology``) in the pool's region, named in ``placement_policy`` (``COMPACT``), so the pool's
  nodes share one NVLink fabric.
- Autoscaling uses GKE's *total* limits so ``min_nodes``/``max_nodes`` mean the same as elsewhere;
  ``initial_node_count`` is per zone. Node counts are in ``ignore_changes``.
"""

from typing import Any

import pulumi

from gpu_platform.cloud_facts.gke.profile import PROFILE
from gpu_platform.clouds.gke.args import GkeGpuNodePoolArgs
from gpu_platform.clouds.gke.checks import node_pool_args
from gpu_platform.clouds.gke.node_pool_plan import GkeNodePoolPlan, gke_node_pool_plan
from gpu_platform.clouds.node_pool_component import GpuNodePoolComponent

CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
"""Google's recommended node scope: access is then limited by the node service account's IAM roles."""
REPLACE_ON_CHANGES = ["nodeConfig.guestAccelerators", "nodeConfig.spot", "nodeConfig.reservationAffinity"]
"""GKE cannot change these on a live pool (accelerator, driver install mode, partition size, sharing,
spot, reservation): a change is a new pool. A new placement policy changes the pool's name (its plan's
``physical_name``), which replaces it create-before-delete as well."""
DWS_REPLACE_ON_CHANGES = ["nodeConfig.flexStart", "nodeConfig.maxRunDuration", "queuedProvisioning"]
"""Also fixed at creation on Dynamic Workload Scheduler pools (flex-start, queued provisioning); the pool's
name digests them, so a change is a new pool created first."""
GPUDIRECT_REPLACE_ON_CHANGES = ["networkConfig.additionalNodeNetworkConfigs", "nodeConfig.gvnic"]
"""A GPUDirect pool's extra NICs are fixed at creation (GKE multi-network: "you can't add or remove node
network interfaces after creating the node pool")."""
IGNORE_CHANGES = ["initialNodeCount", "nodeCount"]
"""The autoscaler owns the node count; ``initialNodeCount`` only applies at creation."""


class GkeGpuNodePool(GpuNodePoolComponent[GkeNodePoolPlan]):
    """A tainted, labelled, autoscaled GKE GPU node pool."""

    _type_token = "gpu-platform:index:GkeGpuNodePool"

    def __init__(
        self, name: str, args: GkeGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. A tainted,
        labelled, autoscaled GKE GPU node pool."""
        self._start(name, gke_node_pool_plan(*node_pool_args(args)), opts)

    def _create(self, name: str, plan: GkeNodePoolPlan) -> dict[str, Any]:
        PROFILE.sdk(self)  # one line naming the extra when the SDK is missing
        import pulumi_gcp.container as gke

        pool, inputs = plan.pool, plan.inputs
        queued = gke.NodePoolQueuedProvisioningArgs(enabled=True) if plan.queued_provisioning else None
        network = _network_config(plan)
        placement = self._placement_policy(name, plan)
        self.node_pool = gke.NodePool(
            f"{name}-nodepool",
            name=plan.physical_name,
            cluster=inputs["cluster"],
            location=inputs["location"],
            project=inputs.get("project"),
            version=inputs.get("kubernetes_version"),
            node_locations=list(pool.zones) or None,
            initial_node_count=plan.initial_node_count,
            ignore_node_count_changes=True,
            autoscaling=gke.NodePoolAutoscalingArgs(
                total_min_node_count=pool.min_nodes,
                total_max_node_count=pool.max_nodes,
                location_policy=plan.location_policy,
            ),
            management=gke.NodePoolManagementArgs(auto_repair=plan.auto_repair, auto_upgrade=True),
            queued_provisioning=queued,
            network_config=network,
            placement_policy=placement,
            node_config=_node_config(plan),
            opts=self.child_opts(
                ignore_changes=IGNORE_CHANGES,
                replace_on_changes=_replace_on_changes(plan),
                protect=plan.protect,
            ),
        )
        return self._pool_outputs(plan, self.node_pool.name)

    def _placement_policy(self, name: str, plan: GkeNodePoolPlan) -> Any:
        """``placement_policy``: ``COMPACT``, naming the workload policy created here for an NVLink-domain pool."""
        import pulumi_gcp.compute as compute
        import pulumi_gcp.container as gke

        if plan.placement_policy is None:
            return None
        policy = plan.workload_policy
        if policy is None:
            return gke.NodePoolPlacementPolicyArgs(type=plan.placement_policy)
        self.workload_policy = compute.ResourcePolicy(
            f"{name}-workload-policy",
            name=policy.name,
            region=policy.region,
            project=plan.inputs.get("project"),
            description=f"Places GKE node pool {plan.physical_name} in one NVLink domain ({policy.accelerator_topology})",
            workload_policy=compute.ResourcePolicyWorkloadPolicyArgs(**policy.workload_policy),
            opts=self.child_opts(protect=plan.protect),
        )
        return gke.NodePoolPlacementPolicyArgs(
            type=plan.placement_policy, policy_name=self.workload_policy.name
        )


def _network_config(plan: GkeNodePoolPlan) -> Any:
    """``network_config`` with the extra NICs of a GPUDirect pool, in order; ``None`` for other pools."""
    import pulumi_gcp.container as gke

    if not plan.additional_node_networks:
        return None
    return gke.NodePoolNetworkConfigArgs(
        additional_node_network_configs=[
            gke.NodePoolNetworkConfigAdditionalNodeNetworkConfigArgs(
                network=n["network"], subnetwork=n["subnetwork"]
            )
            for n in plan.additional_node_networks
        ]
    )


def _node_config(plan: GkeNodePoolPlan) -> Any:
    """``node_config``: the machine, its GPUs, labels and taints, capacity, image, disks and identity."""
    import pulumi_gcp.container as gke

    pool, inputs = plan.pool, plan.inputs
    assert pool.machine is not None
    reservation = None
    if plan.reservation_affinity is not None:
        reservation = gke.NodePoolNodeConfigReservationAffinityArgs(**plan.reservation_affinity)
    metadata = (
        gke.NodePoolNodeConfigWorkloadMetadataConfigArgs(mode="GKE_METADATA")
        if plan.workload_identity
        else None
    )
    return gke.NodePoolNodeConfigArgs(
        machine_type=pool.machine.name,
        guest_accelerators=[plan.accelerator],  # type: ignore[list-item]
        labels=plan.labels,
        taints=plan.cloud_taints,  # type: ignore[arg-type]
        spot=pool.spot,
        reservation_affinity=reservation,
        flex_start=plan.flex_start or None,
        max_run_duration=plan.max_run_duration,
        image_type=plan.image_type,
        disk_size_gb=pool.disk_size_gb,
        service_account=inputs.get("service_account"),
        oauth_scopes=[CLOUD_PLATFORM_SCOPE],
        workload_metadata_config=metadata,
        gvnic=gke.NodePoolNodeConfigGvnicArgs(enabled=True) if plan.gvnic else None,
        ephemeral_storage_local_ssd_config=(
            gke.NodePoolNodeConfigEphemeralStorageLocalSsdConfigArgs(local_ssd_count=plan.local_ssd_count)
            if plan.local_ssd_count
            else None
        ),
    )


def _replace_on_changes(plan: GkeNodePoolPlan) -> list[str]:
    """What GKE fixes at creation on this pool: always the accelerator and capacity, plus the flex-start
    fields on Dynamic Workload Scheduler pools and the extra NICs on GPUDirect pools."""
    replace = REPLACE_ON_CHANGES + (DWS_REPLACE_ON_CHANGES if plan.flex_start else [])
    return replace + (GPUDIRECT_REPLACE_ON_CHANGES if plan.additional_node_networks else [])
