"""``GkeCluster``: VPC-native GKE with private nodes behind Cloud NAT, Workload Identity, a
least-privilege node service account and a small untainted system pool."""

from typing import Any

import pulumi
from pulumi_kubernetes.provider import Provider as KubernetesProvider

from gpu_platform.cloud_facts.gke.profile import PROFILE
from gpu_platform.cloud_facts.gke.serving import PROXY_SUBNET_PURPOSE, PROXY_SUBNET_ROLE
from gpu_platform.clouds.cluster_inputs import each
from gpu_platform.clouds.cluster_provider import OldProviderName, cluster_provider
from gpu_platform.clouds.gke.args import GkeClusterArgs
from gpu_platform.clouds.gke.checks import cluster_args
from gpu_platform.clouds.gke.cluster_plan import GkeClusterPlan, gke_cluster_plan
from gpu_platform.clouds.kubeconfig import exec_kubeconfig
from gpu_platform.component import PlannedComponent

NODE_ROLES = ("roles/container.defaultNodeServiceAccount", "roles/artifactregistry.reader")
"""Google's minimal role for GKE node service accounts, plus pulling images from Artifact Registry."""
CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
PODS_RANGE = "pods"
SERVICES_RANGE = "services"
SYSTEM_DISK_GB = 100
GKE_AUTH_PLUGIN = {
    "command": "gke-gcloud-auth-plugin",
    "provideClusterInfo": True,
    "installHint": "Install gke-gcloud-auth-plugin: gcloud components install gke-gcloud-auth-plugin",
}


class GkeCluster(OldProviderName, PlannedComponent[GkeClusterPlan]):
    """A GKE cluster ready for ``GkeGpuNodePool``: secure defaults, no GPU in the system pool.

    The default node pool is removed; ``system`` (untainted, autoscaled) runs operators and ordinary pods.
    Nodes are private and reach registries through Cloud NAT; the control-plane endpoint stays public so
    Pulumi can reach it (narrow it with ``master_authorized_cidrs``).
    """

    _type_token = "gpu-platform:index:GkeCluster"

    cluster_name: pulumi.Output[str]
    """Name of the GKE cluster."""
    kubeconfig: pulumi.Output[str]
    """Secret; authenticates with ``gke-gcloud-auth-plugin``."""
    kubernetes_provider: KubernetesProvider
    """The Kubernetes provider of this cluster (a ``pulumi_kubernetes.Provider``), made from ``kubeconfig`` with
    server-side apply: pass it as ``opts.provider`` to the GPU Operator, Kueue, KServe and any Kubernetes resource
    of your own."""
    node_service_account_email: pulumi.Output[str]
    """Least-privilege service account for node pools."""

    def __init__(self, name: str, args: GkeClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. A GKE cluster ready
        for ``GkeGpuNodePool``: secure defaults, no GPU in the system pool."""
        self._start(name, gke_cluster_plan(name, *cluster_args(args)), opts)

    def _network(self, name: str, plan: GkeClusterPlan) -> tuple[Any, Any]:
        import pulumi_gcp.compute as compute

        network = compute.Network(
            f"{name}-network",
            project=self.project,
            auto_create_subnetworks=False,
            routing_mode="REGIONAL",
            opts=self.child_opts(protect=plan.protect),
        )
        ranges = [
            compute.SubnetworkSecondaryIpRangeArgs(range_name=PODS_RANGE, ip_cidr_range=plan.pods_cidr),
            compute.SubnetworkSecondaryIpRangeArgs(
                range_name=SERVICES_RANGE, ip_cidr_range=plan.services_cidr
            ),
        ]
        subnet = compute.Subnetwork(
            f"{name}-nodes",
            project=self.project,
            region=plan.region,
            network=network.id,
            ip_cidr_range=plan.nodes_cidr,
            private_ip_google_access=True,
            secondary_ip_ranges=ranges,
            opts=self.child_opts(protect=plan.protect),
        )
        if plan.proxy_subnet_cidr is not None:
            # The managed inference Gateway's regional load balancers run their proxies here.
            compute.Subnetwork(
                f"{name}-proxy-only",
                project=self.project,
                region=plan.region,
                network=network.id,
                ip_cidr_range=plan.proxy_subnet_cidr,
                purpose=PROXY_SUBNET_PURPOSE,
                role=PROXY_SUBNET_ROLE,
                opts=self.child_opts(protect=plan.protect),
            )
        router = compute.Router(
            f"{name}-router",
            project=self.project,
            region=plan.region,
            network=network.id,
            opts=self.child_opts(),
        )
        compute.RouterNat(
            f"{name}-nat",
            project=self.project,
            region=plan.region,
            router=router.name,
            nat_ip_allocate_option="AUTO_ONLY",
            source_subnetwork_ip_ranges_to_nat="ALL_SUBNETWORKS_ALL_IP_RANGES",
            opts=self.child_opts(),
        )
        return network, subnet

    def _node_account(self, name: str, plan: GkeClusterPlan) -> tuple[Any, list[Any]]:
        import pulumi_gcp.projects as projects
        import pulumi_gcp.serviceaccount as serviceaccount

        account = serviceaccount.Account(
            f"{name}-nodes-sa",
            project=self.project,
            account_id=f"{plan.name[:24].rstrip('-')}-nodes",
            display_name=f"GKE nodes of {plan.name}",
            opts=self.child_opts(),
        )
        grants = [
            projects.IAMMember(
                f"{name}-nodes-{role.split('/')[-1]}",
                project=self.project,
                role=role,
                member=account.member,
                opts=self.child_opts(),
            )
            for role in NODE_ROLES
        ]
        return account, grants

    def _cluster(self, name: str, plan: GkeClusterPlan, network: Any, subnet: Any) -> Any:
        import pulumi_gcp.container as container

        authorized = None
        cidrs = plan.inputs.get("master_authorized_cidrs")
        if cidrs:
            cidr_blocks = each(
                cidrs,
                lambda c: container.ClusterMasterAuthorizedNetworksConfigCidrBlockArgs(
                    cidr_block=c, display_name=c
                ),
            )
            authorized = container.ClusterMasterAuthorizedNetworksConfigArgs(cidr_blocks=cidr_blocks)
        return container.Cluster(
            f"{name}-cluster",
            name=plan.name,
            project=self.project,
            location=plan.location,
            network=network.id,
            subnetwork=subnet.id,
            networking_mode="VPC_NATIVE",
            ip_allocation_policy=container.ClusterIpAllocationPolicyArgs(
                cluster_secondary_range_name=PODS_RANGE, services_secondary_range_name=SERVICES_RANGE
            ),
            private_cluster_config=container.ClusterPrivateClusterConfigArgs(
                enable_private_nodes=True, enable_private_endpoint=False
            ),
            master_authorized_networks_config=authorized,
            workload_identity_config=container.ClusterWorkloadIdentityConfigArgs(
                workload_pool=self.project.apply(lambda p: f"{p}.svc.id.goog")
            ),
            release_channel=container.ClusterReleaseChannelArgs(channel=plan.release_channel),
            min_master_version=plan.inputs.get("kubernetes_version"),
            # Dataplane V2: NetworkPolicy enforcement, and what multi-networking (GPUDirect NICs) requires.
            datapath_provider="ADVANCED_DATAPATH",
            enable_multi_networking=True if plan.multi_networking else None,
            gateway_api_config=(
                container.ClusterGatewayApiConfigArgs(channel="CHANNEL_STANDARD")
                if plan.gateway_api
                else None
            ),
            enable_shielded_nodes=True,
            remove_default_node_pool=True,
            initial_node_count=1,
            deletion_protection=plan.deletion_protection,
            opts=self.child_opts(protect=plan.protect),
        )

    def _system_pool(
        self, name: str, plan: GkeClusterPlan, cluster: Any, account: Any, grants: list[Any]
    ) -> Any:
        import pulumi_gcp.container as container

        sp = plan.system_pool
        return container.NodePool(
            f"{name}-system",
            name=plan.system_pool_name("COS_CONTAINERD", SYSTEM_DISK_GB),
            project=self.project,
            cluster=cluster.name,
            location=plan.location,
            initial_node_count=1,
            autoscaling=container.NodePoolAutoscalingArgs(
                total_min_node_count=sp.min_nodes, total_max_node_count=sp.max_nodes
            ),
            management=container.NodePoolManagementArgs(auto_repair=True, auto_upgrade=True),
            node_config=container.NodePoolNodeConfigArgs(
                machine_type=sp.machine_type,
                labels=plan.system_pool_labels,
                image_type="COS_CONTAINERD",
                disk_size_gb=SYSTEM_DISK_GB,
                service_account=account.email,
                oauth_scopes=[CLOUD_PLATFORM_SCOPE],
                workload_metadata_config=container.NodePoolNodeConfigWorkloadMetadataConfigArgs(
                    mode="GKE_METADATA"
                ),
                shielded_instance_config=container.NodePoolNodeConfigShieldedInstanceConfigArgs(
                    enable_secure_boot=True, enable_integrity_monitoring=True
                ),
            ),
            opts=self.child_opts(
                ignore_changes=["initialNodeCount", "nodeCount"], depends_on=grants, protect=plan.protect
            ),
        )

    def _create(self, name: str, plan: GkeClusterPlan) -> dict[str, Any]:
        PROFILE.sdk(self)  # one line naming the extra when the SDK is missing
        import pulumi_gcp.organizations as organizations

        project = plan.inputs.get("project")
        self.project = (
            pulumi.Output.from_input(project)
            if project is not None
            else organizations.get_client_config_output(opts=pulumi.InvokeOptions(parent=self)).project
        )
        self.location = plan.location
        network, subnet = self._network(name, plan)
        account, grants = self._node_account(name, plan)
        self.cluster = self._cluster(name, plan, network, subnet)
        self.system_pool = self._system_pool(name, plan, self.cluster, account, grants)
        self.cluster_name = self.cluster.name
        self.node_service_account_email = account.email
        self.kubeconfig = pulumi.Output.secret(
            pulumi.Output.all(
                self.cluster.name, self.cluster.endpoint, self.cluster.master_auth.cluster_ca_certificate
            ).apply(lambda a: exec_kubeconfig(a[0], f"https://{a[1]}", a[2], GKE_AUTH_PLUGIN))
        )
        self.kubernetes_provider = cluster_provider(
            f"{name}-k8s", self.kubeconfig, self.child_opts(depends_on=[self.system_pool])
        )
        return {
            "cluster_name": self.cluster_name,
            "kubeconfig": self.kubeconfig,
            "kubernetes_provider": self.kubernetes_provider,
            "node_service_account_email": self.node_service_account_email,
        }
