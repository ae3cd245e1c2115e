"""Reading a Kubernetes workload object (a DaemonSet, a Deployment): where its pods may be scheduled."""

from __future__ import annotations

from typing import Any


def node_selector_terms(workload: dict[str, Any]) -> list[dict[str, Any]]:
    """The pod template's required node affinity terms (any one of them must match a node)."""
    return list(
        workload["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
            "requiredDuringSchedulingIgnoredDuringExecution"
        ]["nodeSelectorTerms"]
    )


def node_affinity(workload: dict[str, Any]) -> list[dict[str, Any]]:
    """The match expressions of the pod template's one required node affinity term."""
    (term,) = node_selector_terms(workload)
    return list(term["matchExpressions"])
