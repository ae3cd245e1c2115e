"""HAMi in the stack: on when a pool is isolated, after the GPU Operator whose toolkit its device plugin needs. Its
metrics are scraped by the observability add-on's own objects (``addons.observability.plan.hami_scrape_objects``),
so the chart's ServiceMonitors stay off."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpu_platform.addons.hami.plan import ISOLATED, hami_plan, isolated_pools
from gpu_platform.addons.requirement import Requirement, section_on
from gpu_platform.releases import HAMI

if TYPE_CHECKING:
    from gpu_platform.addons.deployment import Deployment
    from gpu_platform.addons.platform_spec import PlatformSpec

REQUIRES = (
    Requirement(
        ("sharing", "mode"),
        "gpu_operator.enabled",
        met=lambda s, pool: section_on(s, "gpu_operator", True),
        applies=lambda s, pool: pool is not None and pool.sharing.mode == ISOLATED,
        reason=lambda s, pool: (
            "'isolated' runs HAMi's device plugin on the GPU Operator's driver and container toolkit (and keeps "
            "the operator's device plugin off the pool), which {{gpu_operator.enabled}} false leaves out; enable "
            "it, or use mode 'none'"
        ),
        per_pool=True,
    ),
)
"""HAMi's device plugin needs the NVIDIA container runtime the operator's toolkit configures."""


def enabled(spec: PlatformSpec) -> bool:
    """Only when some pool is isolated: HAMi is never installed for nothing."""
    return bool(isolated_pools(spec.pools))


def deploy(d: Deployment) -> dict[str, Any]:
    from gpu_platform.addons.hami.component import Hami

    plan = hami_plan(d.spec.pools, d.spec.cluster.kubernetes_version, mirror=d.spec.mirror)
    after = d.after("gpu_operator")  # the operator's toolkit
    component = Hami.from_plan(HAMI.component_name, plan, d.with_dependencies(after))
    d.created["hami"] = component
    return {"hamiStatus": component.status}
