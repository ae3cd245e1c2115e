"""The NVIDIA DRA driver in the stack: after the GPU Operator (NFD labels, driver, toolkit) and Kueue's release
(not its every queue); each claim template after its own namespace."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpu_platform.addons.dra.checks import ResolvedDra
from gpu_platform.addons.dra.plan import dra_plan
from gpu_platform.addons.requirement import Requirement, section_on
from gpu_platform.releases import DRA_DRIVER

if TYPE_CHECKING:
    from gpu_platform.addons.deployment import Deployment
    from gpu_platform.addons.platform_spec import PlatformSpec


REQUIRES = (
    Requirement(
        ("dra", "enabled"),
        "gpu_operator.enabled",
        met=lambda s: section_on(s, "gpu_operator", True),
        applies=lambda s, pool: section_on(s, "dra", False),
        reason=lambda pool: (
            "needs {{gpu_operator.enabled}}: the operator's NFD labels place the DRA plugin and its per-node "
            "labels keep its device plugin off the DRA nodes"
        ),
    ),
)


def enabled(spec: PlatformSpec) -> bool:
    return spec.dra is not None


def deploy(d: Deployment) -> dict[str, Any]:
    from gpu_platform.addons.dra.component import DraDriver

    spec = d.spec
    assert spec.dra is not None and spec.cluster.kubernetes_version is not None
    resolved = ResolvedDra(
        spec.cloud, spec.pools, spec.driver, spec.cluster.kubernetes_version, spec.dra, DRA_DRIVER.namespace
    )
    plan = dra_plan(resolved, secret=d.secret("dra"))
    after = d.after("gpu_operator")
    if (kueue := d.created.get("kueue")) is not None:
        after.append(kueue.release)
    component = DraDriver.in_namespaces(
        DRA_DRIVER.component_name, plan, d.namespaces, d.with_dependencies(after)
    )
    d.created["dra"] = component
    return {"draDeviceClasses": component.device_classes, "draClaimTemplates": component.claim_templates}
