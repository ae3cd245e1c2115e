"""``EksCluster``: a VPC with private node subnets behind NAT, IAM roles with only the policies EKS
needs, an OIDC provider for IRSA and a small untainted system node group."""

import json
from typing import Any

import pulumi
from pulumi_kubernetes.provider import Provider as KubernetesProvider

from gpu_platform.cloud_facts.eks.profile import DEFAULT_ZONES, PROFILE
from gpu_platform.clouds.cluster_inputs import sequence as _sequence
from gpu_platform.clouds.cluster_provider import OldProviderName, cluster_provider
from gpu_platform.clouds.eks.args import DISCOVERY_TAG, EksClusterArgs
from gpu_platform.clouds.eks.checks import cluster_args
from gpu_platform.clouds.eks.cluster_plan import EksClusterPlan, eks_cluster_plan, zone_cidrs
from gpu_platform.clouds.kubeconfig import exec_kubeconfig
from gpu_platform.component import PlannedComponent

AWS_POLICY = "arn:aws:iam::aws:policy/"
CLUSTER_POLICIES = ("AmazonEKSClusterPolicy",)
NODE_POLICIES = ("AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryReadOnly", "AmazonEKS_CNI_Policy")
"""Exactly what EKS nodes need to join, pull images and run the VPC CNI; workloads use IRSA."""
SYSTEM_DISK_GB = 50
SYSTEM_AMI = "AL2023_x86_64_STANDARD"


def assume_role_policy(service: str) -> str:
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}],
        }
    )


class EksCluster(OldProviderName, PlannedComponent[EksClusterPlan]):
    """An EKS cluster ready for ``EksGpuNodePool``.

    Nodes run in private subnets (egress through one NAT gateway; add more for zone-redundant egress).
    The API endpoint is private and public (narrow it with ``public_access_cidrs``); access entries
    (``authentication_mode=API``) give the creator cluster admin. ``node_role_arn`` resolves only once its
    policies are attached, so node groups built from it never start without them.
    """

    _type_token = "gpu-platform:index:EksCluster"

    cluster_name: pulumi.Output[str]
    """Name of the EKS cluster."""
    kubeconfig: pulumi.Output[str]
    """Secret; authenticates with ``aws eks get-token``."""
    kubernetes_provider: KubernetesProvider
    """The Kubernetes provider of this cluster (a ``pulumi_kubernetes.Provider``), made from ``kubeconfig`` with
    server-side apply: pass it as ``opts.provider`` to the GPU Operator, Kueue, KServe and any Kubernetes resource
    of your own."""
    node_role_arn: pulumi.Output[str]
    """IAM role for GPU node groups (policies attached)."""
    cluster_security_group_id: pulumi.Output[str]
    """EKS's cluster security group: members reach each other and the control plane (EFA needs that)."""
    oidc_provider_arn: pulumi.Output[str]
    """For IRSA trust policies."""

    def __init__(self, name: str, args: EksClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. An EKS cluster
        ready for ``EksGpuNodePool``."""
        self._start(name, eks_cluster_plan(name, *cluster_args(args)), opts)

    def _zones(self, plan: EksClusterPlan) -> list[str]:
        import pulumi_aws as aws

        if plan.zones:
            return list(plan.zones)
        names = aws.get_availability_zones(state="available", opts=pulumi.InvokeOptions(parent=self)).names
        return list(names)[:DEFAULT_ZONES]

    def _subnet(self, name: str, kind: str, zone: str, position: int, cidr: str, vpc: Any, table: Any) -> Any:
        """One subnet keyed by its zone (0.1.0 keyed them by position: that name stays an alias)."""
        import pulumi_aws.ec2 as ec2

        role = {"public": "kubernetes.io/role/elb", "private": "kubernetes.io/role/internal-elb"}[kind]
        tags = {"Name": f"{name}-{kind}-{zone}", role: "1"}
        if kind == "private" and self.plan.inputs.get("karpenter_discovery"):
            tags[DISCOVERY_TAG] = name  # in the subnet's own tags: a separate tag resource would fight them
        old = pulumi.Alias(name=f"{name}-{kind}-{position}")
        subnet = ec2.Subnet(
            f"{name}-{kind}-{zone}",
            vpc_id=vpc.id,
            availability_zone=zone,
            cidr_block=cidr,
            map_public_ip_on_launch=False if kind == "public" else None,
            tags=tags,
            opts=self.child_opts(aliases=[old], protect=self.plan.protect),
        )
        ec2.RouteTableAssociation(
            f"{name}-{kind}-{zone}",
            subnet_id=subnet.id,
            route_table_id=table.id,
            opts=self.child_opts(aliases=[old]),
        )
        return subnet

    def _subnets(self, name: str, plan: EksClusterPlan, zones: list[str], vpc: Any, igw: Any) -> list[Any]:
        """Public subnets (NAT, load balancers) and private ones (nodes) per zone; returns the private ones."""
        import pulumi_aws.ec2 as ec2

        cidrs = [zone_cidrs(plan.vpc_cidr, i) for i in range(len(zones))]
        route = ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", gateway_id=igw.id)
        public_rt = ec2.RouteTable(f"{name}-public", vpc_id=vpc.id, routes=[route], opts=self.child_opts())
        public = [
            self._subnet(name, "public", z, i, cidrs[i][1], vpc, public_rt) for i, z in enumerate(zones)
        ]
        eip = ec2.Eip(f"{name}-nat", domain="vpc", opts=self.child_opts(protect=plan.protect))
        nat = ec2.NatGateway(
            f"{name}-nat",
            allocation_id=eip.id,
            subnet_id=public[0].id,
            opts=self.child_opts(depends_on=[igw], protect=plan.protect),
        )
        route = ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", nat_gateway_id=nat.id)
        private_rt = ec2.RouteTable(f"{name}-private", vpc_id=vpc.id, routes=[route], opts=self.child_opts())
        return [
            self._subnet(name, "private", z, i, cidrs[i][0], vpc, private_rt) for i, z in enumerate(zones)
        ]

    def _roles(self, name: str) -> tuple[Any, list[Any], Any, list[Any]]:
        import pulumi_aws.iam as iam

        def role(suffix: str, service: str, policies: tuple[str, ...]) -> tuple[Any, list[Any]]:
            r = iam.Role(
                f"{name}-{suffix}-role",
                assume_role_policy=assume_role_policy(service),
                opts=self.child_opts(),
            )
            attached = [
                iam.RolePolicyAttachment(
                    f"{name}-{suffix}-{p}", role=r.name, policy_arn=AWS_POLICY + p, opts=self.child_opts()
                )
                for p in policies
            ]
            return r, attached

        cluster_role, cluster_attach = role("cluster", "eks.amazonaws.com", CLUSTER_POLICIES)
        node_role, node_attach = role("node", "ec2.amazonaws.com", NODE_POLICIES)
        return cluster_role, cluster_attach, node_role, node_attach

    def _control_plane(
        self, name: str, plan: EksClusterPlan, private: list[Any], role: Any, attached: list[Any]
    ) -> Any:
        import pulumi_aws.eks as eks

        cidrs = plan.inputs.get("public_access_cidrs")
        return eks.Cluster(
            f"{name}-cluster",
            name=name,
            role_arn=role.arn,
            version=plan.inputs.get("kubernetes_version"),
            vpc_config=eks.ClusterVpcConfigArgs(
                subnet_ids=[s.id for s in private],
                endpoint_private_access=True,
                endpoint_public_access=True,
                public_access_cidrs=_sequence(cidrs),
            ),
            access_config=eks.ClusterAccessConfigArgs(
                authentication_mode="API", bootstrap_cluster_creator_admin_permissions=True
            ),
            enabled_cluster_log_types=["audit", "authenticator"],
            # Zones appended later get subnets for node groups; the control plane keeps its own.
            opts=self.child_opts(
                depends_on=attached, ignore_changes=["vpcConfig.subnetIds"], protect=plan.protect
            ),
        )

    def _system_pool(self, name: str, plan: EksClusterPlan, cluster: Any) -> Any:
        import pulumi_aws.eks as eks

        sp = plan.system_pool
        return eks.NodeGroup(
            f"{name}-system",
            cluster_name=cluster.name,
            node_group_name=self.system_node_group_name,
            node_role_arn=self.node_role_arn,
            subnet_ids=self.private_subnet_ids,
            version=plan.inputs.get("kubernetes_version"),
            ami_type=SYSTEM_AMI,
            instance_types=[sp.machine_type],
            labels=plan.system_pool_labels,
            capacity_type="ON_DEMAND",
            disk_size=SYSTEM_DISK_GB,
            scaling_config=eks.NodeGroupScalingConfigArgs(
                desired_size=sp.min_nodes, min_size=sp.min_nodes, max_size=sp.max_nodes
            ),
            update_config=eks.NodeGroupUpdateConfigArgs(max_unavailable=1),
            opts=self.child_opts(ignore_changes=["scalingConfig.desiredSize"], protect=plan.protect),
        )

    def _kubeconfig(self, cluster: Any, region: str | None) -> pulumi.Output[str]:
        def render(a: list[Any]) -> str:
            args = ["eks", "get-token", "--cluster-name", a[0], *(["--region", region] if region else [])]
            hint = "Install the AWS CLI v2: https://docs.aws.amazon.com/cli/"
            return exec_kubeconfig(a[0], a[1], a[2], {"command": "aws", "args": args, "installHint": hint})

        parts = pulumi.Output.all(cluster.name, cluster.endpoint, cluster.certificate_authority.data)
        return pulumi.Output.secret(parts.apply(render))

    def _create(self, name: str, plan: EksClusterPlan) -> dict[str, Any]:
        PROFILE.sdk(self)  # one line naming the extra when the SDK is missing
        import pulumi_aws.iam as iam

        zones = self._zones(plan)
        self.availability_zones = zones
        vpc, igw = self._vpc(name, plan)
        private = self._subnets(name, plan, zones, vpc, igw)
        cluster_role, cluster_attach, node_role, node_attach = self._roles(name)
        self.cluster = self._control_plane(name, plan, private, cluster_role, cluster_attach)
        oidc = iam.OpenIdConnectProvider(
            f"{name}-oidc",
            url=self.cluster.identities.apply(lambda ids: ids[0].oidcs[0].issuer),
            client_id_lists=["sts.amazonaws.com"],
            opts=self.child_opts(),
        )
        self.node_role_arn = pulumi.Output.all(node_role.arn, *[a.id for a in node_attach]).apply(
            lambda v: v[0]
        )
        self.private_subnet_ids = [s.id for s in private]
        self.private_subnet_ids_by_zone = dict(zip(zones, self.private_subnet_ids, strict=True))
        # A plain value known at plan time (not an output): EKS labels the system nodes
        # ``eks.amazonaws.com/nodegroup=<name>``, where the platform's controllers are placed.
        self.system_node_group_name: str = plan.system_pool_name(SYSTEM_AMI, SYSTEM_DISK_GB)
        self.system_pool = self._system_pool(name, plan, self.cluster)
        self.vpc_id = vpc.id
        self.cluster_name = self.cluster.name
        self.cluster_security_group_id = self.cluster.vpc_config.cluster_security_group_id
        if plan.inputs.get("karpenter_discovery"):
            self._karpenter_discovery_tag(name)
        self.oidc_provider_arn = oidc.arn
        self.kubeconfig = self._kubeconfig(self.cluster, plan.region)
        self.kubernetes_provider = cluster_provider(
            f"{name}-k8s", self.kubeconfig, self.child_opts(depends_on=[self.system_pool])
        )
        return self._outputs()

    def _vpc(self, name: str, plan: EksClusterPlan) -> tuple[Any, Any]:
        """The VPC and its internet gateway, kept apart so ``_create`` fits a screen."""
        import pulumi_aws.ec2 as ec2

        vpc = ec2.Vpc(
            f"{name}-vpc",
            cidr_block=plan.vpc_cidr,
            enable_dns_hostnames=True,
            enable_dns_support=True,
            tags={"Name": name},
            opts=self.child_opts(protect=plan.protect),
        )
        igw = ec2.InternetGateway(f"{name}-igw", vpc_id=vpc.id, opts=self.child_opts(protect=plan.protect))
        return vpc, igw

    def _karpenter_discovery_tag(self, name: str) -> None:
        """Tag the cluster security group for Karpenter discovery, kept apart so ``_create`` fits a screen."""
        import pulumi_aws.ec2 as ec2

        # EKS creates this security group, so its tags are not ours to set wholesale: one tag resource.
        ec2.Tag(
            f"{name}-karpenter-discovery",
            resource_id=self.cluster_security_group_id,
            key=DISCOVERY_TAG,
            value=self.cluster.name,
            opts=self.child_opts(),
        )

    def _outputs(self) -> dict[str, Any]:
        """The component's registered outputs, in their fixed order, kept apart so ``_create`` fits a screen."""
        return {
            "cluster_name": self.cluster_name,
            "kubeconfig": self.kubeconfig,
            "kubernetes_provider": self.kubernetes_provider,
            "node_role_arn": self.node_role_arn,
            "cluster_security_group_id": self.cluster_security_group_id,
            "oidc_provider_arn": self.oidc_provider_arn,
        }
