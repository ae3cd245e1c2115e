"""EKS GPU node pool: a managed node group on the NVIDIA AMI, with its launch template.

Argument names follow pulumi-aws 7.51.1 (GPU_PLATFORM_FACTS.md section 1.2).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NotRequired, TypedDict

import pulumi
from pulumi import Input

from gpu_platform.args import GpuPoolArgs
from gpu_platform.config.errors import ConfigError
from gpu_platform.driver import DEFAULT_IMAGE
from gpu_platform.nodepools import CLOUD_TAINT_EFFECT, PoolPlan, ensure_gpu_taint, resolve_pool_plan

IGNORE_CHANGES = ["scalingConfig.desiredSize"]
"""The autoscaler owns the desired size (pulumi-aws "Ignoring Changes to Desired Size")."""
ROOT_DEVICE = {"AL2023": "/dev/xvda", "BOTTLEROCKET": "/dev/xvdb"}
"""Where container images live: AL2023's root volume; Bottlerocket's data volume (its root is the OS)."""
IMDS_HOP_LIMIT = 1
"""IMDSv2 only, one hop: pods cannot borrow the node role; GPU workloads use IRSA instead."""


class EksGpuNodePoolArgs(TypedDict):
    cluster_name: Input[str]
    """Name of the EKS cluster (``EksCluster.cluster_name`` or one made elsewhere)."""
    node_role_arn: Input[str]
    """IAM role of the nodes (worker node, ECR read-only and CNI policies)."""
    subnet_ids: Input[Sequence[Input[str]]]
    """Private subnets for the nodes; they decide the zones (``pool.zones`` is not read here:
    ``clouds.eks`` picks the subnets of those zones). EFA pools need subnets in one availability zone."""
    pool: GpuPoolArgs
    """The pool, as in the stack config's ``gpuPools`` entries (snake_case)."""
    kubernetes_version: NotRequired[Input[str]]
    """Node Kubernetes version; default: the cluster's."""
    security_group_ids: NotRequired[Input[Sequence[Input[str]]]]
    """Required with ``efa``: security groups for the EFA interfaces, normally the cluster security group
    (it allows all traffic between its members, which EFA needs)."""
    capacity_reservation_id: NotRequired[Input[str]]
    """Required with ``capacity_type: CAPACITY_BLOCK``: the EC2 Capacity Block reservation ID. AWS asks for
    desired size 0 while such a group is upgraded."""
    driver_owner: NotRequired[str]
    """``auto`` (default) or ``cloud``: the NVIDIA AMIs carry the driver and toolkit."""
    operator_version: NotRequired[str]
    """GPU Operator chart version (default ``versions.GPU_OPERATOR``)."""
    driver_version: NotRequired[str]
    """Unused on EKS (the AMI's driver runs); accepted so all clouds take the same driver arguments."""
    host_driver_version: NotRequired[str]
    """The AMI's driver version, for the CUDA check."""


def capacity_type(plan: PoolPlan) -> str:
    pool = plan.pool
    return pool.capacity_type or ("SPOT" if pool.spot else "ON_DEMAND")


def check_eks_pool(args: EksGpuNodePoolArgs) -> PoolPlan:
    """Every check on known values, before anything is registered."""
    plan = resolve_pool_plan("eks", args)
    pool = plan.pool
    problems = []
    if pool.max_nodes < 1:
        problems.append(("pool.max_nodes", "EKS node groups need max_nodes >= 1"))
    if pool.efa and args.get("security_group_ids") is None:
        problems.append(
            ("security_group_ids", "EFA interfaces need security groups (the cluster security group)")
        )
    if capacity_type(plan) == "CAPACITY_BLOCK" and args.get("capacity_reservation_id") is None:
        problems.append(
            ("capacity_reservation_id", "capacity_type CAPACITY_BLOCK needs the Capacity Block ID")
        )
    if problems:
        raise ConfigError(problems)
    return plan


class EksGpuNodePool(pulumi.ComponentResource):
    """A tainted, labelled, autoscaled EKS managed node group for GPUs.

    - AMI type ``AL2023_x86_64_NVIDIA`` (default) or ``BOTTLEROCKET_x86_64_NVIDIA``: driver and container
      toolkit come with the AMI, so the GPU Operator's ``driver.owner`` must be ``auto``/``cloud``.
    - Taint ``nvidia.com/gpu=present`` with effect ``NO_SCHEDULE`` always (EKS adds none), then the user's.
    - Labels from ``scheduling.pool_labels`` (pool, GPU model, sharing mode, device-plugin config).
    - ``capacity_type`` ``ON_DEMAND``, ``SPOT`` or ``CAPACITY_BLOCK`` (with the reservation in the
      launch template).
    - A launch template always: encrypted gp3 disk of ``disk_size_gb`` on the volume that holds images
      (so ``disk_size`` is not set on the node group), IMDSv2 with one hop, and for ``efa`` one EFA
      interface per network card plus a cluster placement group.
    - ``scaling_config.desired_size`` starts at ``initial_nodes`` and is in ``ignore_changes``.

    Replacements: EKS replaces the node group when the AMI type, instance type, capacity type, subnets or
    node role change. The group keeps the pool's name, so it is deleted before its replacement is created
    (``delete_before_replace``), which never needs twice the GPU quota. Launch template changes roll the
    nodes in place (new template version).
    """

    node_pool_name: pulumi.Output[str]
    labels: pulumi.Output[dict[str, str]]
    taints: pulumi.Output[list[dict[str, str]]]
    """Kubernetes shape, as pods must tolerate them."""

    def __init__(self, name: str, args: EksGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        plan = check_eks_pool(args)
        super().__init__("gpu-platform:index:EksGpuNodePool", name, None, opts)
        import pulumi_aws.ec2 as aws_ec2
        import pulumi_aws.eks as aws_eks

        pool = plan.pool
        self.pool = pool
        self.driver = plan.driver
        assert pool.machine is not None
        ensure_gpu_taint(plan.taints)
        ami_type = pool.image or DEFAULT_IMAGE["eks"]
        child = pulumi.ResourceOptions(parent=self)

        placement = None
        network_interfaces = None
        if pool.efa:
            group = aws_ec2.PlacementGroup(f"{name}-placement", strategy="cluster", opts=child)
            placement = aws_ec2.LaunchTemplatePlacementArgs(group_name=group.name)
            network_interfaces = [
                aws_ec2.LaunchTemplateNetworkInterfaceArgs(
                    network_card_index=i,
                    device_index=0 if i == 0 else 1,
                    interface_type="efa",
                    delete_on_termination="true",
                    security_groups=args["security_group_ids"],
                )
                for i in range(pool.machine.efa_interfaces)
            ]
        market = None
        reservation = None
        if capacity_type(plan) == "CAPACITY_BLOCK":
            market = aws_ec2.LaunchTemplateInstanceMarketOptionsArgs(market_type="capacity-block")
            reservation = aws_ec2.LaunchTemplateCapacityReservationSpecificationArgs(
                capacity_reservation_target=aws_ec2.LaunchTemplateCapacityReservationSpecificationCapacityReservationTargetArgs(
                    capacity_reservation_id=args["capacity_reservation_id"]
                )
            )
        device = ROOT_DEVICE["BOTTLEROCKET" if ami_type.startswith("BOTTLEROCKET") else "AL2023"]
        self.launch_template = aws_ec2.LaunchTemplate(
            f"{name}-lt",
            description=f"GPU pool {pool.name}: disk, IMDSv2" + (", EFA" if pool.efa else ""),
            update_default_version=True,
            block_device_mappings=[
                aws_ec2.LaunchTemplateBlockDeviceMappingArgs(
                    device_name=device,
                    ebs=aws_ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
                        volume_size=pool.disk_size_gb,
                        volume_type="gp3",
                        encrypted="true",
                        delete_on_termination="true",
                    ),
                )
            ],
            metadata_options=aws_ec2.LaunchTemplateMetadataOptionsArgs(
                http_endpoint="enabled", http_tokens="required", http_put_response_hop_limit=IMDS_HOP_LIMIT
            ),
            network_interfaces=network_interfaces,
            placement=placement,
            instance_market_options=market,
            capacity_reservation_specification=reservation,
            opts=child,
        )
        self.node_group = aws_eks.NodeGroup(
            f"{name}-nodegroup",
            cluster_name=args["cluster_name"],
            node_group_name=pool.name,
            node_role_arn=args["node_role_arn"],
            subnet_ids=args["subnet_ids"],
            version=args.get("kubernetes_version"),
            ami_type=ami_type,
            instance_types=[pool.machine.name],
            capacity_type=capacity_type(plan),
            labels=plan.labels,
            taints=[
                aws_eks.NodeGroupTaintArgs(
                    key=t.key, value=t.value or None, effect=CLOUD_TAINT_EFFECT[t.effect]
                )
                for t in plan.taints
            ],
            scaling_config=aws_eks.NodeGroupScalingConfigArgs(
                desired_size=pool.initial_nodes, min_size=pool.min_nodes, max_size=pool.max_nodes
            ),
            launch_template=aws_eks.NodeGroupLaunchTemplateArgs(
                id=self.launch_template.id, version=self.launch_template.latest_version.apply(str)
            ),
            update_config=aws_eks.NodeGroupUpdateConfigArgs(max_unavailable=1),
            opts=pulumi.ResourceOptions(
                parent=self, ignore_changes=IGNORE_CHANGES, delete_before_replace=True
            ),
        )
        self.node_pool_name = self.node_group.node_group_name
        self.labels = pulumi.Output.from_input(plan.labels)
        self.taints = pulumi.Output.from_input(
            [{"key": t.key, "value": t.value, "effect": t.effect} for t in plan.taints]
        )
        self.register_outputs(
            {"node_pool_name": self.node_pool_name, "labels": self.labels, "taints": self.taints}
        )
