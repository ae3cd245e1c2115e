"""Node auto-provisioning: what Karpenter on EKS, custom ComputeClasses on GKE and Node Auto Provisioning on
AKS share (each cloud's component arguments are in ``clouds/<cloud>/args.py``).

Each GPU pool becomes what the cloud's auto-provisioner scales from zero, with the labels and taints a
managed pool of the library would carry (``gpu_platform.scheduling``), so the GPU Operator, Kueue flavors
and KServe placement work unchanged. No ``from __future__ import annotations``: Pulumi's component analyzer
needs real annotations.
"""

import enum
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, NotRequired, TypeAlias

from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform._moved import moved_attribute
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


def __getattr__(name: str) -> object:
    # Names that moved to a cloud's folder still resolve here, with a warning, for one minor release.
    return moved_attribute(__name__, name)
