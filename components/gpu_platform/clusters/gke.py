"""GKE cluster for GPU pools: VPC-native, private nodes behind Cloud NAT, Workload Identity, a
least-privilege node service account and a small untainted system pool."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from typing import NotRequired, TypedDict

import pulumi
from pulumi import Input

from gpu_platform.clusters import SystemPoolArgs, exec_kubeconfig, system_pool_settings
from gpu_platform.config.errors import ConfigError

NODE_ROLES = ("roles/container.defaultNodeServiceAccount", "roles/artifactregistry.reader")
"""Google's minimal role for GKE node service accounts, plus pulling images from Artifact Registry."""
CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
PODS_RANGE = "pods"
SERVICES_RANGE = "services"
GKE_AUTH_PLUGIN = {
    "command": "gke-gcloud-auth-plugin",
    "provideClusterInfo": True,
    "installHint": "Install gke-gcloud-auth-plugin: gcloud components install gke-gcloud-auth-plugin",
}


class GkeClusterArgs(TypedDict):
    location: str
    """Region (regional cluster, recommended) or zone."""
    project: NotRequired[Input[str]]
    """Default: the provider's project."""
    cluster_name: NotRequired[str]
    """Default: the component name."""
    kubernetes_version: NotRequired[Input[str]]
    """Minimum control-plane version; the release channel upgrades from there."""
    release_channel: NotRequired[str]
    """``RAPID``, ``REGULAR`` (default) or ``STABLE``."""
    network_cidr: NotRequired[str]
    """Default ``10.0.0.0/16``: nodes get the first /20, services the second, pods the upper half."""
    master_authorized_cidrs: NotRequired[Sequence[str]]
    """CIDRs allowed to reach the public control-plane endpoint; default: any (authenticated) client."""
    system_pool: NotRequired[SystemPoolArgs]
    deletion_protection: NotRequired[bool]
    """Default ``True`` (GKE's own default): set ``False`` before ``pulumi destroy``."""


def split_network(cidr: str) -> tuple[str, str, str]:
    """Nodes /20, services /20 and pods (upper half) inside one VPC CIDR, never overlapping."""
    net = ipaddress.ip_network(cidr)
    if net.prefixlen > 16:
        raise ConfigError([("network_cidr", f"needs a /16 or larger network (got {cidr})")])
    small = list(net.subnets(new_prefix=20))
    pods = list(net.subnets(prefixlen_diff=1))[1]
    return str(small[0]), str(small[1]), str(pods)


def region_of(location: str) -> str:
    """``us-central1-a`` -> ``us-central1``; a region stays as it is."""
    parts = location.split("-")
    return "-".join(parts[:2]) if len(parts) > 2 else location


class GkeCluster(pulumi.ComponentResource):
    """A GKE cluster ready for ``GkeGpuNodePool``: secure defaults, no GPU in the system pool.

    The default node pool is removed; ``system`` (untainted, autoscaled) runs operators and ordinary pods.
    Nodes are private (no external IPs) and reach registries through Cloud NAT; the control-plane
    endpoint stays public so Pulumi can reach it (narrow it with ``master_authorized_cidrs``).
    """

    cluster_name: pulumi.Output[str]
    kubeconfig: pulumi.Output[str]
    """Secret; authenticates with ``gke-gcloud-auth-plugin``."""
    node_service_account_email: pulumi.Output[str]
    location: str

    def __init__(self, name: str, args: GkeClusterArgs, opts: pulumi.ResourceOptions | None = None):
        machine, low, high = system_pool_settings("gke", args.get("system_pool"))
        nodes_cidr, services_cidr, pods_cidr = split_network(args.get("network_cidr", "10.0.0.0/16"))
        channel = args.get("release_channel", "REGULAR")
        if channel not in ("RAPID", "REGULAR", "STABLE"):
            raise ConfigError(
                [("release_channel", f"{channel!r} is not valid; valid: RAPID, REGULAR, STABLE")]
            )
        super().__init__("gpu-platform:index:GkeCluster", name, None, opts)
        import pulumi_gcp.compute as gcp_compute
        import pulumi_gcp.container as gcp_container
        import pulumi_gcp.organizations as gcp_org
        import pulumi_gcp.projects as gcp_projects
        import pulumi_gcp.serviceaccount as gcp_sa
        import pulumi_kubernetes as k8s

        child = pulumi.ResourceOptions(parent=self)
        cluster_name = args.get("cluster_name", name)
        location = args["location"]
        region = region_of(location)
        project = (
            pulumi.Output.from_input(args["project"])
            if args.get("project") is not None
            else gcp_org.get_client_config_output(opts=pulumi.InvokeOptions(parent=self)).project
        )
        self.location = location

        network = gcp_compute.Network(
            f"{name}-network",
            project=project,
            auto_create_subnetworks=False,
            routing_mode="REGIONAL",
            opts=child,
        )
        subnet = gcp_compute.Subnetwork(
            f"{name}-nodes",
            project=project,
            region=region,
            network=network.id,
            ip_cidr_range=nodes_cidr,
            private_ip_google_access=True,
            secondary_ip_ranges=[
                gcp_compute.SubnetworkSecondaryIpRangeArgs(range_name=PODS_RANGE, ip_cidr_range=pods_cidr),
                gcp_compute.SubnetworkSecondaryIpRangeArgs(
                    range_name=SERVICES_RANGE, ip_cidr_range=services_cidr
                ),
            ],
            opts=child,
        )
        router = gcp_compute.Router(
            f"{name}-router", project=project, region=region, network=network.id, opts=child
        )
        gcp_compute.RouterNat(
            f"{name}-nat",
            project=project,
            region=region,
            router=router.name,
            nat_ip_allocate_option="AUTO_ONLY",
            source_subnetwork_ip_ranges_to_nat="ALL_SUBNETWORKS_ALL_IP_RANGES",
            opts=child,
        )

        account_id = f"{cluster_name[:24].rstrip('-')}-nodes"
        node_sa = gcp_sa.Account(
            f"{name}-nodes-sa",
            project=project,
            account_id=account_id,
            display_name=f"GKE nodes of {cluster_name}",
            opts=child,
        )
        grants = [
            gcp_projects.IAMMember(
                f"{name}-nodes-{role.split('/')[-1]}",
                project=project,
                role=role,
                member=node_sa.member,
                opts=child,
            )
            for role in NODE_ROLES
        ]

        authorized = None
        if args.get("master_authorized_cidrs"):
            authorized = gcp_container.ClusterMasterAuthorizedNetworksConfigArgs(
                cidr_blocks=[
                    gcp_container.ClusterMasterAuthorizedNetworksConfigCidrBlockArgs(
                        cidr_block=c, display_name=c
                    )
                    for c in args["master_authorized_cidrs"]
                ]
            )
        cluster = gcp_container.Cluster(
            f"{name}-cluster",
            name=cluster_name,
            project=project,
            location=location,
            network=network.id,
            subnetwork=subnet.id,
            networking_mode="VPC_NATIVE",
            ip_allocation_policy=gcp_container.ClusterIpAllocationPolicyArgs(
                cluster_secondary_range_name=PODS_RANGE, services_secondary_range_name=SERVICES_RANGE
            ),
            private_cluster_config=gcp_container.ClusterPrivateClusterConfigArgs(
                enable_private_nodes=True, enable_private_endpoint=False
            ),
            master_authorized_networks_config=authorized,
            workload_identity_config=gcp_container.ClusterWorkloadIdentityConfigArgs(
                workload_pool=project.apply(lambda p: f"{p}.svc.id.goog")
            ),
            release_channel=gcp_container.ClusterReleaseChannelArgs(channel=channel),
            min_master_version=args.get("kubernetes_version"),
            datapath_provider="ADVANCED_DATAPATH",
            enable_shielded_nodes=True,
            remove_default_node_pool=True,
            initial_node_count=1,
            deletion_protection=args.get("deletion_protection", True),
            opts=child,
        )
        system = gcp_container.NodePool(
            f"{name}-system",
            name="system",
            project=project,
            cluster=cluster.name,
            location=location,
            initial_node_count=1,
            autoscaling=gcp_container.NodePoolAutoscalingArgs(
                total_min_node_count=low, total_max_node_count=high
            ),
            management=gcp_container.NodePoolManagementArgs(auto_repair=True, auto_upgrade=True),
            node_config=gcp_container.NodePoolNodeConfigArgs(
                machine_type=machine,
                image_type="COS_CONTAINERD",
                disk_size_gb=100,
                service_account=node_sa.email,
                oauth_scopes=[CLOUD_PLATFORM_SCOPE],
                workload_metadata_config=gcp_container.NodePoolNodeConfigWorkloadMetadataConfigArgs(
                    mode="GKE_METADATA"
                ),
                shielded_instance_config=gcp_container.NodePoolNodeConfigShieldedInstanceConfigArgs(
                    enable_secure_boot=True, enable_integrity_monitoring=True
                ),
            ),
            opts=pulumi.ResourceOptions(
                parent=self, ignore_changes=["initialNodeCount", "nodeCount"], depends_on=grants
            ),
        )

        self.cluster = cluster
        self.system_pool = system
        self.project = project
        self.cluster_name = cluster.name
        self.node_service_account_email = node_sa.email
        self.kubeconfig = pulumi.Output.secret(
            pulumi.Output.all(
                cluster.name, cluster.endpoint, cluster.master_auth.cluster_ca_certificate
            ).apply(lambda a: exec_kubeconfig(a[0], f"https://{a[1]}", a[2], GKE_AUTH_PLUGIN))
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
                "node_service_account_email": self.node_service_account_email,
            }
        )
