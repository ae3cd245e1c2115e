"""The workload layer on the cluster: Volcano first, then the controllers, each from a plan made from the spec.

Volcano comes first when it gang-schedules the controllers: LWS, KubeRay and Trainer need its PodGroup CRD
when they start. Trainer waits for JobSet, whose CRD and webhooks it needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform.addons import VOLCANO, addon
from gpu_platform.plans.volcano import volcano_plan
from gpu_platform.plans.workloads import controller_placement, pool_placement, workload_plans

if TYPE_CHECKING:
    from gpu_platform.stack.spec import PlatformSpec


def deploy_workloads(
    spec: PlatformSpec, opts: pulumi.ResourceOptions, namespaces: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Volcano (if enabled) and every controller the stack installs; returns the stack outputs. Team namespaces
    are the stack's (``stack.namespaces``), created before."""
    from gpu_platform.operators.volcano import Volcano
    from gpu_platform.operators.workloads import controller_component

    outputs: dict[str, Any] = {}
    volcano = None
    placement = controller_placement(spec.cloud, spec.workloads.node_selector)
    if spec.volcano is not None:
        plan = volcano_plan(
            spec.volcano, placement, manage_namespaces=False, secret="volcano" in spec.secret_sections
        )
        owned = namespaces or {}
        teams = [owned[t.namespace] for t in spec.volcano.teams if t.namespace in owned]
        after = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=teams))
        volcano = Volcano.from_plan(VOLCANO.component_name, plan, after)
        outputs["volcanoQueues"] = volcano.queue_names
    created: dict[str, Any] = {}
    for controller in workload_plans(spec.cloud, spec.workloads, secret="workloads" in spec.secret_sections):
        deps = [volcano] if volcano is not None and controller.gang_scheduler == "volcano" else []
        deps += [created[c] for c in addon(controller.controller).runs_on if c in created]
        merged = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=deps))
        cls = controller_component(controller.controller)
        created[controller.controller] = cls.from_plan(
            addon(controller.controller).component_name, controller, merged
        )
    if created:
        outputs["workloadControllers"] = {c: component.status for c, component in created.items()}
    if created or volcano is not None:
        # What a workload's pod template needs to run on each pool (Kueue injects it; Volcano jobs carry it).
        outputs["poolScheduling"] = {p.name: pool_placement(p) for p in spec.pools}
    return outputs
