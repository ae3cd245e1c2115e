"""AKS: create the cluster (or attach agent pools to one by name) and add one GPU agent pool per pool."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform.clouds import Infrastructure
from gpu_platform.clouds.gke import P, attached_kubeconfig_problem, system_pool_args
from gpu_platform.config.errors import ConfigError
from gpu_platform.driver import DEFAULT_IMAGE
from gpu_platform.nodepools import check_stack_pools, stack_pool_args

if TYPE_CHECKING:
    from gpu_platform.config import PlatformSpec


def deploy_infrastructure(spec: PlatformSpec, opts: pulumi.ResourceOptions | None = None) -> Infrastructure:
    from gpu_platform.nodepools.aks import AksGpuNodePool, check_aks_pool, default_agent_pool_name

    cluster = spec.config.cluster
    pools_cfg = spec.config.gpu_pools
    pool_args = stack_pool_args(spec)
    problems = attached_kubeconfig_problem(spec)
    if not cluster.create and not cluster.resource_group:
        problems.append((f"{P}cluster.resourceGroup", "required when cluster.create is false on AKS"))
    problems += check_stack_pools(check_aks_pool, pool_args)
    seen: dict[str, int] = {}
    images = [p.image or DEFAULT_IMAGE["aks"] for p in pools_cfg]
    for i, pool in enumerate(pools_cfg):
        short = default_agent_pool_name(pool.name)
        if short in seen:
            problems.append(
                (
                    f"{P}gpuPools[{i}].name",
                    f"AKS pool name '{short}' (no dashes, 12 characters) repeats gpuPools[{seen[short]}]",
                )
            )
        seen.setdefault(short, i)
        if images[i] != images[0]:
            problems.append(
                (
                    f"{P}gpuPools[{i}].image",
                    f"'{images[i]}' differs from gpuPools[0] ('{images[0]}'); the GPU Operator does not "
                    "support mixed OS versions in one AKS cluster",
                )
            )
    if problems:
        raise ConfigError(problems)

    extra: dict[str, Any] = {}
    if cluster.create:
        from gpu_platform.clusters.aks import AksCluster

        cluster_args: dict[str, Any] = {
            "vnet_cidr": cluster.vpc_cidr,
            "os_sku": images[0],
            "system_pool": system_pool_args(spec),
        }
        if cluster.region:
            cluster_args["location"] = cluster.region
        if cluster.resource_group:
            cluster_args["resource_group_name"] = cluster.resource_group
        if cluster.kubernetes_version:
            cluster_args["kubernetes_version"] = cluster.kubernetes_version
        aks = AksCluster(cluster.name, cluster_args, opts=opts)  # type: ignore[arg-type]
        common: dict[str, Any] = {
            "resource_group_name": aks.resource_group_name,
            "cluster_name": aks.cluster_name,
            "vnet_subnet_id": aks.node_subnet_id,
        }
        k8s_provider, kubeconfig, name = aks.k8s_provider, aks.kubeconfig, aks.cluster_name
        extra["cluster"] = aks
    else:
        from gpu_platform.clouds import existing

        attached = existing.deploy_infrastructure(spec, opts)
        common = {"resource_group_name": cluster.resource_group, "cluster_name": cluster.name}
        k8s_provider, kubeconfig, name = attached.k8s_provider, attached.kubeconfig, cluster.name
    if cluster.kubernetes_version:
        common["kubernetes_version"] = cluster.kubernetes_version

    pools = {
        args["pool"]["name"]: AksGpuNodePool(args["pool"]["name"], {**common, **args}, opts=opts)  # type: ignore[typeddict-item]
        for args in pool_args
    }
    return Infrastructure(
        k8s_provider=k8s_provider, kubeconfig=kubeconfig, cluster_name=name, node_pools=pools, extra=extra
    )
