"""The workload controllers on the cluster, each from a plan made from the spec.

Each waits for Volcano when Volcano gang-schedules it: LWS, KubeRay and Trainer need its PodGroup CRD when
they start. Trainer waits for JobSet, whose CRD and webhooks it needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform.addons.workloads.plan import pool_placement, workload_plans
from gpu_platform.releases import addon

if TYPE_CHECKING:
    from gpu_platform.addons.deployment import Deployment
    from gpu_platform.addons.platform_spec import PlatformSpec


def enabled(spec: PlatformSpec) -> bool:
    """The controllers are on by default; ``deploy_workloads`` installs those the spec keeps."""
    return True


def deploy(d: Deployment) -> dict[str, Any]:
    return deploy_workloads(d.spec, d.opts, d.created.get("volcano"), d.created)


def deploy_workloads(
    spec: PlatformSpec,
    opts: pulumi.ResourceOptions,
    volcano: Any = None,
    stack_created: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Every controller the stack installs, each after ``volcano`` (Volcano's component, when it is on) if
    Volcano gang-schedules it; returns the stack outputs. ``stack_created`` (the stack's components by add-on)
    gets the controllers as ``workloads``: Kueue waits for their CRDs."""
    from gpu_platform.addons.workloads.component import controller_component

    outputs: dict[str, Any] = {}
    created: dict[str, Any] = {}
    secret = "workloads" in spec.secret_sections
    for controller in workload_plans(spec.cloud, spec.workloads, secret=secret, mirror=spec.mirror):
        deps = [volcano] if volcano is not None and controller.gang_scheduler == "volcano" else []
        deps += [created[c] for c in addon(controller.controller).runs_on if c in created]
        merged = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=deps))
        cls = controller_component(controller.controller)
        created[controller.controller] = cls.from_plan(
            addon(controller.controller).component_name, controller, merged
        )
    if created and stack_created is not None:
        stack_created["workloads"] = list(created.values())
    if created:
        outputs["workloadControllers"] = {c: component.status for c, component in created.items()}
    if created or volcano is not None:
        # What a workload's pod template needs to run on each pool (Kueue injects it; Volcano jobs carry it).
        outputs["poolScheduling"] = {p.name: pool_placement(p) for p in spec.pools}
    return outputs
