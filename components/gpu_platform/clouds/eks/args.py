"""EKS's component arguments: the cluster, its GPU node groups, Karpenter, the Cluster Autoscaler and the EFA device plugin.

No ``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

import enum
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypeAlias

from pulumi import Input
from typing_extensions import TypedDict

from gpu_platform import versions
from gpu_platform.args.autoprovisioning import AutoProvisionedPoolArgs, KarpenterDisruptionArgs
from gpu_platform.args.cluster import SystemPoolArgs
from gpu_platform.args.mirror import MirrorArgs
from gpu_platform.args.node_pool_component import GpuNodePoolArgs
from gpu_platform.args.pool import GpuPoolArgs


class EksClusterArgs(TypedDict):
    """An EKS cluster with its VPC for GPU node groups (``EksCluster``)."""

    kubernetes_version: NotRequired[Input[str]]
    """Control-plane version; default: EKS's default."""
    region: NotRequired[str]
    """Passed to ``aws eks get-token`` in the kubeconfig; default: the caller's AWS configuration."""
    vpc_cidr: NotRequired[str]
    """A /16 or larger; default ``DEFAULT_VPC_CIDR``: one private /19 per zone for nodes, one public /22
    per zone for NAT and load balancers."""
    availability_zones: NotRequired[Sequence[str]]
    """Two to seven zones; default: the region's first available zones (up to three)."""
    public_access_cidrs: NotRequired[Input[Sequence[Input[str]]]]
    """CIDRs allowed to reach the public API endpoint; default: any (authenticated) client. May be an Output
    (a NAT gateway's address): it only fills the control plane's ``public_access_cidrs``."""
    karpenter_discovery: NotRequired[bool]
    """Tag the private subnets and the cluster security group ``karpenter.sh/discovery=<name>`` for
    ``EksKarpenter`` (then give it ``tag_discovery: false``); default false."""
    system_pool: NotRequired[SystemPoolArgs]
    """The untainted node group for operators."""
    protect: NotRequired[bool]
    """Protect the network, the control plane and the system pool from deletion (Pulumi ``protect``);
    default true. Set false for disposable stacks (dev), or before removing the cluster on purpose."""


class EksGpuNodePoolArgs(GpuNodePoolArgs):
    """A tainted EKS managed node group for GPUs (``EksGpuNodePool``)."""

    cluster_name: Input[str]
    """Name of the EKS cluster (``EksCluster.cluster_name`` or one made elsewhere)."""
    node_role_arn: Input[str]
    """IAM role of the nodes (worker node, ECR read-only and CNI policies)."""
    subnet_ids: Input[Sequence[Input[str]]]
    """Private subnets for the nodes; they decide the zones. EFA pools need subnets in one zone."""
    security_group_ids: NotRequired[Input[Sequence[Input[str]]]]
    """Required with ``pool.efa``: security groups of the EFA interfaces, normally the cluster security
    group (it allows all traffic between its members, which EFA needs)."""
    node_repair: NotRequired[bool]
    """EKS node auto repair on the node group (``nodeRepairConfig``): EKS reboots or replaces nodes whose
    conditions the node monitoring agent add-on marks unhealthy (``AcceleratedHardwareReady`` for GPUs).
    Default false here; the stack turns it on with ``observability.nodeAutoRepair``."""


DEFAULT_AMI_VERSION = versions.EKS_AL2023_AMI_RELEASE
"""Alias version of the EKS-optimized AL2023 AMI, pinned: ``latest`` would drift every GPU node to each new AMI
release (a voluntary disruption Karpenter starts on AWS's schedule, held back only by budgets and
``karpenter.sh/do-not-disrupt`` pods; Karpenter docs, EC2NodeClass ``amiSelectorTerms``). Bottlerocket pools name
their release (``ami_version``)."""


DISCOVERY_TAG = "karpenter.sh/discovery"
"""Tag on the subnets and security groups EC2NodeClasses select (Karpenter getting-started)."""


class EksKarpenterArgs(TypedDict):
    """Karpenter on EKS with its IAM, interruption queue and discovery tags (``EksKarpenter``)."""

    cluster_name: Input[str]
    """Name of the EKS cluster (``EksCluster.cluster_name``)."""
    subnet_ids: Sequence[Input[str]]
    """Private node subnets Karpenter may launch into; tagged ``karpenter.sh/discovery=<cluster>``."""
    security_group_ids: Sequence[Input[str]]
    """Security groups of the nodes (the EKS cluster security group); tagged the same way."""
    system_node_group: NotRequired[str]
    """Managed node group that runs the controller (``system`` for ``EksCluster``): its pods require
    ``eks.amazonaws.com/nodegroup`` in it, besides the chart's ``karpenter.sh/nodepool DoesNotExist``."""
    replicas: NotRequired[int]
    """Controller replicas, 1 to 3; default ``DEFAULT_KARPENTER_REPLICAS``. Each needs its own system node."""
    pod_identity_agent: NotRequired[bool]
    """Install the ``eks-pod-identity-agent`` add-on (default true); false when the cluster has it."""
    tag_discovery: NotRequired[bool]
    """Tag ``subnet_ids``/``security_group_ids`` with ``karpenter.sh/discovery`` (default true); false when
    they are tagged elsewhere."""
    namespace: NotRequired[str]
    """Default ``versions.KARPENTER.namespace`` (``kube-system``, Karpenter's getting-started)."""
    values: NotRequired[Mapping[str, Any]]
    """Escape hatch: ``karpenter`` chart values under the library's typed ones."""
    mirror: NotRequired[MirrorArgs]
    """Pull the charts and the controller's images from a mirror; default: upstream."""


class EksKarpenterGpuNodePoolArgs(AutoProvisionedPoolArgs):
    """A Karpenter ``NodePool`` + ``EC2NodeClass`` for one GPU pool (``EksKarpenterGpuNodePool``)."""

    node_role_name: Input[str]
    """IAM role of the nodes (``EksKarpenter.node_role_name``); Karpenter manages its instance profiles."""
    discovery: Input[str]
    """Value of the ``karpenter.sh/discovery`` tag on subnets and security groups (the cluster name)."""
    ami_version: NotRequired[str]
    """Alias version of the EKS-optimized NVIDIA AMI (``v20260714``; ``latest`` follows every release, drifting
    the nodes). Default for AL2023: the library's pin (``versions.EKS_AL2023_AMI_RELEASE``); Bottlerocket pools
    must set it (a Bottlerocket release such as ``v1.40.0``)."""
    disruption: NotRequired[KarpenterDisruptionArgs]
    """Disruption settings safe for GPU jobs by default."""


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
    mirror: NotRequired[MirrorArgs]
    """Pull the chart and its image from a mirror; default: upstream."""


class EfaDevicePluginArgs(TypedDict):
    """The AWS EFA Kubernetes device plugin (``EfaDevicePlugin``): advertises ``vpc.amazonaws.com/efa`` on the
    EFA pools' nodes, so pods can request the interfaces and NCCL uses them instead of TCP."""

    pools: Sequence[GpuPoolArgs]
    """The cluster's GPU pools, exactly as given to the node pools; the plugin runs on those with ``efa``
    (their label ``gpu-platform.io/efa``) and tolerates their taints."""
    values: NotRequired[Mapping[str, Any]]
    """Escape hatch: extra ``aws-efa-k8s-device-plugin`` chart values under the library's typed ones."""
    mirror: NotRequired[MirrorArgs]
    """Pull the chart and its image from a mirror; default: upstream."""
