"""Karpenter's ``karpenter.sh/v1`` NodePool for a GPU pool, shared by every cloud that runs Karpenter (EKS,
AKS Node Auto Provisioning); each cloud's node class and controller are in its folder
(``clouds/eks/karpenter_plan.py``, ``clouds/aks/nap_plan.py``).

Sources (tests/upstream/NEW_COMPONENTS_NOTES.md sections 7 and 8, files under tests/upstream/karpenter-*):
the getting-started CloudFormation template at v1.14.1 (node role, the six controller policies, the SQS
queue, its policy and the five EventBridge rules; reproduced statement for statement and compared with the
template by the tests), the chart's values.yaml, concepts/disruption.md, and the CRDs the objects are
validated against.

GPU NodePools:
- the pool's exact instance type (so Kueue's per-node capacity is what the nodes have), its capacity type,
  zones, the library's labels and taints (``gpu_platform.scheduling``), exactly what a managed pool gets;
- ``limits`` = ``max_nodes`` x the instance's cpu, memory and GPUs (Karpenter stops there);
- disruption: ``consolidationPolicy: WhenEmpty`` (a node running an admitted job is never consolidated),
  ``consolidateAfter`` 5m, one node at a time, ``expireAfter: Never`` by default (expiration ignores
  ``karpenter.sh/do-not-disrupt``), and pods of jobs carry ``karpenter.sh/do-not-disrupt: "true"``
  (``DO_NOT_DISRUPT``) against drift.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gpu_platform import scheduling
from gpu_platform.driver import DriverPlan
from gpu_platform.plans.node_pool_plan import NodePoolPlan, ensure_gpu_taint
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.disruption import Disruption
from gpu_platform.sharing import GPU_RESOURCE

NODEPOOL_API = "karpenter.sh/v1"
DO_NOT_DISRUPT = {"karpenter.sh/do-not-disrupt": "true"}
"""Pod annotation for jobs: Karpenter neither consolidates nor drifts a node running such a pod."""


# --- disruption ------------------------------------------------------------------------------------------


def disruption_spec(d: Disruption) -> dict[str, Any]:
    return {
        "consolidationPolicy": "WhenEmpty",
        "consolidateAfter": d.consolidate_after,
        "budgets": [dict(b) for b in d.budgets],
    }


# --- the NodePool shared by EKS and AKS NAP ------------------------------------------------------------------


def limits(pool: GpuPool) -> dict[str, str]:
    """``max_nodes`` x the instance's cpu, memory and GPUs: Karpenter launches no node past any of them."""
    assert pool.machine is not None
    n = pool.max_nodes
    return {
        "cpu": str(pool.machine.vcpus * n),
        "memory": f"{pool.machine.memory_gib * n}Gi",
        GPU_RESOURCE: str(pool.gpus_per_node * n),
    }


def requirement(key: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": "In", "values": list(values)}


def node_pool(
    plan: NodePoolPlan,
    node_class_ref: Mapping[str, str],
    requirements: Sequence[Mapping[str, Any]],
    disruption: Disruption,
) -> dict[str, Any]:
    """A ``karpenter.sh/v1`` NodePool carrying the pool's labels and taints (GPU taint first, always)."""
    ensure_gpu_taint(plan.taints)
    template_spec: dict[str, Any] = {
        "nodeClassRef": dict(node_class_ref),
        "requirements": [dict(r) for r in requirements],
        "taints": plan.taint_dicts,
        "expireAfter": disruption.expire_after,
    }
    if disruption.termination_grace_period:
        template_spec["terminationGracePeriod"] = disruption.termination_grace_period
    return {
        "apiVersion": NODEPOOL_API,
        "kind": "NodePool",
        "metadata": {"name": plan.pool.name, "labels": {"app.kubernetes.io/managed-by": "gpu-platform"}},
        "spec": {
            "template": {"metadata": {"labels": dict(plan.labels)}, "spec": template_spec},
            "disruption": disruption_spec(disruption),
            "limits": limits(plan.pool),
        },
    }


KARPENTER_CAPACITY_TYPE = {
    "on-demand": "on-demand",
    "spot": "spot",
    "reservation": "reserved",
    "capacity-block": "reserved",
}
"""A capacity source -> ``karpenter.sh/capacity-type``: ODCRs and Capacity Blocks are both ``reserved``
(the ``ReservedCapacity`` feature gate, on by default since Karpenter 1.6)."""


def capacity_types(pool: GpuPool) -> list[str]:
    """The pool's ``karpenter.sh/capacity-type`` values, in chain order without repeats. Karpenter does not
    follow the order: it launches reserved capacity first, then the cheapest of spot and on-demand."""
    out: list[str] = []
    for s in pool.sources:
        value = KARPENTER_CAPACITY_TYPE[s.source]
        if value not in out:
            out.append(value)
    return out


def capacity_type(pool: GpuPool) -> str:
    """The first of ``capacity_types`` (the pool's one capacity type when it has no chain)."""
    return capacity_types(pool)[0]


def pool_base(pool: GpuPool, driver: DriverPlan, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """Labels and taints exactly as the managed pool of the same cloud gets them."""
    taints = (*scheduling.pool_taints(pool), *scheduling.cloud_added_taints(pool))
    ensure_gpu_taint(taints)
    return {
        "pool": pool,
        "driver": driver,
        "labels": scheduling.pool_labels(pool, driver),
        "taints": taints,
        "inputs": dict(inputs),
    }


# --- EKS: per GPU pool -------------------------------------------------------------------------------------
