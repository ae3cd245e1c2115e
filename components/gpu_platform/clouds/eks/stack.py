"""EKS in the stack: a cluster (or an attachment to one), its tainted GPU node groups or Karpenter NodePools, and
the Cluster Autoscaler and EFA device plugin on it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform import releases, versions
from gpu_platform.addons.observability.wiring import managed_metrics
from gpu_platform.args.autoscaling import EksAutoscaler
from gpu_platform.cloud_facts.eks.profile import DEFAULT_ZONES, PROFILE
from gpu_platform.clouds.eks.autoscaling_plan import (
    ClusterAutoscalerPlan,
    efa_device_plugin_plan,
)
from gpu_platform.clouds.eks.checks import autoscaler_image_tag
from gpu_platform.clouds.eks.cluster_plan import eks_cluster_plan
from gpu_platform.clouds.eks.node_pool_plan import eks_node_pool_plan
from gpu_platform.clouds.infrastructure import Infrastructure, kubeconfig_provider

if TYPE_CHECKING:
    from gpu_platform.addons.platform_spec import PlatformSpec

POD_IDENTITY_AGENT = "eks-pod-identity-agent"
NODE_MONITORING_AGENT = versions.EKS_NODE_MONITORING_AGENT_ADDON
"""The stack's one ``eks-pod-identity-agent`` add-on, whichever autoscaler uses it: a new name on a switch between
``cluster-autoscaler`` and ``karpenter`` would create a second add-on of the same kind, which EKS refuses."""
KARPENTER_COMPONENT = ("gpu-platform:index:EksKarpenter", "karpenter")
PREVIOUS_OWNERS = (
    ("gpu-platform:index:ClusterAutoscaler", releases.CLUSTER_AUTOSCALER.component_name),
    KARPENTER_COMPONENT,
)
"""Components that created the add-on as ``<name>-pod-identity-agent`` before: its aliases, so existing stacks
keep the add-on they have (no replacement)."""


def _pod_identity_agent(spec: PlatformSpec, cluster_name: Any, parent: pulumi.Resource | None) -> list[Any]:
    """The add-on at the top of the stack (``[]`` when ``cluster.podIdentityAgent`` is false or nothing uses it:
    neither an autoscaler nor Prometheus writing to Amazon Managed Service for Prometheus)."""
    autoscaler = spec.cluster.autoscaler != EksAutoscaler.NONE.value
    if not spec.cluster.pod_identity_agent or not (autoscaler or managed_metrics(spec)):
        return []
    import pulumi_aws as aws

    aliases = [
        pulumi.Alias(name=f"{owner}-pod-identity-agent", parent=pulumi.create_urn(owner, kind))
        for kind, owner in PREVIOUS_OWNERS
    ]
    addon = aws.eks.Addon(
        POD_IDENTITY_AGENT,
        cluster_name=cluster_name,
        addon_name=versions.EKS_POD_IDENTITY_AGENT_ADDON,
        opts=pulumi.ResourceOptions(aliases=aliases, parent=parent),
    )
    return [addon]


def node_repair(spec: PlatformSpec) -> bool:
    """``observability.nodeAutoRepair``: node repair on the GPU node groups, with the agent that sees GPUs fail."""
    return spec.observability is not None and spec.observability.node_auto_repair


def _node_monitoring_agent(
    spec: PlatformSpec, cluster_name: Any, opts: pulumi.ResourceOptions | None
) -> list[Any]:
    """The node monitoring agent add-on (``[]`` without node repair): without it node repair sees only a
    node's readiness, not its GPUs (Xid errors, DCGM health, NVIDIA driver and fabric manager)."""
    if not node_repair(spec):
        return []
    import pulumi_aws as aws

    return [
        aws.eks.Addon(
            NODE_MONITORING_AGENT, cluster_name=cluster_name, addon_name=NODE_MONITORING_AGENT, opts=opts
        )
    ]


def _zones(spec: PlatformSpec) -> list[str]:
    """``cluster.zones``, or the region's first available zones: never derived from the pools, so editing a
    pool never moves a subnet (``load_platform`` requires ``cluster.zones`` when pools name zones)."""
    import pulumi_aws as aws

    if spec.cluster.zones:
        return list(spec.cluster.zones)
    available = aws.get_availability_zones(state="available", region=spec.cluster.region).names
    return list(available)[:DEFAULT_ZONES]


def deploy(spec: PlatformSpec, opts: pulumi.ResourceOptions | None) -> Infrastructure:
    """An EKS cluster (or an attachment to one) and its GPU node groups or Karpenter NodePools."""
    PROFILE.sdk("gpu-platform:cloud: eks")  # the extra this cloud needs, named in one line
    from gpu_platform.clouds.eks.cluster import EksCluster

    c = spec.cluster
    version: dict[str, Any] = {"kubernetes_version": c.kubernetes_version} if c.kubernetes_version else {}
    if not c.create:
        return _attach(spec, version, opts)
    assert c.system_pool is not None
    zones = _zones(spec)
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
    cluster = EksCluster.from_plan(c.name, eks_cluster_plan(c.name, c.system_pool, settings), opts)
    _node_monitoring_agent(
        spec, cluster.cluster_name, opts
    )  # Karpenter's node repair reads its conditions too
    if karpenter:
        pools = _karpenter_pools(spec, cluster, opts)
    else:
        pools = _node_group_pools(spec, cluster, zones, version, opts)
    return Infrastructure(
        cluster.kubernetes_provider, cluster.kubeconfig, cluster.cluster_name, pools, cluster
    )


def _attach(
    spec: PlatformSpec, version: dict[str, Any], opts: pulumi.ResourceOptions | None
) -> Infrastructure:
    """GPU node groups on an existing cluster (``create: false``), kept apart so ``deploy`` fits a screen."""
    from gpu_platform.clouds.eks.node_pool import EksGpuNodePool

    c = spec.cluster
    provider, kubeconfig = kubeconfig_provider(spec, opts)
    attached: dict[str, Any] = {
        "cluster_name": c.name,
        "node_role_arn": c.existing_node_role_arn,
        "subnet_ids": list(c.existing_subnet_ids),
        "protect": not c.disposable,
        **version,
        **({"node_repair": True} if node_repair(spec) else {}),
    }
    _node_monitoring_agent(spec, c.name, opts)
    pools: dict[str, pulumi.Resource] = {}
    for pool in spec.pools:
        pool_inputs = dict(attached)
        if pool.efa:
            # One zone for the cluster placement group; the interfaces get the cluster's security groups.
            pool_inputs["subnet_ids"] = list(c.existing_subnet_ids[:1])
            pool_inputs["security_group_ids"] = list(c.existing_security_group_ids)
        pools[pool.name] = EksGpuNodePool.from_plan(
            pool.name, eks_node_pool_plan(pool, spec.driver, pool_inputs), opts
        )
    return Infrastructure(provider, kubeconfig, c.name, pools)


def _node_group_pools(
    spec: PlatformSpec,
    cluster: Any,
    zones: list[str],
    version: dict[str, Any],
    opts: pulumi.ResourceOptions | None,
) -> dict[str, Any]:
    """One managed node group per GPU pool on the new cluster, kept apart so ``deploy`` fits a screen."""
    from gpu_platform.clouds.eks.node_pool import EksGpuNodePool

    pools: dict[str, Any] = {}
    for pool in spec.pools:
        pool_zones = list(pool.zones) or zones
        inputs: dict[str, Any] = {
            "protect": not spec.cluster.disposable,
            "cluster_name": cluster.cluster_name,
            "node_role_arn": cluster.node_role_arn,
            **version,
            **({"node_repair": True} if node_repair(spec) else {}),
        }
        if pool.efa:
            # EFA wants one zone and a cluster placement group: the pool's first zone only.
            pool_zones = pool_zones[:1]
            inputs["security_group_ids"] = [cluster.cluster_security_group_id]
        inputs["subnet_ids"] = [cluster.private_subnet_ids_by_zone[z] for z in pool_zones]
        plan = eks_node_pool_plan(pool, spec.driver, inputs)
        pools[pool.name] = EksGpuNodePool.from_plan(pool.name, plan, opts)
    return pools


def _karpenter_pools(spec: PlatformSpec, cluster: Any, opts: pulumi.ResourceOptions | None) -> dict[str, Any]:
    """Karpenter (its IAM, interruption queue, CRDs and controller on the system node group), then one
    NodePool + EC2NodeClass per GPU pool; the cluster tags its own subnets and security group for discovery."""
    from gpu_platform.clouds.eks import karpenter_plan as kp
    from gpu_platform.clouds.eks.karpenter import EksKarpenter
    from gpu_platform.clouds.eks.karpenter_node_pool import EksKarpenterGpuNodePool
    from gpu_platform.resolve.disruption import Disruption

    on_cluster = pulumi.ResourceOptions.merge(
        opts, pulumi.ResourceOptions(provider=cluster.kubernetes_provider)
    )
    agent = _pod_identity_agent(spec, cluster.cluster_name, opts.parent if opts else None)
    controller = kp.EksKarpenterPlan(
        system_node_group=cluster.system_node_group_name,
        pod_identity_agent=False,  # the stack's own (``_pod_identity_agent``)
        tag_discovery=False,
        inputs={
            "cluster_name": cluster.cluster_name,
            "subnet_ids": cluster.private_subnet_ids,
            "security_group_ids": [cluster.cluster_security_group_id],
        },
        mirror=spec.mirror,
    )
    with_agent = pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(depends_on=agent))
    karpenter = EksKarpenter.from_plan(KARPENTER_COMPONENT[1], controller, with_agent)
    after = pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(depends_on=[karpenter]))
    inputs = {"node_role_name": karpenter.node_role_name, "discovery": karpenter.discovery}
    return {
        pool.name: EksKarpenterGpuNodePool.from_plan(
            pool.name, kp.eks_karpenter_pool_plan(pool, spec.driver, inputs, Disruption()), after
        )
        for pool in spec.pools
    }


def cloud_addons(spec: PlatformSpec, infra: Infrastructure, opts: pulumi.ResourceOptions) -> dict[str, Any]:
    """The Cluster Autoscaler (unless ``cluster.autoscaler`` is ``none``) and, when a pool has EFA,
    the EFA device plugin. Returns the stack outputs."""
    from gpu_platform.clouds.eks.cluster_autoscaler import ClusterAutoscaler
    from gpu_platform.clouds.eks.efa import EfaDevicePlugin

    outputs: dict[str, Any] = {}
    c = spec.cluster
    if c.autoscaler == EksAutoscaler.CLUSTER_AUTOSCALER.value:
        tag = autoscaler_image_tag(c.kubernetes_version)
        assert tag is not None  # load_platform refused an unpinned minor
        system = getattr(infra.cluster, "system_node_group_name", None)
        plan = ClusterAutoscalerPlan(
            cluster_name=infra.cluster_name,
            region=c.region or _provider_region(),
            image_tag=tag,
            pod_identity_agent=False,  # the stack's own (``_pod_identity_agent``)
            node_selector={"eks.amazonaws.com/nodegroup": system} if system else {},
            dynamic_resource_allocation=any(p.dra for p in spec.pools),
            mirror=spec.mirror,
        )
        # After the GPU node groups: their Auto Scaling groups are tagged before it first looks.
        agent = _pod_identity_agent(spec, infra.cluster_name, opts.parent)
        after = pulumi.ResourceOptions(depends_on=[*infra.node_pools.values(), *agent])
        autoscaler = ClusterAutoscaler.from_plan(
            releases.CLUSTER_AUTOSCALER.component_name, plan, pulumi.ResourceOptions.merge(opts, after)
        )
        outputs["clusterAutoscalerStatus"] = autoscaler.status
    elif c.autoscaler == EksAutoscaler.NONE.value and managed_metrics(
        spec
    ):  # Prometheus's credentials need the agent
        _pod_identity_agent(spec, infra.cluster_name, opts.parent)
    efa = efa_device_plugin_plan(spec.pools, mirror=spec.mirror)
    if efa.pools:
        plugin = EfaDevicePlugin.from_plan(releases.AWS_EFA_DEVICE_PLUGIN.component_name, efa, opts)
        outputs["efaDevicePluginStatus"] = plugin.status
    return outputs


def metrics_cluster(spec: PlatformSpec, infra: Infrastructure) -> dict[str, Any]:
    """The cluster Prometheus's Pod Identity association is made on (``ManagedPrometheusCluster``)."""
    return {"name": infra.cluster_name}


def _provider_region() -> Any:
    """The AWS provider's region (``aws:region``) when the stack file does not name one."""
    import pulumi_aws as aws

    return aws.get_region_output().region
