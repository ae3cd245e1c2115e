"""GKE in the stack: a cluster (or an attachment to one) and its tainted GPU node pools."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform.cloud_facts.gke.profile import PROFILE
from gpu_platform.clouds.gke.cluster_plan import gke_cluster_plan
from gpu_platform.clouds.gke.gpudirect_plan import GkeGpuDirectPlan, gpudirect_plan, pods_by_pool
from gpu_platform.clouds.gke.node_pool_plan import gke_node_pool_plan
from gpu_platform.clouds.infrastructure import Infrastructure, kubeconfig_provider, planned_pool

if TYPE_CHECKING:
    from gpu_platform.addons.platform_spec import PlatformSpec
    from gpu_platform.pools import GpuPool


def deploy(spec: PlatformSpec, opts: pulumi.ResourceOptions | None) -> Infrastructure:
    """A GKE cluster (or an attachment to one) and its GPU node pools."""
    PROFILE.sdk("gpu-platform:cloud: gke")  # the extra this cloud needs, named in one line
    from gpu_platform.clouds.gke.cluster import GkeCluster

    c = spec.cluster
    inputs: dict[str, Any] = {"location": c.region}
    if c.project:
        inputs["project"] = c.project
    if not c.create:
        provider, kubeconfig = kubeconfig_provider(spec, opts)
        networks = _gpudirect(spec, provider, opts)
        pools = _pools(spec, {**inputs, "cluster": c.name}, networks, opts)
        pools.update(_compute_classes(spec, provider, opts))
        return Infrastructure(provider, kubeconfig, c.name, pools)
    assert c.system_pool is not None and c.region is not None
    settings: dict[str, Any] = {"location": c.region, "network_cidr": c.vpc_cidr, "protect": not c.disposable}
    if any(pool.gpudirect for pool in spec.pools):
        settings["enable_multi_networking"] = True
    for key, value in (("project", c.project), ("kubernetes_version", c.kubernetes_version)):
        if value:
            settings[key] = value
    proxy_subnet = _proxy_subnet(spec)
    # The managed inference Gateway needs both, and the stack makes both where it makes the cluster.
    plan = gke_cluster_plan(
        c.name, c.system_pool, settings, proxy_subnet, gateway_api=proxy_subnet is not None
    )
    cluster = GkeCluster.from_plan(c.name, plan, opts)
    _metrics_reader(spec, cluster, opts)
    inputs.update(
        cluster=cluster.cluster_name,
        service_account=cluster.node_service_account_email,
        project=cluster.project,
    )
    networks = _gpudirect(spec, cluster.kubernetes_provider, opts)
    pools = _pools(spec, inputs, networks, opts)
    pools.update(_compute_classes(spec, cluster.kubernetes_provider, opts))
    return Infrastructure(
        cluster.kubernetes_provider, cluster.kubeconfig, cluster.cluster_name, pools, cluster
    )


def _proxy_subnet(spec: PlatformSpec) -> str | None:
    """The proxy-only subnet's range when the serving section routes through GKE's managed inference Gateway
    (the stack creates the subnet with the cluster's VPC), else ``None``."""
    from gpu_platform.addons.serving.gateway import creates_proxy_subnet
    from gpu_platform.cloud_facts.gke.serving import default_proxy_subnet

    serving = spec.serving
    if serving is None or not creates_proxy_subnet(
        spec.cloud, serving.settings.get("gateway") or {}, serving.network_created
    ):
        return None
    return spec.cluster.proxy_subnet_cidr or default_proxy_subnet(spec.cluster.vpc_cidr)


def _metrics_reader(spec: PlatformSpec, cluster: Any, opts: pulumi.ResourceOptions | None) -> None:
    """The Google service account KEDA's operator reads Managed Service for Prometheus as, when an autoscaled
    model reads it (``PrometheusSource.grant``)."""
    prometheus = spec.serving.prometheus if spec.serving is not None else None
    if prometheus is None or prometheus.grant is None:
        return
    from gpu_platform.clouds.gke.metrics_reader import create_metrics_reader

    create_metrics_reader(spec.cluster.name, prometheus.grant, opts, [cluster])


def _gpudirect(spec: PlatformSpec, provider: Any, opts: pulumi.ResourceOptions | None) -> Any:
    """``GkeGpuDirect`` when a pool sets ``gpudirect``: the VPCs before the pools that attach them, the Network
    objects and NCCL plugin installers through the cluster's provider."""
    from gpu_platform.clouds.gke.gpudirect import GkeGpuDirect

    plan = _gpudirect_plan(spec)
    if not plan.pools:
        return None
    on_cluster = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(providers=[provider]))
    return GkeGpuDirect.from_plan(f"{spec.cluster.name}-gpudirect", plan, on_cluster)


def _gpudirect_plan(spec: PlatformSpec) -> GkeGpuDirectPlan:
    c = spec.cluster
    inputs = {"project": c.project} if c.project else {}
    return gpudirect_plan(
        c.name,
        c.region or "",
        spec.pools,
        inputs,
        protect=not c.disposable,
        network=c.gpu_network_cidr,
        mirror=spec.mirror,
    )


def _pools(
    spec: PlatformSpec, inputs: dict[str, Any], networks: Any, opts: pulumi.ResourceOptions | None
) -> dict[str, Any]:
    """The node pools; a GPUDirect pool also gets its extra NICs' networks and waits for their subnets."""
    from gpu_platform.clouds.gke.node_pool import GkeGpuNodePool

    after = opts
    if networks is not None:
        after = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[networks]))
    out: dict[str, Any] = {}
    for pool in (p for p in spec.pools if _fixed(p)):
        own, pool_opts = inputs, opts
        if pool.gpudirect is not None and networks is not None:
            own = {**inputs, "additional_node_networks": networks.node_networks_by_pool[pool.name]}
            pool_opts = after
        out[pool.name] = planned_pool(spec, GkeGpuNodePool, gke_node_pool_plan, pool, own, pool_opts)
    return out


def cloud_addons(spec: PlatformSpec, infra: Infrastructure, opts: pulumi.ResourceOptions) -> dict[str, Any]:
    """What a training pod on each GPUDirect pool must carry (stack output ``gpudirectPods``), so a job copies
    it from the plan instead of from a guide."""
    plan = _gpudirect_plan(spec)
    return {"gpudirectPods": pods_by_pool(plan)} if plan.pools else {}


def _fixed(pool: GpuPool) -> bool:
    """A pool of one capacity source is a node pool; a fallback chain is a ComputeClass."""
    return not pool.chain


def _compute_classes(
    spec: PlatformSpec, provider: Any, opts: pulumi.ResourceOptions | None
) -> dict[str, Any]:
    """A custom ComputeClass with node pool auto-creation for each pool with a fallback chain: GKE tries the
    priorities (one per capacity source) in order when it creates nodes for the class's pending pods."""
    from gpu_platform.catalog.drivers import DriverVersion
    from gpu_platform.cloud_facts.gke.profile import HOST_DRIVER_FLOOR
    from gpu_platform.clouds.gke.compute_class import GkeGpuComputeClass
    from gpu_platform.clouds.gke.compute_class_plan import compute_class_plan

    on_cluster = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(provider=provider))
    host = DriverVersion.parse(HOST_DRIVER_FLOOR)
    return {
        pool.name: GkeGpuComputeClass.from_plan(pool.name, compute_class_plan(pool, {}, host), on_cluster)
        for pool in spec.pools
        if pool.chain
    }
