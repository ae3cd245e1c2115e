"""EKS node autoscaling and networking add-ons: the Kubernetes Cluster Autoscaler and the EFA device plugin.

EKS scales nothing by itself: managed node groups only move when something sets their desired size. GKE
and AKS run their own cluster autoscaler for node pools with autoscaling on. No ``from __future__ import
annotations``: Pulumi's component analyzer needs real annotations.
"""

import enum
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypeAlias

from pulumi import Input
from typing_extensions import TypedDict

from gpu_platform.args.pool import GpuPoolArgs


class EksAutoscaler(enum.StrEnum):
    """What grows and shrinks the EKS node groups (``cluster.autoscaler``)."""

    CLUSTER_AUTOSCALER = "cluster-autoscaler"
    """The Kubernetes Cluster Autoscaler, installed by the library (``ClusterAutoscaler``)."""
    KARPENTER = "karpenter"
    """Karpenter (``EksKarpenter``): every GPU pool is a Karpenter ``NodePool`` + ``EC2NodeClass`` with the labels
    and taints a managed node group would carry, scaled from zero for pending pods. Only for clusters the
    stack creates (it tags their subnets and security group for discovery); pools Karpenter cannot serve
    (EFA, operator-managed sharing, DRA, ``minNodes`` > 0) are refused."""
    NONE = "none"
    """Nothing is installed: the cluster's owner runs an autoscaler. The GPU node groups still carry the
    tags it needs to scale them from zero."""


EksAutoscalerName = Literal["cluster-autoscaler", "karpenter", "none"]
"""``EksAutoscaler``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    EksAutoscalerValue: TypeAlias = EksAutoscaler | EksAutoscalerName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    EksAutoscalerValue = EksAutoscaler


class AutoscalerIam(enum.StrEnum):
    """How the autoscaler's pod gets AWS credentials."""

    POD_IDENTITY = "pod-identity"
    """EKS Pod Identity (an association of the service account with the role; AWS's recommended path)."""
    IRSA = "irsa"
    """IAM roles for service accounts: the cluster's OIDC provider and a role annotation."""


AutoscalerIamName = Literal["pod-identity", "irsa"]
"""``AutoscalerIam``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    AutoscalerIamValue: TypeAlias = AutoscalerIam | AutoscalerIamName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    AutoscalerIamValue = AutoscalerIam


DEFAULT_AUTOSCALER_IAM = AutoscalerIam.POD_IDENTITY.value
AUTOSCALER_SERVICE_ACCOUNT = "cluster-autoscaler"
"""Service account of the autoscaler (fixed so the IAM trust can name it)."""
DEFAULT_AUTOSCALER_EXPANDER = "least-waste"
"""Of the node groups that fit a pending pod, grow the one that leaves the least idle CPU and memory."""
DEFAULT_MAX_NODE_PROVISION_TIME = "25m"
"""How long a new node may take to become ready before the autoscaler gives up on it (upstream default
15m). A GPU node boots, starts the driver and device plugin and, with MIG, reboots once: 15 minutes is
too short for a p5."""


class ClusterAutoscalerArgs(TypedDict):
    """The Kubernetes Cluster Autoscaler on EKS (``ClusterAutoscaler``): its IAM role, the pinned chart with
    auto-discovery of every node group tagged for the cluster, on the system pool."""

    cluster_name: Input[str]
    """Name of the EKS cluster; auto-discovery finds Auto Scaling groups tagged
    ``k8s.io/cluster-autoscaler/enabled`` and ``k8s.io/cluster-autoscaler/<cluster_name>``."""
    region: Input[str]
    """AWS region of the cluster (the chart's ``awsRegion``)."""
    kubernetes_version: NotRequired[str]
    """The cluster's ``major.minor`` (``"1.33"``); picks the autoscaler image of the same minor (see
    ``versions.CLUSTER_AUTOSCALER_IMAGE_TAGS``). Default: the chart's own minor."""
    iam: NotRequired[AutoscalerIamValue]
    """``pod-identity`` (default) or ``irsa``."""
    pod_identity_agent: NotRequired[bool]
    """Install the ``eks-pod-identity-agent`` add-on (default true with ``pod-identity``); false when the
    cluster already has it."""
    oidc_provider_arn: NotRequired[Input[str]]
    """IRSA only: ARN of the cluster's IAM OIDC provider (``EksCluster.oidc_provider_arn``)."""
    oidc_issuer: NotRequired[Input[str]]
    """IRSA only: the cluster's OIDC issuer URL (``https://oidc.eks.<region>.amazonaws.com/id/...``)."""
    node_selector: NotRequired[Mapping[str, str]]
    """Where the autoscaler runs: the system pool (for ``EksCluster``,
    ``{"eks.amazonaws.com/nodegroup": <system node group name>}``). Default: anywhere untainted."""
    expander: NotRequired[str]
    """Which node group grows when several fit; default ``DEFAULT_AUTOSCALER_EXPANDER``."""
    max_node_provision_time: NotRequired[str]
    """Default ``DEFAULT_MAX_NODE_PROVISION_TIME``."""
    dynamic_resource_allocation: NotRequired[bool]
    """True when a node group serves DRA claims: sets ``--enable-dynamic-resource-allocation`` (off by default
    in the 1.34 autoscaler, so pods with claims would never grow a group). Default false."""
    values: NotRequired[Mapping[str, Any]]
    """Escape hatch: extra ``cluster-autoscaler`` chart values under the library's typed ones."""


class EfaDevicePluginArgs(TypedDict):
    """The AWS EFA Kubernetes device plugin (``EfaDevicePlugin``): advertises ``vpc.amazonaws.com/efa`` on the
    EFA pools' nodes, so pods can request the interfaces and NCCL uses them instead of TCP."""

    pools: Sequence[GpuPoolArgs]
    """The cluster's GPU pools, exactly as given to the node pools; the plugin runs on those with ``efa``
    (their label ``gpu-platform.io/efa``) and tolerates their taints."""
    values: NotRequired[Mapping[str, Any]]
    """Escape hatch: extra ``aws-efa-k8s-device-plugin`` chart values under the library's typed ones."""
