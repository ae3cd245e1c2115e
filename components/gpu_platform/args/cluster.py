"""Cluster arguments: the untainted system pool and the stack file's ``cluster`` section; each cloud's cluster
component arguments are in ``clouds/<cloud>/args.py``.

No ``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

import enum
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, NotRequired, TypeAlias

from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform._moved import moved_attribute
from gpu_platform.args.autoscaling import EksAutoscalerValue
from gpu_platform.args.validate import ARGS_CONFIG

"""Default system-pool machine per cloud: 4 vCPU / 16 GiB class, enough for the operators."""
DEFAULT_SYSTEM_MIN_NODES = 1
DEFAULT_SYSTEM_MAX_NODES = 3
DEFAULT_VPC_CIDR = "10.0.0.0/16"
"""Network of a new cluster; nodes, services (and on GKE pods) are carved out of it."""
DEFAULT_GPU_NETWORK_CIDR = "192.168.0.0/16"
"""The range every GKE GPUDirect subnet of a cluster comes from unless the stack names another (Google's guides
and Cluster Toolkit ``examples/gke-a4``, ``examples/gke-a4x`` use it); ``cloud_facts.gke.gpudirect`` splits it."""
DEFAULT_AKS_OS_SKU = "Ubuntu"


class ReleaseChannel(enum.StrEnum):
    """GKE release channels."""

    RAPID = "RAPID"
    """Newest Kubernetes versions first, soon after their open-source release."""
    REGULAR = "REGULAR"
    """GKE's default: versions that have spent some time in RAPID."""
    STABLE = "STABLE"
    """Versions that have spent the longest time in REGULAR; upgrades come last."""


ReleaseChannelName = Literal["RAPID", "REGULAR", "STABLE"]
"""``ReleaseChannel``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    ReleaseChannelValue: TypeAlias = ReleaseChannel | ReleaseChannelName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    ReleaseChannelValue = ReleaseChannel


DEFAULT_RELEASE_CHANNEL = ReleaseChannel.REGULAR.value


@with_config(ARGS_CONFIG)
class SystemPoolArgs(TypedDict):
    """The untainted pool for operators (GPU Operator, Kueue, KServe controllers) and ordinary pods."""

    machine_type: NotRequired[str]
    """A CPU machine type; default: the cloud's (GKE ``e2-standard-4``, EKS ``m6i.large``, AKS
    ``Standard_D4s_v5``). GPU machine types are refused: that pool is not tainted."""
    min_nodes: NotRequired[int]
    """At least 1; default ``DEFAULT_SYSTEM_MIN_NODES`` (1)."""
    max_nodes: NotRequired[int]
    """Default ``DEFAULT_SYSTEM_MAX_NODES`` (3)."""


@with_config(ARGS_CONFIG)
class StackReferenceArgs(TypedDict):
    """Another stack's output holding a kubeconfig."""

    stack: str
    """Fully qualified stack name (``org/infra/prod``)."""
    output: NotRequired[str]
    """Output name; default ``kubeconfig``."""


DEFAULT_KUBECONFIG_OUTPUT = "kubeconfig"


@with_config(ARGS_CONFIG)
class ClusterConfigArgs(TypedDict):
    """The stack file's ``cluster``: create one, attach GPU pools to one by name, or use an existing one."""

    name: str
    """Cluster name: lowercase letters, digits and dashes, at most 40."""
    create: NotRequired[bool]
    """``true`` (default): create the cluster. ``false``: attach the GPU pools to a cluster made elsewhere."""
    region: NotRequired[str]
    """GKE location (required on GKE), AWS region or Azure location."""
    project: NotRequired[str]
    """GKE: the Google Cloud project; default: the provider's."""
    resource_group: NotRequired[str]
    """AKS: the resource group (required when attaching); default: a new ``<name>-rg``."""
    kubernetes_version: NotRequired[str]
    """``major.minor`` (``"1.33"``, quoted) or a full version; default: the cloud's default."""
    vpc_cidr: NotRequired[str]
    """Network of a new cluster; default ``DEFAULT_VPC_CIDR``. GKE and EKS need a /16 or larger, AKS a /20."""
    gpu_network_cidr: NotRequired[str]
    """GKE: the range the GPUDirect pools' extra VPCs take their subnets from; default
    ``DEFAULT_GPU_NETWORK_CIDR``. A private /24 or larger, apart from
    ``vpc_cidr`` (the cluster's nodes, Pods and Services). Changing it replaces the GPU subnets."""
    proxy_subnet_cidr: NotRequired[str]
    """GKE, a cluster the stack creates, serving through GKE's managed inference Gateway: the range of the
    proxy-only subnet (``REGIONAL_MANAGED_PROXY``) its regional load balancers need; default the /23 after the
    node and Service ranges in ``vpc_cidr`` (``10.0.32.0/23`` for the default). A private /26 or larger outside
    the cluster's node, Service and Pod ranges."""
    zones: NotRequired[Sequence[str]]
    """EKS: the VPC's zones, two to six; each gets a private and a public subnet keyed by its name and a
    CIDR slot by its position, so only append. Required when pools name zones (they must be among them);
    default: the region's first three available zones. Pool edits never move subnets."""
    disposable: NotRequired[bool]
    """The stack may be destroyed at any time (dev): nothing is protected from deletion. Default false:
    clusters, networks and node pools are protected (Pulumi ``protect``); unprotect one on purpose with
    ``pulumi state unprotect`` or by setting this."""
    system_pool: NotRequired[SystemPoolArgs]
    """The untainted pool for operators and ordinary pods."""
    kubeconfig: NotRequired[str]
    """Existing or attached clusters: the kubeconfig, as a ``secure:`` value."""
    kubeconfig_stack_reference: NotRequired[StackReferenceArgs]
    """Existing or attached clusters: read the kubeconfig from another stack's output instead."""
    existing_node_role_arn: NotRequired[str]
    """EKS attach mode: IAM role of the GPU node groups (required there)."""
    existing_subnet_ids: NotRequired[Sequence[str]]
    """EKS attach mode: private subnets of the GPU node groups (required there). EFA pools use the first one
    only: their cluster placement group is in one zone."""
    existing_security_group_ids: NotRequired[Sequence[str]]
    """EKS attach mode with EFA pools (required there): the security groups of every EFA interface. EFA needs
    one that allows all traffic to and from itself; the EKS cluster security group does
    (``aws eks describe-cluster --query cluster.resourcesVpcConfig.clusterSecurityGroupId``), and it also lets
    the nodes reach the control plane, which a launch template with its own interfaces otherwise loses."""
    autoscaler: NotRequired[EksAutoscalerValue]
    """EKS: what grows the GPU pools. ``cluster-autoscaler`` (default when the stack creates the cluster:
    the Kubernetes Cluster Autoscaler with Pod Identity, on the system pool, over managed node groups),
    ``karpenter`` (the GPU pools become Karpenter NodePools; created clusters only) or ``none`` (default
    when attaching to a cluster made elsewhere, whose owner runs one; the GPU node groups still carry the
    tags it needs to scale them from zero). GKE and AKS scale node pools with their own autoscaler."""
    pod_identity_agent: NotRequired[bool]
    """EKS: install the ``eks-pod-identity-agent`` add-on the autoscaler's (or Karpenter's) credentials come
    through (default true); false when the cluster already has it."""


def __getattr__(name: str) -> object:
    # Names that moved to a cloud's folder still resolve here, with a warning, for one minor release.
    return moved_attribute(__name__, name)
