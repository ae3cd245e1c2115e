"""``EksGpuNodePool``: a tainted, labelled, autoscaled EKS managed node group on the NVIDIA AMI.

- AMI type ``AL2023_x86_64_NVIDIA`` (default) or ``BOTTLEROCKET_x86_64_NVIDIA``: driver and toolkit come
  with the AMI, so the driver owner must be ``auto``/``cloud``.
- Taint ``nvidia.com/gpu=present`` with ``NO_SCHEDULE`` always (EKS adds none), then the user's.
- ``capacity_type`` ``ON_DEMAND``, ``SPOT`` or ``CAPACITY_BLOCK`` (``pool.reservation`` in the launch template).
- A launch template always: encrypted gp3 disk on the volume that holds images, IMDSv2 with one hop, and
  for ``efa`` one EFA device per network card plus a cluster placement group: card 0 an EFA with ENA (the
  primary interface, the node's IP), every other card EFA-only (no IP address: 31 fewer subnet IPs per
  p5 node) as AWS recommends (EC2 user guide, "Maximize network bandwidth ... with multiple network cards").
  With ``local_ssds`` its user data puts the kubelet's and containerd's state on the instance store's NVMe
  volumes as one RAID0 array (``instance_store_plan``; EKS merges it with its own).
- ``scaling_config.desired_size`` starts at ``initial_nodes`` and is in ``ignore_changes``.
- The node group's Auto Scaling group is tagged for the Cluster Autoscaler: auto-discovery, and the labels,
  taints and extended resources of its nodes, so it scales up from zero for the pods it can run.
"""

import base64
from typing import Any

import pulumi

from gpu_platform.cloud_facts.eks.profile import CA_NODE_TEMPLATE, PROFILE
from gpu_platform.clouds.eks.args import EksGpuNodePoolArgs
from gpu_platform.clouds.eks.autoscaling_plan import DISCOVERY_TAGS, OWNED
from gpu_platform.clouds.eks.checks import node_pool_args
from gpu_platform.clouds.eks.node_pool_plan import EksNodePoolPlan, eks_node_pool_plan
from gpu_platform.clouds.node_pool_component import GpuNodePoolComponent

IGNORE_CHANGES = ["scalingConfig.desiredSize"]
"""The autoscaler owns the desired size (pulumi-aws "Ignoring Changes to Desired Size")."""
IMDS_HOP_LIMIT = 1
"""IMDSv2 only, one hop: pods cannot borrow the node role; GPU workloads use IRSA instead."""


def _auto_scaling_group_name(resources: Any) -> str:
    """The one Auto Scaling group EKS made for the node group."""
    (resource,) = resources
    groups: list[Any] = list(resource.autoscaling_groups or [])
    return str(groups[0].name)


class EksGpuNodePool(GpuNodePoolComponent[EksNodePoolPlan]):
    """A tainted, labelled, autoscaled EKS managed node group for GPUs."""

    _type_token = "gpu-platform:index:EksGpuNodePool"

    def __init__(
        self, name: str, args: EksGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. A tainted,
        labelled, autoscaled EKS managed node group for GPUs."""
        self._start(name, eks_node_pool_plan(*node_pool_args(args)), opts)

    def _launch_template(self, name: str, plan: EksNodePoolPlan) -> Any:
        import pulumi_aws.ec2 as ec2

        pool, inputs = plan.pool, plan.inputs
        placement = interfaces = market = reservation = None
        if plan.placement_group:
            group = ec2.PlacementGroup(f"{name}-placement", strategy="cluster", opts=self.child_opts())
            placement = ec2.LaunchTemplatePlacementArgs(group_name=group.name)
        if plan.efa_interfaces:
            interfaces = [
                ec2.LaunchTemplateNetworkInterfaceArgs(
                    network_card_index=i,
                    device_index=0,
                    interface_type="efa" if i == 0 else "efa-only",
                    delete_on_termination="true",
                    security_groups=inputs["security_group_ids"],
                )
                for i in range(plan.efa_interfaces)
            ]
        if plan.capacity_type == "CAPACITY_BLOCK":
            market = ec2.LaunchTemplateInstanceMarketOptionsArgs(market_type="capacity-block")
        if pool.primary.reserved and pool.reservation:
            # A Capacity Block or an On-Demand Capacity Reservation, targeted by ID (an ODCR is ON_DEMAND).
            target = ec2.LaunchTemplateCapacityReservationSpecificationCapacityReservationTargetArgs(
                capacity_reservation_id=pool.reservation
            )
            reservation = ec2.LaunchTemplateCapacityReservationSpecificationArgs(
                capacity_reservation_target=target
            )
        disk = ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
            volume_size=pool.disk_size_gb, volume_type="gp3", encrypted="true", delete_on_termination="true"
        )
        user_data = base64.b64encode(plan.user_data.encode()).decode() if plan.user_data else None
        return ec2.LaunchTemplate(
            f"{name}-lt",
            description=f"GPU pool {pool.name}: disk, IMDSv2"
            + (", EFA" if pool.efa else "")
            + (", instance store RAID0" if user_data else ""),
            update_default_version=True,
            block_device_mappings=[
                ec2.LaunchTemplateBlockDeviceMappingArgs(device_name=plan.root_device, ebs=disk)
            ],
            metadata_options=ec2.LaunchTemplateMetadataOptionsArgs(
                http_endpoint="enabled", http_tokens="required", http_put_response_hop_limit=IMDS_HOP_LIMIT
            ),
            network_interfaces=interfaces,
            placement=placement,
            instance_market_options=market,
            capacity_reservation_specification=reservation,
            user_data=user_data,
            opts=self.child_opts(),
        )

    def _create(self, name: str, plan: EksNodePoolPlan) -> dict[str, Any]:
        PROFILE.sdk(self)  # one line naming the extra when the SDK is missing
        import pulumi_aws.eks as eks

        pool, inputs = plan.pool, plan.inputs
        assert pool.machine is not None
        self.launch_template = self._launch_template(name, plan)
        self.node_group = eks.NodeGroup(
            f"{name}-nodegroup",
            cluster_name=inputs["cluster_name"],
            node_group_name=plan.physical_name,
            node_role_arn=inputs["node_role_arn"],
            subnet_ids=inputs["subnet_ids"],
            version=inputs.get("kubernetes_version"),
            ami_type=plan.ami_type,
            instance_types=[pool.machine.name],
            capacity_type=plan.capacity_type,
            labels=plan.labels,
            taints=plan.cloud_taints,  # type: ignore[arg-type]
            scaling_config=eks.NodeGroupScalingConfigArgs(
                desired_size=pool.initial_nodes, min_size=pool.min_nodes, max_size=pool.max_nodes
            ),
            launch_template=eks.NodeGroupLaunchTemplateArgs(
                id=self.launch_template.id, version=self.launch_template.latest_version.apply(str)
            ),
            update_config=eks.NodeGroupUpdateConfigArgs(max_unavailable=1),
            node_repair_config=(
                eks.NodeGroupNodeRepairConfigArgs(enabled=True) if inputs.get("node_repair") else None
            ),
            opts=self.child_opts(ignore_changes=IGNORE_CHANGES, protect=plan.protect),
        )
        self._autoscaler_tags(name, plan)
        return self._pool_outputs(plan, self.node_group.node_group_name)

    def _autoscaler_tags(self, name: str, plan: EksNodePoolPlan) -> None:
        """One tag resource per key on the node group's Auto Scaling group (EKS does not copy node group
        tags to it), keyed by what it describes. Not propagated to instances: only the autoscaler reads them."""
        import pulumi_aws.autoscaling as autoscaling

        group = self.node_group.resources.apply(_auto_scaling_group_name)
        cluster = pulumi.Output.from_input(plan.inputs["cluster_name"])
        tags: dict[str, tuple[Any, str]] = {
            "discovery/enabled": (DISCOVERY_TAGS[0], "true"),
            "discovery/cluster": (cluster.apply(lambda c: DISCOVERY_TAGS[1].format(cluster=c)), OWNED),
        }
        for key, value in plan.autoscaler_tags.items():
            tags[key.removeprefix(f"{CA_NODE_TEMPLATE}/")] = (key, value)
        for suffix, (key, value) in tags.items():
            autoscaling.Tag(
                f"{name}-asg-{suffix}",
                autoscaling_group_name=group,
                tag=autoscaling.TagTagArgs(key=key, value=value, propagate_at_launch=False),
                opts=self.child_opts(),
            )
