"""GKE: create the cluster (or attach to one by name) and add one tainted GPU node pool per pool."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform.clouds import Infrastructure
from gpu_platform.config.errors import ConfigError
from gpu_platform.nodepools import check_stack_pools, stack_pool_args

if TYPE_CHECKING:
    from gpu_platform.config import PlatformSpec

P = "gpu-platform:"


def system_pool_args(spec: PlatformSpec) -> dict[str, Any]:
    sp = spec.config.cluster.system_pool
    out: dict[str, Any] = {"min_nodes": sp.min_nodes, "max_nodes": sp.max_nodes}
    if sp.machine_type:
        out["machine_type"] = sp.machine_type
    return out


def attached_kubeconfig_problem(spec: PlatformSpec) -> list[tuple[str, str]]:
    cluster = spec.config.cluster
    if cluster.create or cluster.kubeconfig is not None or cluster.kubeconfig_stack_reference is not None:
        return []
    return [
        (
            f"{P}cluster.kubeconfig",
            "required when cluster.create is false (a secure: kubeconfig, or "
            "cluster.kubeconfigStackReference)",
        )
    ]


def deploy_infrastructure(spec: PlatformSpec, opts: pulumi.ResourceOptions | None = None) -> Infrastructure:
    from gpu_platform.nodepools.gke import GkeGpuNodePool, check_gke_pool

    cluster = spec.config.cluster
    pool_args = stack_pool_args(spec)
    problems = attached_kubeconfig_problem(spec)
    if not cluster.region:
        problems.append((f"{P}cluster.region", "required on GKE (the cluster's region or zone)"))
    problems += check_stack_pools(check_gke_pool, pool_args)
    if problems:
        raise ConfigError(problems)
    assert cluster.region is not None

    extra: dict[str, Any] = {}
    common: dict[str, Any] = {"location": cluster.region}
    if cluster.project:
        common["project"] = cluster.project
    if cluster.create:
        from gpu_platform.clusters.gke import GkeCluster

        cluster_args: dict[str, Any] = {
            "location": cluster.region,
            "network_cidr": cluster.vpc_cidr,
            "system_pool": system_pool_args(spec),
        }
        if cluster.project:
            cluster_args["project"] = cluster.project
        if cluster.kubernetes_version:
            cluster_args["kubernetes_version"] = cluster.kubernetes_version
        gke = GkeCluster(cluster.name, cluster_args, opts=opts)  # type: ignore[arg-type]
        common.update(
            cluster=gke.cluster_name, service_account=gke.node_service_account_email, project=gke.project
        )
        k8s_provider, kubeconfig, name = gke.k8s_provider, gke.kubeconfig, gke.cluster_name
        extra["cluster"] = gke
    else:
        from gpu_platform.clouds import existing

        attached = existing.deploy_infrastructure(spec, opts)
        common["cluster"] = cluster.name
        k8s_provider, kubeconfig, name = attached.k8s_provider, attached.kubeconfig, cluster.name

    pools = {
        args["pool"]["name"]: GkeGpuNodePool(args["pool"]["name"], {**common, **args}, opts=opts)  # type: ignore[typeddict-item]
        for args in pool_args
    }
    return Infrastructure(
        k8s_provider=k8s_provider, kubeconfig=kubeconfig, cluster_name=name, node_pools=pools, extra=extra
    )
