"""The GPU Operator in the stack: its plan from the spec and the metrics path's contribution, installed by its
Helm component or by the cloud's installer where the platform does not take the chart (OLM on OpenShift)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpu_platform.addons.gpu_operator.checks import ResolvedGpuOperator
from gpu_platform.addons.gpu_operator.plan import gpu_operator_plan
from gpu_platform.addons.requirement import Requirement, section_on
from gpu_platform.releases import GPU_OPERATOR

if TYPE_CHECKING:
    from gpu_platform.addons.deployment import Deployment
    from gpu_platform.addons.platform_spec import PlatformSpec


REQUIRES = (
    Requirement(
        ("sharing", "mode"),
        "gpu_operator.enabled",
        met=lambda s, pool: section_on(s, "gpu_operator", True),
        applies=lambda s, pool: (
            pool is not None
            and pool.sharing.mode not in ("none", "isolated")
            and pool.sharing.managed_by == "operator"
        ),
        reason=lambda s, pool: (
            f"'{pool.sharing.mode if pool else ''}' is configured through the GPU Operator, which "
            "{{gpu_operator.enabled}} false leaves out; enable it, or use cloud-managed sharing (managedBy: cloud)"
        ),
        per_pool=True,
    ),
)
"""Sharing through the operator's device plugin or MIG manager cannot happen with the operator off."""


def enabled(spec: PlatformSpec) -> bool:
    return spec.gpu_operator is not None


def deploy(d: Deployment) -> dict[str, Any]:
    from gpu_platform.addons.gpu_operator.component import GpuOperator

    spec = d.spec
    assert spec.gpu_operator is not None
    target = ResolvedGpuOperator(
        spec.cloud, spec.pools, spec.driver, spec.gpu_operator, GPU_OPERATOR.namespace, spec.mirror
    )
    plan = gpu_operator_plan(target, d.contributions.get("gpu_operator"), secret=d.secret("gpu_operator"))
    if (installer := d.installers.get("gpu_operator")) is not None:
        # OLM: the installer makes the counters ConfigMap the chart would template, and the ClusterPolicy names it.
        component = installer(GPU_OPERATOR.component_name, plan, d.opts)
    else:
        component = GpuOperator.from_plan(GPU_OPERATOR.component_name, plan, d.opts)
    d.created["gpu_operator"] = component
    return {"gpuOperatorStatus": component.status}
