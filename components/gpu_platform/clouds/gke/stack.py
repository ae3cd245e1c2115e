"""GKE in the stack: a cluster (or an attachment to one) and its tainted GPU node pools."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform.clouds.gke.cluster_plan import gke_cluster_plan
from gpu_platform.clouds.gke.node_pool_plan import gke_node_pool_plan
from gpu_platform.clouds.gke.profile import PROFILE
from gpu_platform.stack.infrastructure import Infrastructure, kubeconfig_provider, planned_pools

if TYPE_CHECKING:
    from gpu_platform.pools import GpuPool
    from gpu_platform.stack.spec import PlatformSpec


def deploy(spec: PlatformSpec, opts: pulumi.ResourceOptions | None) -> Infrastructure:
    """A GKE cluster (or an attachment to one) and its GPU node pools."""
    PROFILE.sdk("gpu-platform:cloud: gke")  # the extra this cloud needs, named in one line
    from gpu_platform.clouds.gke.cluster import GkeCluster
    from gpu_platform.clouds.gke.node_pool import GkeGpuNodePool

    c = spec.cluster
    inputs: dict[str, Any] = {"location": c.region}
    if c.project:
        inputs["project"] = c.project
    if not c.create:
        provider, kubeconfig = kubeconfig_provider(spec, opts)
        pools = planned_pools(
            spec, GkeGpuNodePool, gke_node_pool_plan, {**inputs, "cluster": c.name}, opts, _fixed
        )
        pools.update(_compute_classes(spec, provider, opts))
        return Infrastructure(provider, kubeconfig, c.name, pools)
    assert c.system_pool is not None and c.region is not None
    settings: dict[str, Any] = {"location": c.region, "network_cidr": c.vpc_cidr, "protect": not c.disposable}
    for key, value in (("project", c.project), ("kubernetes_version", c.kubernetes_version)):
        if value:
            settings[key] = value
    cluster = GkeCluster.from_plan(c.name, gke_cluster_plan(c.name, c.system_pool, settings), opts)
    inputs.update(
        cluster=cluster.cluster_name,
        service_account=cluster.node_service_account_email,
        project=cluster.project,
    )
    pools = planned_pools(spec, GkeGpuNodePool, gke_node_pool_plan, inputs, opts, _fixed)
    pools.update(_compute_classes(spec, cluster.k8s_provider, opts))
    return Infrastructure(cluster.k8s_provider, cluster.kubeconfig, cluster.cluster_name, pools, cluster)


def _fixed(pool: GpuPool) -> bool:
    """A pool of one capacity source is a node pool; a fallback chain is a ComputeClass."""
    return not pool.chain


def _compute_classes(
    spec: PlatformSpec, provider: Any, opts: pulumi.ResourceOptions | None
) -> dict[str, Any]:
    """A custom ComputeClass with node pool auto-creation for each pool with a fallback chain: GKE tries the
    priorities (one per capacity source) in order when it creates nodes for the class's pending pods."""
    from gpu_platform.catalog.drivers import DriverVersion
    from gpu_platform.clouds.gke.compute_class import GkeGpuComputeClass
    from gpu_platform.clouds.gke.compute_class_plan import compute_class_plan
    from gpu_platform.clouds.gke.profile import HOST_DRIVER_FLOOR

    on_cluster = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(provider=provider))
    host = DriverVersion.parse(HOST_DRIVER_FLOOR)
    return {
        pool.name: GkeGpuComputeClass.from_plan(pool.name, compute_class_plan(pool, {}, host), on_cluster)
        for pool in spec.pools
        if pool.chain
    }
