"""``AksCluster``: its own VNet (Azure CNI overlay), Entra ID auth without local accounts, workload
identity with the OIDC issuer, and a small untainted system pool."""

import base64
from typing import Any

import pulumi
from pulumi_kubernetes.provider import Provider as KubernetesProvider

from gpu_platform.cloud_facts.aks.profile import PROFILE
from gpu_platform.clouds.aks.args import AksClusterArgs
from gpu_platform.clouds.aks.checks import cluster_args
from gpu_platform.clouds.aks.cluster_plan import AksClusterPlan, aks_cluster_plan, ksm_labels_allowlist
from gpu_platform.clouds.cluster_inputs import sequence as _sequence
from gpu_platform.clouds.cluster_provider import OldProviderName, cluster_provider
from gpu_platform.component import PlannedComponent

POD_CIDR = "192.168.0.0/16"
SERVICE_CIDR = "172.16.0.0/16"
DNS_SERVICE_IP = "172.16.0.10"
CONTRIBUTOR_ROLE = "b24988ac-6181-42a0-ab88-20f7382dd24c"
"""Azure's built-in Contributor role definition ID ("Azure built-in roles")."""


def _decode_kubeconfig(result: Any) -> str:
    return base64.b64decode(result.kubeconfigs[0].value).decode()


class AksCluster(OldProviderName, PlannedComponent[AksClusterPlan]):
    """An AKS cluster ready for ``AksGpuNodePool``.

    Authentication is Entra ID with Azure RBAC and local accounts disabled, so the kubeconfig holds no
    static credential: it runs ``kubelogin`` (set ``AAD_LOGIN_METHOD=azurecli`` or ``workloadidentity``
    for non-interactive runs). Nodes get no public IPs.
    """

    _type_token = "gpu-platform:index:AksCluster"

    cluster_name: pulumi.Output[str]
    """Name of the AKS managed cluster."""
    resource_group_name: pulumi.Output[str]
    """Resource group of the cluster."""
    kubeconfig: pulumi.Output[str]
    """Secret; the cluster's user credentials in exec (kubelogin) format."""
    kubernetes_provider: KubernetesProvider
    """The Kubernetes provider of this cluster (a ``pulumi_kubernetes.Provider``), made from ``kubeconfig`` with
    server-side apply: pass it as ``opts.provider`` to the GPU Operator, Kueue, KServe and any Kubernetes resource
    of your own."""
    node_subnet_id: pulumi.Output[str]
    """Subnet for GPU agent pools."""

    def __init__(self, name: str, args: AksClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. An AKS cluster
        ready for ``AksGpuNodePool``."""
        self._start(name, aks_cluster_plan(name, *cluster_args(args)), opts)

    def _network(self, name: str, plan: AksClusterPlan, rg_name: Any) -> Any:
        import pulumi_azure_native.network as network

        vnet = network.VirtualNetwork(
            f"{name}-vnet",
            resource_group_name=rg_name,
            location=plan.inputs.get("location"),
            address_space=network.AddressSpaceArgs(address_prefixes=[plan.vnet_cidr]),
            opts=self.child_opts(protect=plan.protect),
        )
        return network.Subnet(
            f"{name}-nodes",
            resource_group_name=rg_name,
            virtual_network_name=vnet.name,
            subnet_name="nodes",
            address_prefix=plan.nodes_cidr,
            opts=self.child_opts(protect=plan.protect),
        )

    def _identity(self, name: str, plan: AksClusterPlan, rg_name: Any) -> Any:
        """System-assigned, unless the pools consume capacity reservation groups: then a user-assigned identity
        with Contributor on each group's resource group (``_roles``, which the cluster waits for), as Microsoft's
        "Use capacity reservation groups with AKS" requires."""
        import pulumi_azure_native.authorization as authorization
        import pulumi_azure_native.containerservice as aks
        import pulumi_azure_native.managedidentity as managedidentity

        self._roles: list[Any] = []
        if not plan.reservation_scopes:
            return aks.ManagedClusterIdentityArgs(type=aks.ResourceIdentityType.SYSTEM_ASSIGNED)
        identity = managedidentity.UserAssignedIdentity(
            f"{name}-identity",
            resource_group_name=rg_name,
            location=plan.inputs.get("location"),
            opts=self.child_opts(protect=plan.protect),
        )
        for scope in plan.reservation_scopes:
            subscription = scope.split("/")[2]
            self._roles.append(
                authorization.RoleAssignment(
                    f"{name}-crg-{scope.rsplit('/', 1)[-1].lower()}",
                    principal_id=identity.principal_id,
                    principal_type="ServicePrincipal",
                    role_definition_id=f"/subscriptions/{subscription}/providers/Microsoft.Authorization/"
                    f"roleDefinitions/{CONTRIBUTOR_ROLE}",
                    scope=scope,
                    opts=self.child_opts(),
                )
            )
        return aks.ManagedClusterIdentityArgs(
            type=aks.ResourceIdentityType.USER_ASSIGNED, user_assigned_identities=[identity.id]
        )

    def _cluster(self, name: str, plan: AksClusterPlan, rg_name: Any, subnet: Any) -> Any:
        import pulumi_azure_native.containerservice as aks

        inputs = plan.inputs
        identity = self._identity(name, plan, rg_name)
        authorized = None
        if inputs.get("authorized_ip_ranges"):
            authorized = aks.ManagedClusterAPIServerAccessProfileArgs(
                authorized_ip_ranges=_sequence(inputs["authorized_ip_ranges"])
            )
        return aks.ManagedCluster(
            f"{name}-cluster",
            resource_name_=name,
            resource_group_name=rg_name,
            location=inputs.get("location"),
            dns_prefix=name,
            kubernetes_version=inputs.get("kubernetes_version"),
            identity=identity,
            enable_rbac=True,
            disable_local_accounts=True,
            aad_profile=aks.ManagedClusterAADProfileArgs(
                managed=True,
                enable_azure_rbac=True,
                admin_group_object_ids=_sequence(inputs.get("admin_group_object_ids")),
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
            node_provisioning_profile=_node_provisioning(inputs),
            azure_monitor_profile=_azure_monitor(inputs),
            agent_pool_profiles=[_system_pool_profile(plan, subnet)],
            opts=self.child_opts(
                ignore_changes=["agentPoolProfiles[0].count"], protect=plan.protect, depends_on=self._roles
            ),
        )

    def _create(self, name: str, plan: AksClusterPlan) -> dict[str, Any]:
        PROFILE.sdk(self)  # one line naming the extra when the SDK is missing
        import pulumi_azure_native.containerservice as aks
        import pulumi_azure_native.resources as resources

        if plan.inputs.get("resource_group_name") is not None:
            rg_name = pulumi.Output.from_input(plan.inputs["resource_group_name"])
        else:
            rg_name = resources.ResourceGroup(
                f"{name}-rg", location=plan.inputs.get("location"), opts=self.child_opts(protect=plan.protect)
            ).name
        subnet = self._network(name, plan, rg_name)
        self.cluster = self._cluster(name, plan, rg_name, subnet)
        # The name is known up front, but only usable once the cluster exists (the credentials need it).
        self.cluster_name = self.cluster.id.apply(lambda _: name)
        creds = aks.list_managed_cluster_user_credentials_output(
            resource_group_name=rg_name,
            resource_name=self.cluster_name,
            format="exec",
            opts=pulumi.InvokeOutputOptions(parent=self),
        )
        self.resource_group_name = rg_name
        self.node_subnet_id = subnet.id
        self.oidc_issuer_url = self.cluster.oidc_issuer_profile.apply(lambda p: p.issuer_url if p else None)
        self.kubeconfig = pulumi.Output.secret(creds.apply(_decode_kubeconfig))
        self.kubernetes_provider = cluster_provider(f"{name}-k8s", self.kubeconfig, self.child_opts())
        return {
            "cluster_name": self.cluster_name,
            "resource_group_name": self.resource_group_name,
            "kubeconfig": self.kubeconfig,
            "kubernetes_provider": self.kubernetes_provider,
            "node_subnet_id": self.node_subnet_id,
        }


def _system_pool_profile(plan: AksClusterPlan, subnet: Any) -> Any:
    """The cluster's untainted system pool, autoscaled between the plan's bounds, in the node subnet."""
    import pulumi_azure_native.containerservice as aks

    sp = plan.system_pool
    return aks.ManagedClusterAgentPoolProfileArgs(
        name="system",
        mode="System",
        os_type="Linux",
        os_sku=plan.os_sku,
        vm_size=sp.machine_type,
        node_labels=plan.system_pool_labels,
        count=sp.min_nodes,
        enable_auto_scaling=True,
        min_count=sp.min_nodes,
        max_count=sp.max_nodes,
        vnet_subnet_id=subnet.id,
        enable_node_public_ip=False,
    )


def _node_provisioning(inputs: Any) -> Any:
    """NAP without its default NodePools (only the GPU pools' own NodePools launch nodes), or ``None``."""
    import pulumi_azure_native.containerservice as aks

    if not inputs.get("node_auto_provisioning"):
        return None
    return aks.ManagedClusterNodeProvisioningProfileArgs(mode="Auto", default_node_pools="None")


def _azure_monitor(inputs: Any) -> Any:
    """The managed Prometheus metrics add-on with kube-state-metrics' label allowlist, or ``None``."""
    import pulumi_azure_native.containerservice as aks

    if not inputs.get("azure_monitor_metrics"):
        return None
    ksm = aks.ManagedClusterAzureMonitorProfileKubeStateMetricsArgs(
        metric_labels_allowlist=ksm_labels_allowlist()
    )
    return aks.ManagedClusterAzureMonitorProfileArgs(
        metrics=aks.ManagedClusterAzureMonitorProfileMetricsArgs(enabled=True, kube_state_metrics=ksm)
    )
