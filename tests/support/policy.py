"""Resources as the policy rules see them (``PolicyResource``), built by hand, and the one violation a rule
reports."""

from __future__ import annotations

from typing import Any

from gpu_platform.policy import PolicyResource, Violation

GPU_TAINT_GKE = {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}


def res(type_: str, props: dict[str, Any], name: str = "r", ignore: tuple[str, ...] = ()) -> PolicyResource:
    return PolicyResource(
        type_, name, f"urn:pulumi:test::p::{type_}::{name}", props, {"ignoreChanges": list(ignore)}
    )


def eks_group(
    name: str = "gpu",
    taints: Any = (GPU_TAINT_GKE,),
    ami: str = "AL2023_x86_64_NVIDIA",
    instance: str = "g6e.xlarge",
    labels: dict[str, str] | None = None,
    scaling: tuple[int, int, int] = (0, 2, 0),
    ignore: tuple[str, ...] = ("scalingConfig.desiredSize",),
) -> PolicyResource:
    lo, hi, desired = scaling
    props = {
        "clusterName": "c",
        "amiType": ami,
        "instanceTypes": [instance],
        "taints": list(taints),
        "labels": labels or {},
        "scalingConfig": {"minSize": lo, "maxSize": hi, "desiredSize": desired},
    }
    return res("aws:eks/nodeGroup:NodeGroup", props, name, ignore)


def only(violations: list[Violation], policy: str) -> Violation:
    assert len(violations) == 1, violations
    assert violations[0].policy == policy
    return violations[0]
