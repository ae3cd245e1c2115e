"""Per-cloud infrastructure from the spec: a cluster (or an attachment to one) and its tainted GPU pools.

Each cloud's function builds the component plans straight from the resolved ``PlatformSpec`` (no
argument dicts) and imports its cloud SDK only when called.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform.args.autoscaling import EksAutoscaler
from gpu_platform.plans import clusters as cluster_plans
from gpu_platform.plans import nodepools as pool_plans
from gpu_platform.sdk import require

if TYPE_CHECKING:
    from gpu_platform.stack.spec import PlatformSpec

DEFAULT_EKS_ZONES = 3


@dataclass
class Infrastructure:
    k8s_provider: pulumi.ProviderResource
    """Kubernetes provider for the cluster; every add-on is created through it."""
    kubeconfig: pulumi.Output[str]
    """Secret."""
    cluster_name: pulumi.Output[str] | str
    node_pools: dict[str, pulumi.Resource] = field(default_factory=dict)
    """GPU pool components by pool name (empty for existing clusters)."""
    cluster: pulumi.Resource | None = None


def _kubeconfig_provider(
    spec: PlatformSpec, opts: pulumi.ResourceOptions | None
) -> tuple[Any, pulumi.Output[str]]:
    """A Kubernetes provider for a cluster made elsewhere, from secret config or another stack's output."""
    import pulumi_kubernetes as k8s

    c = spec.cluster
    kubeconfig: pulumi.Output[str]
    if c.kubeconfig_stack is not None:
        ref = pulumi.StackReference(f"{c.name}-infra", stack_name=c.kubeconfig_stack, opts=opts)
        kubeconfig = pulumi.Output.secret(ref.require_output(c.kubeconfig_output).apply(str))
    else:
        kubeconfig = pulumi.Output.secret(c.kubeconfig or "")
    provider = k8s.Provider(f"{c.name}-k8s", kubeconfig=kubeconfig, enable_server_side_apply=True, opts=opts)
    return provider, kubeconfig


def _pools(
    spec: PlatformSpec, component: Any, build: Callable[..., Any], inputs: dict[str, Any], opts: Any
) -> dict[str, Any]:
    inputs = {**inputs, "protect": not spec.cluster.disposable}
    return {p.name: component.from_plan(p.name, build(p, spec.driver, inputs), opts) for p in spec.pools}


def existing(spec: PlatformSpec, opts: pulumi.ResourceOptions | None) -> Infrastructure:
    provider, kubeconfig = _kubeconfig_provider(spec, opts)
    return Infrastructure(provider, kubeconfig, spec.cluster.name)


def gke(spec: PlatformSpec, opts: pulumi.ResourceOptions | None) -> Infrastructure:
    require("gke", "gpu-platform:cloud: gke")  # the extra this cloud needs, named in one line
    from gpu_platform.clusters.gke import GkeCluster
    from gpu_platform.nodepools.gke import GkeGpuNodePool

    c = spec.cluster
    inputs: dict[str, Any] = {"location": c.region}
    if c.project:
        inputs["project"] = c.project
    if not c.create:
        provider, kubeconfig = _kubeconfig_provider(spec, opts)
        pools = _pools(
            spec, GkeGpuNodePool, pool_plans.gke_node_pool_plan, {**inputs, "cluster": c.name}, opts
        )
        return Infrastructure(provider, kubeconfig, c.name, pools)
    assert c.system_pool is not None and c.region is not None
    settings: dict[str, Any] = {"location": c.region, "network_cidr": c.vpc_cidr, "protect": not c.disposable}
    for key, value in (("project", c.project), ("kubernetes_version", c.kubernetes_version)):
        if value:
            settings[key] = value
    cluster = GkeCluster.from_plan(
        c.name, cluster_plans.gke_cluster_plan(c.name, c.system_pool, settings), opts
    )
    inputs.update(
        cluster=cluster.cluster_name,
        service_account=cluster.node_service_account_email,
        project=cluster.project,
    )
    pools = _pools(spec, GkeGpuNodePool, pool_plans.gke_node_pool_plan, inputs, opts)
    return Infrastructure(cluster.k8s_provider, cluster.kubeconfig, cluster.cluster_name, pools, cluster)


def _eks_zones(spec: PlatformSpec) -> list[str]:
    """``cluster.zones``, or the region's first available zones: never derived from the pools, so editing a
    pool never moves a subnet (``load_platform`` requires ``cluster.zones`` when pools name zones)."""
    import pulumi_aws as aws

    if spec.cluster.zones:
        return list(spec.cluster.zones)
    available = aws.get_availability_zones(state="available", region=spec.cluster.region).names
    return list(available)[:DEFAULT_EKS_ZONES]


def eks(spec: PlatformSpec, opts: pulumi.ResourceOptions | None) -> Infrastructure:
    require("eks", "gpu-platform:cloud: eks")  # the extra this cloud needs, named in one line
    from gpu_platform.clusters.eks import EksCluster
    from gpu_platform.nodepools.eks import EksGpuNodePool

    c = spec.cluster
    version: dict[str, Any] = {"kubernetes_version": c.kubernetes_version} if c.kubernetes_version else {}
    if not c.create:
        provider, kubeconfig = _kubeconfig_provider(spec, opts)
        attached: dict[str, Any] = {
            "cluster_name": c.name,
            "node_role_arn": c.existing_node_role_arn,
            "subnet_ids": list(c.existing_subnet_ids),
            **version,
        }
        pools = _pools(spec, EksGpuNodePool, pool_plans.eks_node_pool_plan, attached, opts)
        return Infrastructure(provider, kubeconfig, c.name, pools)
    assert c.system_pool is not None
    zones = _eks_zones(spec)
    settings: dict[str, Any] = {
        "vpc_cidr": c.vpc_cidr,
        "availability_zones": zones,
        "protect": not c.disposable,
        **version,
    }
    if c.region:
        settings["region"] = c.region
    karpenter = c.autoscaler == EksAutoscaler.KARPENTER.value
    if karpenter:
        settings["karpenter_discovery"] = True
    cluster = EksCluster.from_plan(
        c.name, cluster_plans.eks_cluster_plan(c.name, c.system_pool, settings), opts
    )
    if karpenter:
        pools = _karpenter_pools(spec, cluster, opts)
        return Infrastructure(cluster.k8s_provider, cluster.kubeconfig, cluster.cluster_name, pools, cluster)
    pools = {}
    for pool in spec.pools:
        pool_zones = list(pool.zones) or zones
        inputs: dict[str, Any] = {
            "protect": not c.disposable,
            "cluster_name": cluster.cluster_name,
            "node_role_arn": cluster.node_role_arn,
            **version,
        }
        if pool.efa:
            # EFA wants one zone and a cluster placement group: the pool's first zone only.
            pool_zones = pool_zones[:1]
            inputs["security_group_ids"] = [cluster.cluster_security_group_id]
        inputs["subnet_ids"] = [cluster.private_subnet_ids_by_zone[z] for z in pool_zones]
        plan = pool_plans.eks_node_pool_plan(pool, spec.driver, inputs)
        pools[pool.name] = EksGpuNodePool.from_plan(pool.name, plan, opts)
    return Infrastructure(cluster.k8s_provider, cluster.kubeconfig, cluster.cluster_name, pools, cluster)


def _karpenter_pools(spec: PlatformSpec, cluster: Any, opts: pulumi.ResourceOptions | None) -> dict[str, Any]:
    """Karpenter (its IAM, interruption queue, CRDs and controller on the system node group), then one
    NodePool + EC2NodeClass per GPU pool; the cluster tags its own subnets and security group for discovery."""
    from gpu_platform.nodepools.karpenter import EksKarpenterGpuNodePool
    from gpu_platform.operators.karpenter import EksKarpenter
    from gpu_platform.plans import karpenter as kp

    on_cluster = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(provider=cluster.k8s_provider))
    controller = kp.EksKarpenterPlan(
        system_node_group=cluster.system_node_group_name,
        pod_identity_agent=spec.cluster.pod_identity_agent,
        tag_discovery=False,
        inputs={
            "cluster_name": cluster.cluster_name,
            "subnet_ids": cluster.private_subnet_ids,
            "security_group_ids": [cluster.cluster_security_group_id],
        },
    )
    karpenter = EksKarpenter.from_plan("karpenter", controller, on_cluster)
    after = pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(depends_on=[karpenter]))
    inputs = {"node_role_name": karpenter.node_role_name, "discovery": karpenter.discovery}
    return {
        pool.name: EksKarpenterGpuNodePool.from_plan(
            pool.name, kp.eks_karpenter_pool_plan(pool, spec.driver, inputs, kp.Disruption()), after
        )
        for pool in spec.pools
    }


def aks(spec: PlatformSpec, opts: pulumi.ResourceOptions | None) -> Infrastructure:
    require("aks", "gpu-platform:cloud: aks")  # the extra this cloud needs, named in one line
    from gpu_platform.clusters.aks import AksCluster
    from gpu_platform.driver import DEFAULT_IMAGE
    from gpu_platform.nodepools.aks import AksGpuNodePool

    c = spec.cluster
    version: dict[str, Any] = {"kubernetes_version": c.kubernetes_version} if c.kubernetes_version else {}
    if not c.create:
        provider, kubeconfig = _kubeconfig_provider(spec, opts)
        attached = {"resource_group_name": c.resource_group, "cluster_name": c.name, **version}
        pools = _pools(spec, AksGpuNodePool, pool_plans.aks_node_pool_plan, attached, opts)
        return Infrastructure(provider, kubeconfig, c.name, pools)
    assert c.system_pool is not None
    os_sku = spec.pools[0].image or DEFAULT_IMAGE["aks"]
    settings: dict[str, Any] = {
        "vnet_cidr": c.vpc_cidr,
        "os_sku": os_sku,
        "protect": not c.disposable,
        **version,
    }
    for key, value in (("location", c.region), ("resource_group_name", c.resource_group)):
        if value:
            settings[key] = value
    cluster = AksCluster.from_plan(
        c.name, cluster_plans.aks_cluster_plan(c.name, c.system_pool, settings), opts
    )
    inputs: dict[str, Any] = {
        "resource_group_name": cluster.resource_group_name,
        "cluster_name": cluster.cluster_name,
        "vnet_subnet_id": cluster.node_subnet_id,
        **version,
    }
    pools = _pools(spec, AksGpuNodePool, pool_plans.aks_node_pool_plan, inputs, opts)
    return Infrastructure(cluster.k8s_provider, cluster.kubeconfig, cluster.cluster_name, pools, cluster)


CLOUDS: dict[str, Callable[[PlatformSpec, pulumi.ResourceOptions | None], Infrastructure]] = {
    "gke": gke,
    "eks": eks,
    "aks": aks,
    "existing": existing,
}


def deploy_infrastructure(spec: PlatformSpec, opts: pulumi.ResourceOptions | None = None) -> Infrastructure:
    return CLOUDS[spec.cloud](spec, opts)
