"""AKS in the stack: a cluster (or an attachment to one) and its tainted GPU agent pools."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform.addons.observability.wiring import managed_metrics
from gpu_platform.cloud_facts.aks.profile import PROFILE
from gpu_platform.clouds.aks.cluster_plan import aks_cluster_plan
from gpu_platform.clouds.aks.node_pool_plan import aks_node_pool_plan
from gpu_platform.clouds.infrastructure import Infrastructure, kubeconfig_provider, planned_pools

if TYPE_CHECKING:
    from gpu_platform.addons.platform_spec import PlatformSpec


def deploy(spec: PlatformSpec, opts: pulumi.ResourceOptions | None) -> Infrastructure:
    """An AKS cluster (or an attachment to one) and its GPU agent pools."""
    PROFILE.sdk("gpu-platform:cloud: aks")  # the extra this cloud needs, named in one line
    from gpu_platform.clouds.aks.cluster import AksCluster
    from gpu_platform.clouds.aks.node_pool import AksGpuNodePool

    c = spec.cluster
    version: dict[str, Any] = {"kubernetes_version": c.kubernetes_version} if c.kubernetes_version else {}
    if not c.create:
        provider, kubeconfig = kubeconfig_provider(spec, opts)
        attached = {"resource_group_name": c.resource_group, "cluster_name": c.name, **version}
        pools = planned_pools(spec, AksGpuNodePool, aks_node_pool_plan, attached, opts)
        return Infrastructure(provider, kubeconfig, c.name, pools)
    assert c.system_pool is not None
    os_sku = spec.pools[0].image or PROFILE.default_image
    settings: dict[str, Any] = {
        "vnet_cidr": c.vpc_cidr,
        "os_sku": os_sku,
        "protect": not c.disposable,
        **version,
    }
    for key, value in (("location", c.region), ("resource_group_name", c.resource_group)):
        if value:
            settings[key] = value
    if any(pool.chain for pool in spec.pools):
        settings["node_auto_provisioning"] = True
    groups = sorted(
        {p.reservation for p in spec.pools if p.primary.source == "reservation" and p.reservation}
    )
    if groups:  # AKS uses a reservation group only through a user-assigned identity with rights on it
        settings["capacity_reservation_group_ids"] = groups
    if managed_metrics(spec):  # Azure Monitor managed Prometheus: the cluster runs its metrics add-on
        settings["azure_monitor_metrics"] = True
    cluster = AksCluster.from_plan(c.name, aks_cluster_plan(c.name, c.system_pool, settings), opts)
    inputs: dict[str, Any] = {
        "resource_group_name": cluster.resource_group_name,
        "cluster_name": cluster.cluster_name,
        "vnet_subnet_id": cluster.node_subnet_id,
        **version,
    }
    pools = planned_pools(spec, AksGpuNodePool, aks_node_pool_plan, inputs, opts, lambda pool: not pool.chain)
    pools.update(_nap_pools(spec, cluster, opts))
    return Infrastructure(
        cluster.kubernetes_provider, cluster.kubeconfig, cluster.cluster_name, pools, cluster
    )


def metrics_cluster(spec: PlatformSpec, infra: Infrastructure) -> dict[str, Any]:
    """The cluster the data collection rule is associated with and the rule groups are scoped to
    (``ManagedPrometheusCluster``): the one the stack created, or the attached one, looked up."""
    import pulumi_azure_native.containerservice as aks

    c = spec.cluster
    if infra.cluster is not None:
        managed: Any = infra.cluster.cluster  # type: ignore[attr-defined]
        group: Any = infra.cluster.resource_group_name  # type: ignore[attr-defined]
    else:
        managed = aks.get_managed_cluster_output(resource_group_name=c.resource_group, resource_name=c.name)
        group = c.resource_group
    return {
        "name": infra.cluster_name,
        "region": managed.location,
        "resource_id": managed.id,
        "resource_group_name": group,
    }


def metrics_reader(
    spec: PlatformSpec,
    infra: Infrastructure,
    grant: Any,
    workspace: Any,
    opts: pulumi.ResourceOptions | None,
) -> dict[str, Any]:
    """The managed identity KEDA's operator reads the Azure Monitor workspace as, in the cluster's resource group
    and location, federated with its OIDC issuer: read from the cluster the stack created, looked up on an
    attached one (``clouds.aks.metrics_reader``)."""
    import pulumi_azure_native.containerservice as aks

    from gpu_platform.clouds.aks.metrics_reader import create_metrics_reader

    c = spec.cluster
    if infra.cluster is not None:
        managed: Any = infra.cluster.cluster  # type: ignore[attr-defined]
        group: Any = infra.cluster.resource_group_name  # type: ignore[attr-defined]
        issuer: Any = infra.cluster.oidc_issuer_url  # type: ignore[attr-defined]
    else:
        managed = aks.get_managed_cluster_output(resource_group_name=c.resource_group, resource_name=c.name)
        group = c.resource_group
        issuer = managed.oidc_issuer_profile.apply(lambda p: p.issuer_url if p else None)
    return create_metrics_reader(
        c.name, grant, workspace, resource_group=group, location=managed.location, issuer=issuer, opts=opts
    )


def _nap_pools(spec: PlatformSpec, cluster: Any, opts: pulumi.ResourceOptions | None) -> dict[str, Any]:
    """A NAP ``NodePool`` + ``AKSNodeClass`` for each pool with a fallback chain (Karpenter capacity types),
    on the cluster that runs NAP (``node_auto_provisioning``)."""
    from gpu_platform.clouds.aks.nap_node_pool import AksNapGpuNodePool
    from gpu_platform.clouds.aks.nap_plan import aks_nap_pool_plan
    from gpu_platform.resolve.disruption import Disruption

    on_cluster = pulumi.ResourceOptions.merge(
        opts, pulumi.ResourceOptions(provider=cluster.kubernetes_provider, depends_on=[cluster])
    )
    inputs = {"vnet_subnet_id": cluster.node_subnet_id}
    return {
        pool.name: AksNapGpuNodePool.from_plan(
            pool.name, aks_nap_pool_plan(pool, spec.driver, inputs, Disruption()), on_cluster
        )
        for pool in spec.pools
        if pool.chain
    }


def cloud_addons(spec: PlatformSpec, infra: Infrastructure, opts: pulumi.ResourceOptions) -> dict[str, Any]:
    """Azure Container Storage when a pool sets ``local_ssds``; the NVIDIA Network Operator when a pool sets
    ``infiniband``, after the pools (its NicClusterPolicy selects their nodes by label). Returns the stack
    outputs."""
    from gpu_platform.clouds.aks.infiniband_plan import network_operator_plan
    from gpu_platform.clouds.aks.network_operator import NetworkOperator
    from gpu_platform.releases import NETWORK_OPERATOR

    _container_storage(spec, infra, opts)
    plan = network_operator_plan(spec.pools, mirror=spec.mirror)
    if not plan.pools:
        return {}
    after = pulumi.ResourceOptions.merge(
        opts, pulumi.ResourceOptions(depends_on=list(infra.node_pools.values()))
    )
    operator = NetworkOperator.from_plan(NETWORK_OPERATOR.component_name, plan, after)
    return {"networkOperatorStatus": operator.status}


def _container_storage(spec: PlatformSpec, infra: Infrastructure, opts: pulumi.ResourceOptions) -> None:
    """The Azure Container Storage extension and its ``local`` StorageClass, once for every ``local_ssds`` pool
    (``clouds.aks.local_nvme_plan``); nothing when no pool asks."""
    from gpu_platform.clouds.aks import local_nvme_plan as plan

    if not plan.local_nvme_pools(spec.pools):
        return
    import pulumi_azure_native.kubernetesconfiguration as k8s_config
    import pulumi_kubernetes as k8s

    group: Any = (
        infra.cluster.resource_group_name  # type: ignore[attr-defined]
        if infra.cluster is not None
        else spec.cluster.resource_group
    )
    extension = k8s_config.Extension(
        "azure-container-storage",
        **plan.extension_args(infra.cluster_name, group),
        opts=pulumi.ResourceOptions(parent=opts.parent, depends_on=list(infra.node_pools.values())),
    )
    k8s.storage.v1.StorageClass(
        "azure-container-storage-local",
        **plan.storage_class(),
        opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[extension])),
    )
