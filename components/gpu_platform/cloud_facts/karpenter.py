"""What ``gpu-platform diff`` flags in Karpenter's objects on the clouds that run it (EKS, and AKS's node
auto-provisioning), shared by their facts (``gpu_platform.diff_rule``).

Deleting a NodePool or node class makes Karpenter terminate the nodes it launched for it. A node whose NodePool
``spec.template`` or node class ``spec`` no longer matches what it was launched from is drifted, and Karpenter
replaces it within the pool's disruption budget, evicting pods that do not carry ``karpenter.sh/do-not-disrupt``
(Karpenter docs, "Disruption": Drift).
"""

from __future__ import annotations

from gpu_platform.diff_rule import DiffRule, changes, gone, kind

DRIFT = (
    "Karpenter replaces every node of the pools that use it (drift), evicting pods that do not carry "
    "karpenter.sh/do-not-disrupt (docs/autoscaling.md)"
)


def node_class_rules(group: str, name: str) -> tuple[DiffRule, ...]:
    """A cloud's Karpenter node class: going terminates its nodes, a new spec drifts them."""
    return (
        gone(
            kind(group, name),
            "removes nodes",
            f"Karpenter terminates every node it launched for this {name}, and the GPU pods on them",
        ),
        changes(
            kind(group, name),
            "replaces nodes",
            f"a new {name} spec (node image, disks, kubelet, ...): {DRIFT}",
            "spec",
        ),
    )


NODE_POOL_RULES: tuple[DiffRule, ...] = (
    gone(
        kind("karpenter.sh", "NodePool"),
        "removes nodes",
        "Karpenter terminates every node it launched for this NodePool, and the GPU pods on them",
    ),
    changes(kind("karpenter.sh", "NodePool"), "replaces nodes", DRIFT, "spec.template"),
)
