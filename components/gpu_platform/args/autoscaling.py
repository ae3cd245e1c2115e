"""What grows the EKS GPU pools (the stack file's ``cluster.autoscaler``); the Cluster Autoscaler's and the EFA
device plugin's component arguments are in ``clouds/eks/args.py``.

EKS scales nothing by itself: managed node groups only move when something sets their desired size. GKE
and AKS run their own cluster autoscaler for node pools with autoscaling on. No ``from __future__ import
annotations``: Pulumi's component analyzer needs real annotations.
"""

import enum
from typing import TYPE_CHECKING, Literal, TypeAlias

from gpu_platform._moved import moved_attribute


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


def __getattr__(name: str) -> object:
    # Names that moved to a cloud's folder still resolve here, with a warning, for one minor release.
    return moved_attribute(__name__, name)
