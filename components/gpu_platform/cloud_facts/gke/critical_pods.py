"""GKE admits pods of the ``system-node-critical`` and ``system-cluster-critical`` priority classes outside
``kube-system`` only in a namespace with a ResourceQuota scoped to those classes (GKE "Resource quotas";
NVIDIA's GKE guide ships ``google-gke-gpu-operator-quota.yaml``, https://docs.nvidia.com/datacenter/cloud-native/
gpu-operator/latest/google-gke.html). The GPU Operator's operands run at ``system-node-critical``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpu_platform.pools import GpuPool

GKE_CRITICAL_PRIORITY_CLASSES = ("system-node-critical", "system-cluster-critical")
GKE_QUOTA_NAME = "gpu-operator-quota"
GKE_QUOTA_BASE_PODS = 100
"""NVIDIA's GKE example quota; the library adds room for the operand pods of every GPU node."""
GKE_QUOTA_PODS_PER_GPU_NODE = 10
"""Running critical-priority pods per GPU node: driver/toolkit/plugin/GFD/DCGM/MIG manager/validator/NFD."""


def gke_resource_quota_spec(pools: Sequence[GpuPool]) -> dict[str, Any]:
    """The quota's spec: room for NVIDIA's base and the operands of every node the pools may grow to."""
    pods = GKE_QUOTA_BASE_PODS + GKE_QUOTA_PODS_PER_GPU_NODE * sum(p.max_nodes for p in pools)
    return {
        "hard": {"pods": str(pods)},
        "scopeSelector": {
            "matchExpressions": [
                {
                    "operator": "In",
                    "scopeName": "PriorityClass",
                    "values": list(GKE_CRITICAL_PRIORITY_CLASSES),
                }
            ]
        },
    }
