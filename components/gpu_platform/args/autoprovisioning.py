"""Node auto-provisioning: Karpenter on EKS, custom ComputeClasses on GKE, Node Auto Provisioning on AKS.

Each GPU pool becomes what the cloud's auto-provisioner scales from zero, with the labels and taints a
managed pool of the library would carry (``gpu_platform.scheduling``), so the GPU Operator, Kueue flavors
and KServe placement work unchanged. No ``from __future__ import annotations``: Pulumi's component analyzer
needs real annotations.
"""

import enum
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypeAlias

from pulumi import Input
from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform.args.common import DriverArgs
from gpu_platform.args.pool import GpuPoolArgs
from gpu_platform.args.validate import ARGS_CONFIG

DEFAULT_CONSOLIDATE_AFTER = "5m"
"""How long a GPU node must be empty before Karpenter removes it (GPU nodes are expensive idle, slow to
come back: minutes, not seconds)."""
DEFAULT_EXPIRE_AFTER = "Never"
"""Karpenter's default is 720h, and expiration ignores ``karpenter.sh/do-not-disrupt`` (concepts/disruption.md):
a month-long training job would be drained. Set a duration together with ``termination_grace_period``."""
DEFAULT_BUDGET_NODES = "1"
"""At most one GPU node of the pool voluntarily disrupted at a time (empty-node removal, drift)."""
DEFAULT_KARPENTER_REPLICAS = 2
"""The chart's default; each replica needs its own non-Karpenter node (required anti-affinity)."""
DEFAULT_AMI_VERSION = "latest"
"""Alias version of the EKS-optimized AMI. ``latest`` drifts every node to each new AMI release (a voluntary
disruption, held back by budgets and ``karpenter.sh/do-not-disrupt`` pods); pin e.g. ``v20260801`` in
production (Karpenter docs, EC2NodeClass ``amiSelectorTerms``)."""
DISCOVERY_TAG = "karpenter.sh/discovery"
"""Tag on the subnets and security groups EC2NodeClasses select (Karpenter getting-started)."""


class DisruptionReason(enum.StrEnum):
    """Reasons a Karpenter budget can be limited to (``karpenter.sh/v1`` NodePool ``budgets[].reasons``)."""

    UNDERUTILIZED = "Underutilized"
    """Nodes whose pods would fit elsewhere (consolidation)."""
    EMPTY = "Empty"
    """Nodes running no pods but DaemonSets."""
    DRIFTED = "Drifted"
    """Nodes that no longer match their NodePool or NodeClass (a new AMI, changed requirements)."""


DisruptionReasonName = Literal["Underutilized", "Empty", "Drifted"]
"""``DisruptionReason``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    DisruptionReasonValue: TypeAlias = DisruptionReason | DisruptionReasonName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    DisruptionReasonValue = DisruptionReason


@with_config(ARGS_CONFIG)
class BudgetArgs(TypedDict):
    """One Karpenter disruption budget (https://karpenter.sh/docs/concepts/disruption/#disruption-budgets)."""

    nodes: str
    """Nodes (``"1"``) or a percentage (``"10%"``) that may be disrupted at once; ``"0"`` forbids it."""
    reasons: NotRequired[Sequence[DisruptionReasonValue]]
    """Only for these reasons; default: all."""
    schedule: NotRequired[str]
    """Cron schedule (UTC) when the budget applies; needs ``duration``."""
    duration: NotRequired[str]
    """How long from each ``schedule`` start (``"8h"``); needs ``schedule``."""


@with_config(ARGS_CONFIG)
class KarpenterDisruptionArgs(TypedDict):
    """How Karpenter may take GPU nodes away. Consolidation is always ``WhenEmpty``: a node running an
    admitted job is never consolidated; training pods should also carry ``karpenter.sh/do-not-disrupt: "true"``
    (it blocks drift and consolidation, not expiration or spot interruption)."""

    consolidate_after: NotRequired[str]
    """Empty time before removal (``"5m"``, ``"1h"``, ``"Never"``); default ``DEFAULT_CONSOLIDATE_AFTER``."""
    expire_after: NotRequired[str]
    """Node lifetime (``"720h"``) or ``"Never"`` (default ``DEFAULT_EXPIRE_AFTER``)."""
    termination_grace_period: NotRequired[str]
    """Upper bound on draining a disrupted node (``"24h"``), also for ``do-not-disrupt`` pods; default: none."""
    budgets: NotRequired[Sequence[BudgetArgs]]
    """Default: one budget of ``DEFAULT_BUDGET_NODES`` node."""


class AutoProvisionedPoolArgs(TypedDict):
    """What every cloud's auto-provisioned GPU pool takes."""

    pool: GpuPoolArgs
    """The pool, exactly as a ``gpuPools`` entry of the stack file (its keys snake_case in Python)."""
    driver: NotRequired[DriverArgs]
    """Who installs the driver; must be what the GPU Operator is given."""
    operator_version: NotRequired[str]
    """GPU Operator chart version (default ``versions.GPU_OPERATOR``), for the driver it installs."""
    cuda_version: NotRequired[str]
    """CUDA ``major.minor`` of the images, for a pool without its own ``cuda_version``."""


# --- EKS: Karpenter -------------------------------------------------------------------------------------


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


class EksKarpenterGpuNodePoolArgs(AutoProvisionedPoolArgs):
    """A Karpenter ``NodePool`` + ``EC2NodeClass`` for one GPU pool (``EksKarpenterGpuNodePool``)."""

    node_role_name: Input[str]
    """IAM role of the nodes (``EksKarpenter.node_role_name``); Karpenter manages its instance profiles."""
    discovery: Input[str]
    """Value of the ``karpenter.sh/discovery`` tag on subnets and security groups (the cluster name)."""
    ami_version: NotRequired[str]
    """Alias version of the EKS-optimized NVIDIA AMI (``v20260801``); default ``DEFAULT_AMI_VERSION``."""
    disruption: NotRequired[KarpenterDisruptionArgs]
    """Disruption settings safe for GPU jobs by default."""


# --- AKS: Node Auto Provisioning --------------------------------------------------------------------------


class AksNapGpuNodePoolArgs(AutoProvisionedPoolArgs):
    """An AKS Node Auto Provisioning ``NodePool`` + ``AKSNodeClass`` for one GPU pool (``AksNapGpuNodePool``)."""

    vnet_subnet_id: NotRequired[Input[str]]
    """Subnet of the nodes; default: the cluster's (NAP's ``--vnet-subnet-id``)."""
    disruption: NotRequired[KarpenterDisruptionArgs]
    """Disruption settings safe for GPU jobs by default."""


# --- GKE: custom ComputeClass ---------------------------------------------------------------------------


class GkeDriverVersion(enum.StrEnum):
    """ComputeClass ``priorities[].gpu.driverVersion``."""

    DEFAULT = "default"
    """GKE's default driver for the node version."""
    LATEST = "latest"
    """The newest driver GKE offers for the node version."""


GkeDriverVersionName = Literal["default", "latest"]
"""``GkeDriverVersion``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    GkeDriverVersionValue: TypeAlias = GkeDriverVersion | GkeDriverVersionName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    GkeDriverVersionValue = GkeDriverVersion


class GkeGpuComputeClassArgs(AutoProvisionedPoolArgs):
    """A GKE custom ComputeClass that auto-creates one GPU pool's node pools (``GkeGpuComputeClass``)."""

    gpu_driver_version: NotRequired[GkeDriverVersionValue]
    """GKE's driver on the auto-created pools: ``default`` (default) or ``latest``."""
