"""Checks of EKS components' own arguments, beside the pool checks every path runs."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gpu_platform import versions
from gpu_platform.args.autoprovisioning import DEFAULT_KARPENTER_REPLICAS
from gpu_platform.args.validate import check_arguments
from gpu_platform.cloud_facts.eks.autoprovisioning import karpenter_pool_problems
from gpu_platform.cloud_facts.eks.profile import MAX_ZONES, ROLE_ARN, karpenter_ami_alias, subnet_id_problems
from gpu_platform.clouds.eks.args import (
    DEFAULT_AMI_VERSION,
    DEFAULT_AUTOSCALER_IAM,
    AutoscalerIam,
    ClusterAutoscalerArgs,
    EfaDevicePluginArgs,
    EksClusterArgs,
    EksGpuNodePoolArgs,
    EksKarpenterArgs,
    EksKarpenterGpuNodePoolArgs,
)
from gpu_platform.driver import DriverPlan
from gpu_platform.errors import Problems
from gpu_platform.mirror import Mirror
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.autoprovisioning import resolve_auto_pool
from gpu_platform.resolve.cluster import KUBERNETES_VERSION, SystemPool, resolve_cluster_args
from gpu_platform.resolve.cluster_pools import fabric_addon_args
from gpu_platform.resolve.disruption import Disruption, resolve_disruption
from gpu_platform.resolve.kubernetes import namespace_problem
from gpu_platform.resolve.mirror import resolve_mirror
from gpu_platform.resolve.node_pool_args import resolve_node_pool_args

_AMI_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def node_group_checks(args: Mapping[str, Any], pool: GpuPool | None, p: Problems) -> None:
    """EFA interfaces are attached with the cluster's security group, which a node group cannot guess."""
    if pool is not None and pool.efa and args.get("security_group_ids") is None:
        p.add(("security_group_ids",), "EFA interfaces need security groups (the cluster security group)")
    subnet_id_problems(args.get("subnet_ids"), p.at("subnet_ids"))
    role = args.get("node_role_arn")
    if isinstance(role, str) and not ROLE_ARN.match(role):
        p.add(
            ("node_role_arn",), f"'{role}' is not an IAM role ARN like arn:aws:iam::123456789012:role/nodes"
        )


def cluster_args(args: EksClusterArgs) -> tuple[SystemPool, dict[str, Any]]:
    """``EksCluster``'s arguments checked: its system pool and settings; ``ArgumentsError`` lists every problem."""
    p, checked, system = resolve_cluster_args("eks", EksClusterArgs, args, "vpc_cidr")
    zones = tuple(checked.get("availability_zones", ())) if checked else ()
    if zones and not 2 <= len(zones) <= MAX_ZONES:
        p.add(("availability_zones",), f"EKS needs two to {MAX_ZONES} zones here (got {len(zones)})")
    elif len(set(zones)) != len(zones):
        p.add(("availability_zones",), "a zone is listed twice")
    p.raise_for_arguments()
    assert checked is not None and system is not None
    return system, checked


def node_pool_args(args: EksGpuNodePoolArgs) -> tuple[GpuPool, DriverPlan, Mapping[str, Any]]:
    """The node pool component's arguments checked and resolved; ``ArgumentsError`` lists every problem."""
    return resolve_node_pool_args("eks", EksGpuNodePoolArgs, args, node_group_checks)


def karpenter_pool_args(
    args: EksKarpenterGpuNodePoolArgs,
) -> tuple[GpuPool, DriverPlan, Mapping[str, Any], Disruption]:
    """``EksKarpenterGpuNodePool``'s arguments checked and resolved; ``ArgumentsError`` lists every problem."""
    p = Problems()
    checked = check_arguments(EksKarpenterGpuNodePoolArgs, args, p)
    resolved = resolve_auto_pool("eks", checked, p, karpenter_pool_problems) if checked is not None else None
    disruption = resolve_disruption(checked.get("disruption", {}) if checked else {}, p.at("disruption"))
    version = checked.get("ami_version", DEFAULT_AMI_VERSION) if checked else DEFAULT_AMI_VERSION
    if not _AMI_VERSION.match(version):
        p.add(("ami_version",), f"{version!r} is not an AMI alias version like 'v20260714' or 'latest'")
    elif (
        resolved is not None
        and karpenter_ami_alias(resolved[0], checked.get("ami_version") if checked else None) is None
    ):
        p.add(
            ("ami_version",),
            f"{resolved[0].image} has no AMI release pinned by the library: name one (a Bottlerocket release "
            "like 'v1.40.0'), or 'latest' to follow every release (each replaces the GPU nodes)",
        )
    p.raise_for_arguments()
    assert checked is not None and resolved is not None
    return *resolved, checked, disruption


def _controller_problems(args: Mapping[str, Any], p: Problems) -> None:
    replicas = args.get("replicas", DEFAULT_KARPENTER_REPLICAS)
    if not 1 <= replicas <= 3:
        p.add(("replicas",), f"{replicas} is out of range; must be between 1 and 3")
    if reason := namespace_problem(args.get("namespace", versions.KARPENTER.namespace)):
        p.add(("namespace",), reason)
    for key in ("subnet_ids", "security_group_ids"):
        if key in args and not args[key]:
            p.add((key,), "at least one (the nodes' private subnets / the cluster security group)")
    for key in ("settings", "serviceAccount"):
        for sub in ("clusterName", "interruptionQueue", "name"):
            if sub in args.get("values", {}).get(key, {}):
                p.add(("values", key, sub), "set by the library (cluster, interruption queue, Pod Identity)")


def karpenter_args(args: EksKarpenterArgs) -> Mapping[str, Any]:
    """``EksKarpenter``'s arguments checked (``mirror`` resolved); ``ArgumentsError`` lists every problem."""
    p = Problems()
    checked = check_arguments(EksKarpenterArgs, args, p)
    if checked is not None:
        _controller_problems(checked, p)
        checked["mirror"] = resolve_mirror(checked.get("mirror"), p.at("mirror"))
    p.raise_for_arguments()
    assert checked is not None
    return checked


def autoscaler_image_tag(kubernetes_version: str | None) -> str | None:
    """The image of the cluster's minor (``None`` for a minor without a pinned image)."""
    if kubernetes_version is None:
        return versions.CLUSTER_AUTOSCALER_IMAGE_TAGS[versions.CLUSTER_AUTOSCALER_DEFAULT_MINOR]
    minor = ".".join(kubernetes_version.lstrip("v").split(".")[:2])
    return versions.CLUSTER_AUTOSCALER_IMAGE_TAGS.get(minor)


def _autoscaler_problems(checked: Mapping[str, Any], p: Problems) -> str | None:
    version = checked.get("kubernetes_version")
    if version is not None and not KUBERNETES_VERSION.match(version):
        p.add(("kubernetes_version",), f"'{version}' is not a Kubernetes version like '1.33'")
        return None
    tag = autoscaler_image_tag(version)
    if tag is None:
        p.add(
            ("kubernetes_version",),
            f"no pinned Cluster Autoscaler for {version} (its minor must match the cluster's); valid: "
            f"{', '.join(versions.CLUSTER_AUTOSCALER_IMAGE_TAGS)}",
        )
    iam = checked.get("iam", DEFAULT_AUTOSCALER_IAM)
    for key in ("oidc_provider_arn", "oidc_issuer"):
        if iam == AutoscalerIam.IRSA.value and checked.get(key) is None:
            p.add((key,), "required with {{iam}} irsa")
        elif iam != AutoscalerIam.IRSA.value and key in checked:
            p.add((key,), "only with {{iam}} irsa; remove it")
    if iam == AutoscalerIam.IRSA.value and "pod_identity_agent" in checked:
        p.add(("pod_identity_agent",), "only with {{iam}} pod-identity; remove it")
    return tag


def cluster_autoscaler_args(args: ClusterAutoscalerArgs) -> tuple[Mapping[str, Any], str]:
    """``ClusterAutoscaler``'s arguments checked, and the image tag for its Kubernetes version;
    ``ArgumentsError`` lists every problem."""
    p = Problems()
    checked = check_arguments(ClusterAutoscalerArgs, args, p)
    tag = _autoscaler_problems(checked, p) if checked is not None else None
    if checked is not None:
        checked["mirror"] = resolve_mirror(checked.get("mirror"), p.at("mirror"))
    p.raise_for_arguments()
    assert checked is not None and tag is not None
    return checked, tag


def efa_device_plugin_args(
    args: EfaDevicePluginArgs,
) -> tuple[list[GpuPool], Mapping[str, Any] | None, Mirror | None]:
    """``EfaDevicePlugin``'s arguments checked: at least one pool with ``efa``."""
    return fabric_addon_args(
        "eks",
        EfaDevicePluginArgs,
        args,
        lambda pool: pool.efa,
        "no pool sets efa: true; the plugin would run nowhere",
    )
