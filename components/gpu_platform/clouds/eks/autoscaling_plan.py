"""Plans of the EKS add-ons that make GPU pools usable: the Cluster Autoscaler and the EFA device plugin.

The Cluster Autoscaler (kubernetes/autoscaler ``cloudprovider/aws/README.md`` at cluster-autoscaler-1.35.0)
finds the node groups by their Auto Scaling group tags and learns what an empty group's nodes offer from
``node_template_tags`` (``clouds.eks.node_pool_plan``); its IAM is the README's full-feature policy, with the two
actions that change capacity limited to this cluster's groups. The EFA device plugin (aws/eks-charts)
advertises ``vpc.amazonaws.com/efa``; the node groups attach the interfaces (``clouds.eks.node_pool``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_platform import versions
from gpu_platform.cloud_facts.eks.profile import CA_TAG_PREFIX
from gpu_platform.clouds.eks.args import (
    AUTOSCALER_SERVICE_ACCOUNT,
    DEFAULT_AUTOSCALER_EXPANDER,
    DEFAULT_AUTOSCALER_IAM,
    DEFAULT_MAX_NODE_PROVISION_TIME,
    AutoscalerIam,
)
from gpu_platform.mirror import Mirror
from gpu_platform.plans.helm import deep_merge
from gpu_platform.plans.node_daemonsets import EFA_DEVICE_PLUGIN_REQUESTS
from gpu_platform.pools import GpuPool
from gpu_platform.scheduling import EFA_LABEL, node_agent_tolerations

DISCOVERY_TAGS = (f"{CA_TAG_PREFIX}/enabled", f"{CA_TAG_PREFIX}/{{cluster}}")
"""The chart's ``autoDiscovery.tags``: an Auto Scaling group with both keys is the autoscaler's."""
OWNED = "owned"
DESCRIBE_ACTIONS = (
    "autoscaling:DescribeAutoScalingGroups",
    "autoscaling:DescribeAutoScalingInstances",
    "autoscaling:DescribeLaunchConfigurations",
    "autoscaling:DescribeScalingActivities",
    "ec2:DescribeImages",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeLaunchTemplateVersions",
    "ec2:GetInstanceTypesFromInstanceRequirements",
    "eks:DescribeNodegroup",
)
SCALE_ACTIONS = ("autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup")


def discovery_tags(cluster_name: str) -> dict[str, str]:
    """The two tags auto-discovery looks for, put on every GPU node group's Auto Scaling group."""
    return {DISCOVERY_TAGS[0]: "true", DISCOVERY_TAGS[1].format(cluster=cluster_name): OWNED}


def autoscaler_policy(cluster_name: str) -> str:
    """The README's full-feature policy; capacity changes only on this cluster's Auto Scaling groups."""
    cluster_tag = DISCOVERY_TAGS[1].format(cluster=cluster_name)
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Action": list(DESCRIBE_ACTIONS), "Resource": "*"},
                {
                    "Effect": "Allow",
                    "Action": list(SCALE_ACTIONS),
                    "Resource": "*",
                    "Condition": {"StringEquals": {f"aws:ResourceTag/{cluster_tag}": OWNED}},
                },
            ],
        }
    )


def irsa_trust(provider_arn: str, issuer: str, namespace: str) -> str:
    """Only the autoscaler's service account may assume the role through the cluster's OIDC provider."""
    host = issuer.removeprefix("https://")
    condition = {
        f"{host}:sub": f"system:serviceaccount:{namespace}:{AUTOSCALER_SERVICE_ACCOUNT}",
        f"{host}:aud": "sts.amazonaws.com",
    }
    statement = {
        "Effect": "Allow",
        "Principal": {"Federated": provider_arn},
        "Action": "sts:AssumeRoleWithWebIdentity",
        "Condition": {"StringEquals": condition},
    }
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})


@dataclass(frozen=True)
class ClusterAutoscalerPlan:
    """Everything about the autoscaler except the values that are Outputs (cluster name, region, role)."""

    cluster_name: Any
    region: Any
    image_tag: str
    iam: str = DEFAULT_AUTOSCALER_IAM
    pod_identity_agent: bool = True
    oidc_provider_arn: Any = None
    oidc_issuer: Any = None
    node_selector: Mapping[str, str] = field(default_factory=dict)
    expander: str = DEFAULT_AUTOSCALER_EXPANDER
    max_node_provision_time: str = DEFAULT_MAX_NODE_PROVISION_TIME
    dynamic_resource_allocation: bool = False
    """A DRA pool exists: ``--enable-dynamic-resource-allocation`` (false by default in 1.34, locked on from
    1.35; FAQ flag table at cluster-autoscaler-1.35.0), without which pods with claims never grow a group."""
    user_values: Mapping[str, Any] = field(default_factory=dict)
    namespace: str = versions.CLUSTER_AUTOSCALER.namespace
    service_account: str = AUTOSCALER_SERVICE_ACCOUNT
    mirror: Mirror | None = None
    """Where the chart and its image come from instead of upstream."""


def cluster_autoscaler_values(plan: ClusterAutoscalerPlan, role_arn: Any = None) -> dict[str, Any]:
    """Chart values; the library's win over ``plan.user_values``.

    ``skip-nodes-with-local-storage`` stays true (upstream default, FAQ "What types of pods can prevent CA
    from removing a node?"): a job pod with an ``emptyDir`` (``/dev/shm`` for NCCL and PyTorch) keeps its
    node; DaemonSet and finished pods never do, so idle GPU nodes still go. The GPU groups' own
    scale-down options are Auto Scaling group tags (``node_pool_plan.scale_down_options``).
    """
    account: dict[str, Any] = {"create": True, "name": plan.service_account}
    if plan.iam == AutoscalerIam.IRSA.value:
        account["annotations"] = {"eks.amazonaws.com/role-arn": role_arn}
    ours: dict[str, Any] = {
        "cloudProvider": "aws",
        "awsRegion": plan.region,
        "autoDiscovery": {"clusterName": plan.cluster_name},
        "fullnameOverride": "cluster-autoscaler",
        "image": {
            "repository": versions.CLUSTER_AUTOSCALER_IMAGE_REPOSITORY,
            "tag": plan.image_tag,
        },
        "rbac": {"serviceAccount": account},
        "nodeSelector": dict(plan.node_selector),
        "extraArgs": {
            "expander": plan.expander,
            "max-node-provision-time": plan.max_node_provision_time,
            "skip-nodes-with-local-storage": True,
        },
    }
    if plan.dynamic_resource_allocation:
        ours["extraArgs"]["enable-dynamic-resource-allocation"] = True
    return deep_merge(plan.user_values, ours)


def cluster_autoscaler_plan(checked: Mapping[str, Any], image_tag: str) -> ClusterAutoscalerPlan:
    """The autoscaler from ``ClusterAutoscaler``'s checked arguments (``checks.cluster_autoscaler_args``)."""
    iam = checked.get("iam", DEFAULT_AUTOSCALER_IAM)
    return ClusterAutoscalerPlan(
        cluster_name=checked["cluster_name"],
        region=checked["region"],
        image_tag=image_tag,
        iam=iam,
        pod_identity_agent=iam == AutoscalerIam.POD_IDENTITY.value
        and checked.get("pod_identity_agent", True),
        oidc_provider_arn=checked.get("oidc_provider_arn"),
        oidc_issuer=checked.get("oidc_issuer"),
        node_selector=dict(checked.get("node_selector", {})),
        expander=checked.get("expander", DEFAULT_AUTOSCALER_EXPANDER),
        max_node_provision_time=checked.get("max_node_provision_time", DEFAULT_MAX_NODE_PROVISION_TIME),
        dynamic_resource_allocation=checked.get("dynamic_resource_allocation", False),
        user_values=dict(checked.get("values", {})),
        mirror=checked.get("mirror"),
    )


# --- EFA ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EfaDevicePluginPlan:
    pools: tuple[GpuPool, ...]
    """The EFA pools the plugin serves."""
    user_values: Mapping[str, Any] = field(default_factory=dict)
    namespace: str = versions.AWS_EFA_DEVICE_PLUGIN.namespace
    mirror: Mirror | None = None
    """Where the chart and its image come from instead of upstream."""

    @property
    def tolerations(self) -> list[dict[str, str]]:
        """Every taint of every EFA pool, the startup taint included (the chart tolerates only
        ``CriticalAddonsOnly``)."""
        out: list[dict[str, str]] = []
        for pool in self.pools:
            out += [t for t in node_agent_tolerations(pool) if t not in out]
        return out


def efa_device_plugin_values(plan: EfaDevicePluginPlan) -> dict[str, Any]:
    """On the EFA pools' nodes only (their label), tolerating their taints; the chart's own instance-type
    affinity stays as it is."""
    ours = {
        "image": {
            "repository": versions.AWS_EFA_DEVICE_PLUGIN_IMAGE_REPOSITORY,
            "tag": versions.AWS_EFA_DEVICE_PLUGIN_IMAGE_TAG,
        },
        "nodeSelector": {EFA_LABEL: "true"},
        "tolerations": plan.tolerations,
        # Kueue takes these off each EFA node's quota (plans.node_daemonsets).
        "resources": {"requests": EFA_DEVICE_PLUGIN_REQUESTS.quantities()},
    }
    return deep_merge(plan.user_values, ours)


def efa_device_plugin_plan(
    pools: Sequence[GpuPool], values: Mapping[str, Any] | None = None, mirror: Mirror | None = None
) -> EfaDevicePluginPlan:
    """The plugin for the EFA pools among ``pools`` (the stack's, or ``checks.efa_device_plugin_args``)."""
    return EfaDevicePluginPlan(tuple(p for p in pools if p.efa), dict(values or {}), mirror=mirror)
