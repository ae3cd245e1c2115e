"""AKS cluster for GPU pools: its own VNet (Azure CNI overlay), Entra ID auth without local accounts,
workload identity with the OIDC issuer, and a small untainted system pool."""

from __future__ import annotations

import base64
import ipaddress
from collections.abc import Sequence
from typing import NotRequired, TypedDict

import pulumi
from pulumi import Input

from gpu_platform.clusters import SystemPoolArgs, system_pool_settings
from gpu_platform.config.errors import ConfigError
from gpu_platform.driver import AKS_IMAGES

POD_CIDR = "192.168.0.0/16"
SERVICE_CIDR = "172.16.0.0/16"
DNS_SERVICE_IP = "172.16.0.10"


class AksClusterArgs(TypedDict):
    location: NotRequired[Input[str]]
    """Azure region; default: the resource group's / provider's location."""
    resource_group_name: NotRequired[Input[str]]
    """Existing resource group; default: create ``<name>-rg``."""
    kubernetes_version: NotRequired[Input[str]]
    vnet_cidr: NotRequired[str]
    """Default ``10.0.0.0/16``; nodes use its first /20 (pods use an overlay range)."""
    os_sku: NotRequired[str]
    """System pool OS, default ``Ubuntu``. Keep it the GPU pools' OS: the GPU Operator does not support
    mixed OS versions in one AKS cluster."""
    admin_group_object_ids: NotRequired[Sequence[str]]
    """Entra ID groups that get cluster-admin. Local accounts are disabled, so the deployer must be in
    one of them (or hold an Azure RBAC cluster role) for the Kubernetes provider to work."""
    authorized_ip_ranges: NotRequired[Sequence[str]]
    """CIDRs allowed to reach the API server; default: any (authenticated) client."""
    system_pool: NotRequired[SystemPoolArgs]


def _decode_kubeconfig(result: object) -> str:
    return base64.b64decode(result.kubeconfigs[0].value).decode()  # type: ignore[attr-defined]


class AksCluster(pulumi.ComponentResource):
    """An AKS cluster ready for ``AksGpuNodePool``.

    Authentication is Entra ID with Azure RBAC and local accounts disabled, so the kubeconfig holds no
    static credential: it runs ``kubelogin`` (set ``AAD_LOGIN_METHOD=azurecli`` or ``workloadidentity``
    for non-interactive runs). Nodes get no public IPs.
    """

    cluster_name: pulumi.Output[str]
    resource_group_name: pulumi.Output[str]
    kubeconfig: pulumi.Output[str]
    """Secret; from the cluster's user credentials in exec (kubelogin) format."""
    node_subnet_id: pulumi.Output[str]
    oidc_issuer_url: pulumi.Output[str]
    """For workload identity federated credentials."""

    def __init__(self, name: str, args: AksClusterArgs, opts: pulumi.ResourceOptions | None = None):
        machine, low, high = system_pool_settings("aks", args.get("system_pool"))
        os_sku = args.get("os_sku", "Ubuntu")
        if os_sku not in AKS_IMAGES:
            raise ConfigError([("os_sku", f"{os_sku!r} is not valid; valid: {', '.join(AKS_IMAGES)}")])
        cidr = ipaddress.ip_network(args.get("vnet_cidr", "10.0.0.0/16"))
        if cidr.prefixlen > 20:
            raise ConfigError([("vnet_cidr", f"needs a /20 or larger network (got {cidr})")])
        super().__init__("gpu-platform:index:AksCluster", name, None, opts)
        import pulumi_azure_native.containerservice as aks
        import pulumi_azure_native.network as network
        import pulumi_azure_native.resources as resources
        import pulumi_kubernetes as k8s

        child = pulumi.ResourceOptions(parent=self)
        location = args.get("location")
        if args.get("resource_group_name") is not None:
            rg_name = pulumi.Output.from_input(args["resource_group_name"])
        else:
            rg_name = resources.ResourceGroup(f"{name}-rg", location=location, opts=child).name
        vnet = network.VirtualNetwork(
            f"{name}-vnet",
            resource_group_name=rg_name,
            location=location,
            address_space=network.AddressSpaceArgs(address_prefixes=[str(cidr)]),
            opts=child,
        )
        subnet = network.Subnet(
            f"{name}-nodes",
            resource_group_name=rg_name,
            virtual_network_name=vnet.name,
            subnet_name="nodes",
            address_prefix=str(next(cidr.subnets(new_prefix=20))),
            opts=child,
        )
        authorized = None
        if args.get("authorized_ip_ranges"):
            authorized = aks.ManagedClusterAPIServerAccessProfileArgs(
                authorized_ip_ranges=list(args["authorized_ip_ranges"])
            )
        cluster = aks.ManagedCluster(
            f"{name}-cluster",
            resource_name_=name,
            resource_group_name=rg_name,
            location=location,
            dns_prefix=name,
            kubernetes_version=args.get("kubernetes_version"),
            identity=aks.ManagedClusterIdentityArgs(type="SystemAssigned"),
            enable_rbac=True,
            disable_local_accounts=True,
            aad_profile=aks.ManagedClusterAADProfileArgs(
                managed=True,
                enable_azure_rbac=True,
                admin_group_object_ids=list(args.get("admin_group_object_ids", [])) or None,
            ),
            oidc_issuer_profile=aks.ManagedClusterOIDCIssuerProfileArgs(enabled=True),
            security_profile=aks.ManagedClusterSecurityProfileArgs(
                workload_identity=aks.ManagedClusterSecurityProfileWorkloadIdentityArgs(enabled=True)
            ),
            network_profile=aks.ContainerServiceNetworkProfileArgs(
                network_plugin="azure",
                network_plugin_mode="overlay",
                pod_cidr=POD_CIDR,
                service_cidr=SERVICE_CIDR,
                dns_service_ip=DNS_SERVICE_IP,
                load_balancer_sku="standard",
            ),
            auto_upgrade_profile=aks.ManagedClusterAutoUpgradeProfileArgs(
                upgrade_channel="patch", node_os_upgrade_channel="NodeImage"
            ),
            api_server_access_profile=authorized,
            agent_pool_profiles=[
                aks.ManagedClusterAgentPoolProfileArgs(
                    name="system",
                    mode="System",
                    os_type="Linux",
                    os_sku=os_sku,
                    vm_size=machine,
                    count=low,
                    enable_auto_scaling=True,
                    min_count=low,
                    max_count=high,
                    vnet_subnet_id=subnet.id,
                    enable_node_public_ip=False,
                )
            ],
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=["agentPoolProfiles[0].count"]),
        )
        # The name known up front, but only once the cluster exists (the credentials need it).
        cluster_name = cluster.id.apply(lambda _: name)
        creds = aks.list_managed_cluster_user_credentials_output(
            resource_group_name=rg_name,
            resource_name=cluster_name,
            format="exec",
            opts=pulumi.InvokeOutputOptions(parent=self),
        )

        self.cluster = cluster
        self.cluster_name = cluster_name
        self.resource_group_name = rg_name
        self.node_subnet_id = subnet.id
        self.oidc_issuer_url = cluster.oidc_issuer_profile.apply(lambda p: p.issuer_url if p else None)
        self.kubeconfig = pulumi.Output.secret(creds.apply(_decode_kubeconfig))
        self.k8s_provider = k8s.Provider(
            f"{name}-k8s", kubeconfig=self.kubeconfig, enable_server_side_apply=True, opts=child
        )
        self.register_outputs(
            {
                "cluster_name": self.cluster_name,
                "resource_group_name": self.resource_group_name,
                "kubeconfig": self.kubeconfig,
                "node_subnet_id": self.node_subnet_id,
            }
        )
