"""EKS: create the cluster (or attach node groups to one by name) and add one GPU node group per pool."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform.clouds import Infrastructure
from gpu_platform.clouds.gke import P, attached_kubeconfig_problem, system_pool_args
from gpu_platform.config.errors import ConfigError
from gpu_platform.nodepools import check_stack_pools, stack_pool_args

if TYPE_CHECKING:
    from gpu_platform.config import PlatformSpec

DEFAULT_ZONES = 3


def _cluster_zones(spec: PlatformSpec, problems: list[tuple[str, str]]) -> list[str]:
    """The pools' zones first, filled up from the region's available zones (at least two, for EKS)."""
    import pulumi_aws as aws

    wanted: list[str] = []
    for pool in spec.config.gpu_pools:
        wanted += [z for z in pool.zones if z not in wanted]
    region = spec.config.cluster.region
    available = list(aws.get_availability_zones(state="available", region=region).names)
    for i, pool in enumerate(spec.config.gpu_pools):
        for j, zone in enumerate(pool.zones):
            if zone not in available:
                problems.append(
                    (
                        f"{P}gpuPools[{i}].zones[{j}]",
                        f"'{zone}' is not available; valid: {', '.join(available)}",
                    )
                )
    zones = [z for z in wanted if z in available]
    for zone in available:
        if len(zones) >= max(DEFAULT_ZONES, len(wanted)):
            break
        if zone not in zones:
            zones.append(zone)
    return zones


def deploy_infrastructure(spec: PlatformSpec, opts: pulumi.ResourceOptions | None = None) -> Infrastructure:
    from gpu_platform.nodepools.eks import EksGpuNodePool, check_eks_pool

    cluster = spec.config.cluster
    pool_args = stack_pool_args(spec)
    problems = attached_kubeconfig_problem(spec)
    for cfg_pool, args in zip(spec.config.gpu_pools, pool_args, strict=True):
        if cfg_pool.capacity_type == "CAPACITY_BLOCK":
            # The stack's `reservation` is the Capacity Block ID (checked by load_platform).
            args["capacity_reservation_id"] = cfg_pool.reservation
        if cfg_pool.efa:
            args["security_group_ids"] = []  # the cluster security group, filled in below
    if not cluster.create:
        if not cluster.existing_node_role_arn:
            problems.append(
                (f"{P}cluster.existingNodeRoleArn", "required when cluster.create is false on EKS")
            )
        if not cluster.existing_subnet_ids:
            problems.append((f"{P}cluster.existingSubnetIds", "required when cluster.create is false on EKS"))
        for i, cfg_pool in enumerate(spec.config.gpu_pools):
            if cfg_pool.zones:
                problems.append(
                    (
                        f"{P}gpuPools[{i}].zones",
                        "on an attached EKS cluster the subnets decide the zones; remove it",
                    )
                )
            if cfg_pool.efa:
                problems.append(
                    (
                        f"{P}gpuPools[{i}].efa",
                        "EFA on an attached cluster needs its security group: build EksGpuNodePool with "
                        "security_group_ids",
                    )
                )
    problems += check_stack_pools(check_eks_pool, pool_args)
    zones = _cluster_zones(spec, problems) if cluster.create else []
    if problems:
        raise ConfigError(problems)

    extra: dict[str, Any] = {}
    if cluster.create:
        from gpu_platform.clusters.eks import EksCluster

        cluster_args: dict[str, Any] = {
            "vpc_cidr": cluster.vpc_cidr,
            "availability_zones": zones,
            "system_pool": system_pool_args(spec),
        }
        if cluster.region:
            cluster_args["region"] = cluster.region
        if cluster.kubernetes_version:
            cluster_args["kubernetes_version"] = cluster.kubernetes_version
        eks = EksCluster(cluster.name, cluster_args, opts=opts)  # type: ignore[arg-type]
        by_zone = eks.private_subnet_ids_by_zone
        for cfg_pool, args in zip(spec.config.gpu_pools, pool_args, strict=True):
            pool_zones = list(cfg_pool.zones) or zones
            if cfg_pool.efa:
                # EFA wants one zone and a cluster placement group: the pool's first zone only.
                pool_zones = pool_zones[:1]
                args["security_group_ids"] = [eks.cluster_security_group_id]
            args.update(
                cluster_name=eks.cluster_name,
                node_role_arn=eks.node_role_arn,
                subnet_ids=[by_zone[z] for z in pool_zones],
            )
        k8s_provider, kubeconfig, name = eks.k8s_provider, eks.kubeconfig, eks.cluster_name
        extra["cluster"] = eks
    else:
        from gpu_platform.clouds import existing

        attached = existing.deploy_infrastructure(spec, opts)
        for args in pool_args:
            args.update(
                cluster_name=cluster.name,
                node_role_arn=cluster.existing_node_role_arn,
                subnet_ids=list(cluster.existing_subnet_ids),
            )
        k8s_provider, kubeconfig, name = attached.k8s_provider, attached.kubeconfig, cluster.name
    if cluster.kubernetes_version:
        for args in pool_args:
            args["kubernetes_version"] = cluster.kubernetes_version

    pools = {
        args["pool"]["name"]: EksGpuNodePool(args["pool"]["name"], args, opts=opts) for args in pool_args
    }  # type: ignore[arg-type]
    return Infrastructure(
        k8s_provider=k8s_provider, kubeconfig=kubeconfig, cluster_name=name, node_pools=pools, extra=extra
    )
