"""EKS cluster for GPU pools: a VPC with private node subnets behind NAT, IAM roles with only the
policies EKS needs, an OIDC provider for IRSA and a small untainted system node group."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Sequence
from typing import NotRequired, TypedDict

import pulumi
from pulumi import Input

from gpu_platform.clusters import SystemPoolArgs, exec_kubeconfig, system_pool_settings
from gpu_platform.config.errors import ConfigError

AWS_POLICY = "arn:aws:iam::aws:policy/"
CLUSTER_POLICIES = ("AmazonEKSClusterPolicy",)
NODE_POLICIES = ("AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryReadOnly", "AmazonEKS_CNI_Policy")
"""Exactly what EKS nodes need to join, pull images and run the VPC CNI; workloads use IRSA."""
MAX_ZONES = 3
"""Zones used when none are given."""


def _assume_role(service: str) -> str:
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}],
        }
    )


class EksClusterArgs(TypedDict):
    kubernetes_version: NotRequired[Input[str]]
    """Control-plane version; default: EKS's default."""
    region: NotRequired[str]
    """Passed to ``aws eks get-token`` in the kubeconfig; default: the caller's AWS configuration."""
    vpc_cidr: NotRequired[str]
    """Default ``10.0.0.0/16``: one private /19 per zone for nodes, one public /22 per zone for NAT and
    load balancers."""
    availability_zones: NotRequired[Sequence[str]]
    """Default: the region's first available zones (up to three)."""
    public_access_cidrs: NotRequired[Sequence[str]]
    """CIDRs allowed to reach the public API endpoint; default: any (authenticated) client."""
    system_pool: NotRequired[SystemPoolArgs]


def split_vpc(cidr: str, zones: int) -> tuple[list[str], list[str]]:
    """Private /19-per-zone from the bottom of a /16, public /22-per-zone from the top: never overlapping."""
    net = ipaddress.ip_network(cidr)
    if net.prefixlen > 16:
        raise ConfigError([("vpc_cidr", f"needs a /16 or larger network (got {cidr})")])
    private = [str(s) for s in list(net.subnets(prefixlen_diff=3))[:zones]]
    public = [str(s) for s in list(net.subnets(prefixlen_diff=6))[-zones:]]
    return private, public


class EksCluster(pulumi.ComponentResource):
    """An EKS cluster ready for ``EksGpuNodePool``.

    Nodes run in private subnets (egress through one NAT gateway; add more for zone-redundant egress).
    The API endpoint is private and public (narrow it with ``public_access_cidrs``); access entries
    (``authentication_mode=API``) give the creator cluster admin. ``node_role_arn`` resolves only once its
    policies are attached, so node groups built from it never start without them.
    """

    cluster_name: pulumi.Output[str]
    kubeconfig: pulumi.Output[str]
    """Secret; authenticates with ``aws eks get-token``."""
    node_role_arn: pulumi.Output[str]
    private_subnet_ids: list[pulumi.Output[str]]
    cluster_security_group_id: pulumi.Output[str]
    """EKS's cluster security group: members reach each other and the control plane (EFA needs that)."""
    oidc_provider_arn: pulumi.Output[str]
    """For IRSA trust policies."""

    def __init__(self, name: str, args: EksClusterArgs, opts: pulumi.ResourceOptions | None = None):
        machine, low, high = system_pool_settings("eks", args.get("system_pool"))
        zones = list(args.get("availability_zones") or [])
        if zones and not 2 <= len(zones) <= 7:
            raise ConfigError(
                [("availability_zones", f"EKS needs two to seven zones here (got {len(zones)})")]
            )
        vpc_cidr = args.get("vpc_cidr", "10.0.0.0/16")
        split_vpc(vpc_cidr, 1)  # checks the CIDR before anything is registered
        super().__init__("gpu-platform:index:EksCluster", name, None, opts)
        import pulumi_aws as aws
        import pulumi_aws.ec2 as ec2
        import pulumi_aws.eks as eks
        import pulumi_aws.iam as iam
        import pulumi_kubernetes as k8s

        child = pulumi.ResourceOptions(parent=self)
        if not zones:
            names = aws.get_availability_zones(
                state="available", opts=pulumi.InvokeOptions(parent=self)
            ).names
            zones = list(names)[:MAX_ZONES]
        private_cidrs, public_cidrs = split_vpc(vpc_cidr, len(zones))
        self.availability_zones = zones

        vpc = ec2.Vpc(
            f"{name}-vpc",
            cidr_block=vpc_cidr,
            enable_dns_hostnames=True,
            enable_dns_support=True,
            tags={"Name": name},
            opts=child,
        )
        igw = ec2.InternetGateway(f"{name}-igw", vpc_id=vpc.id, opts=child)
        public_rt = ec2.RouteTable(
            f"{name}-public",
            vpc_id=vpc.id,
            routes=[ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", gateway_id=igw.id)],
            opts=child,
        )
        public, private = [], []
        for i, zone in enumerate(zones):
            pub = ec2.Subnet(
                f"{name}-public-{i}",
                vpc_id=vpc.id,
                availability_zone=zone,
                cidr_block=public_cidrs[i],
                map_public_ip_on_launch=False,
                tags={"Name": f"{name}-public-{zone}", "kubernetes.io/role/elb": "1"},
                opts=child,
            )
            ec2.RouteTableAssociation(
                f"{name}-public-{i}", subnet_id=pub.id, route_table_id=public_rt.id, opts=child
            )
            public.append(pub)
        eip = ec2.Eip(f"{name}-nat", domain="vpc", opts=child)
        nat = ec2.NatGateway(
            f"{name}-nat",
            allocation_id=eip.id,
            subnet_id=public[0].id,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[igw]),
        )
        private_rt = ec2.RouteTable(
            f"{name}-private",
            vpc_id=vpc.id,
            routes=[ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", nat_gateway_id=nat.id)],
            opts=child,
        )
        for i, zone in enumerate(zones):
            sub = ec2.Subnet(
                f"{name}-private-{i}",
                vpc_id=vpc.id,
                availability_zone=zone,
                cidr_block=private_cidrs[i],
                tags={"Name": f"{name}-private-{zone}", "kubernetes.io/role/internal-elb": "1"},
                opts=child,
            )
            ec2.RouteTableAssociation(
                f"{name}-private-{i}", subnet_id=sub.id, route_table_id=private_rt.id, opts=child
            )
            private.append(sub)

        cluster_role = iam.Role(
            f"{name}-cluster-role", assume_role_policy=_assume_role("eks.amazonaws.com"), opts=child
        )
        cluster_attach = [
            iam.RolePolicyAttachment(
                f"{name}-cluster-{p}", role=cluster_role.name, policy_arn=AWS_POLICY + p, opts=child
            )
            for p in CLUSTER_POLICIES
        ]
        node_role = iam.Role(
            f"{name}-node-role", assume_role_policy=_assume_role("ec2.amazonaws.com"), opts=child
        )
        node_attach = [
            iam.RolePolicyAttachment(
                f"{name}-node-{p}", role=node_role.name, policy_arn=AWS_POLICY + p, opts=child
            )
            for p in NODE_POLICIES
        ]

        cluster = eks.Cluster(
            f"{name}-cluster",
            name=name,
            role_arn=cluster_role.arn,
            version=args.get("kubernetes_version"),
            vpc_config=eks.ClusterVpcConfigArgs(
                subnet_ids=[s.id for s in private],
                endpoint_private_access=True,
                endpoint_public_access=True,
                public_access_cidrs=list(args["public_access_cidrs"])
                if args.get("public_access_cidrs")
                else None,
            ),
            access_config=eks.ClusterAccessConfigArgs(
                authentication_mode="API", bootstrap_cluster_creator_admin_permissions=True
            ),
            enabled_cluster_log_types=["audit", "authenticator"],
            opts=pulumi.ResourceOptions(parent=self, depends_on=cluster_attach),
        )
        oidc = iam.OpenIdConnectProvider(
            f"{name}-oidc",
            url=cluster.identities.apply(lambda ids: ids[0].oidcs[0].issuer),
            client_id_lists=["sts.amazonaws.com"],
            opts=child,
        )
        self.node_role_arn = pulumi.Output.all(node_role.arn, *[a.id for a in node_attach]).apply(
            lambda v: v[0]
        )
        self.private_subnet_ids = [s.id for s in private]
        self.private_subnet_ids_by_zone = dict(zip(zones, self.private_subnet_ids, strict=True))
        system = eks.NodeGroup(
            f"{name}-system",
            cluster_name=cluster.name,
            node_group_name="system",
            node_role_arn=self.node_role_arn,
            subnet_ids=self.private_subnet_ids,
            version=args.get("kubernetes_version"),
            ami_type="AL2023_x86_64_STANDARD",
            instance_types=[machine],
            capacity_type="ON_DEMAND",
            disk_size=50,
            scaling_config=eks.NodeGroupScalingConfigArgs(desired_size=low, min_size=low, max_size=high),
            update_config=eks.NodeGroupUpdateConfigArgs(max_unavailable=1),
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=["scalingConfig.desiredSize"]),
        )

        self.cluster = cluster
        self.system_pool = system
        self.vpc_id = vpc.id
        self.cluster_name = cluster.name
        self.cluster_security_group_id = cluster.vpc_config.cluster_security_group_id
        self.oidc_provider_arn = oidc.arn
        region = args.get("region")
        self.kubeconfig = pulumi.Output.secret(
            pulumi.Output.all(cluster.name, cluster.endpoint, cluster.certificate_authority.data).apply(
                lambda a: exec_kubeconfig(
                    a[0],
                    a[1],
                    a[2],
                    {
                        "command": "aws",
                        "args": [
                            "eks",
                            "get-token",
                            "--cluster-name",
                            a[0],
                            *(["--region", region] if region else []),
                        ],
                        "installHint": "Install the AWS CLI v2: https://docs.aws.amazon.com/cli/",
                    },
                )
            )
        )
        self.k8s_provider = k8s.Provider(
            f"{name}-k8s",
            kubeconfig=self.kubeconfig,
            enable_server_side_apply=True,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[system]),
        )
        self.register_outputs(
            {
                "cluster_name": self.cluster_name,
                "kubeconfig": self.kubeconfig,
                "node_role_arn": self.node_role_arn,
                "cluster_security_group_id": self.cluster_security_group_id,
                "oidc_provider_arn": self.oidc_provider_arn,
            }
        )
