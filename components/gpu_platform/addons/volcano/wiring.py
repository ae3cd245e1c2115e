"""Volcano on the cluster, from its plan: before the workload controllers it gang-schedules, which need its
PodGroup CRD when they start."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform.addons.volcano.plan import volcano_plan
from gpu_platform.addons.workloads.plan import controller_placement
from gpu_platform.releases import VOLCANO

if TYPE_CHECKING:
    from gpu_platform.addons.deployment import Deployment
    from gpu_platform.addons.platform_spec import PlatformSpec


def enabled(spec: PlatformSpec) -> bool:
    return spec.volcano is not None


def deploy(d: Deployment) -> dict[str, Any]:
    volcano, outputs = deploy_volcano(d.spec, d.opts, d.namespaces)
    d.created["volcano"] = volcano
    return outputs


def deploy_volcano(
    spec: PlatformSpec, opts: pulumi.ResourceOptions, namespaces: dict[str, Any] | None = None
) -> tuple[Any, dict[str, Any]]:
    """Volcano and its team queues, each after its team's namespace (the stack's, ``stack.namespaces``);
    returns the component (``None`` when Volcano is off) and the stack outputs."""
    from gpu_platform.addons.volcano.component import Volcano

    if spec.volcano is None:
        return None, {}
    placement = controller_placement(spec.cloud, spec.workloads.node_selector)
    plan = volcano_plan(
        spec.volcano,
        placement,
        manage_namespaces=False,
        secret="volcano" in spec.secret_sections,
        mirror=spec.mirror,
    )
    owned = namespaces or {}
    teams = [owned[t.namespace] for t in spec.volcano.teams if t.namespace in owned]
    after = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=teams))
    volcano = Volcano.from_plan(VOLCANO.component_name, plan, after)
    return volcano, {"volcanoQueues": volcano.queue_names}
