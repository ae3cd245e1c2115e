"""Kueue in the stack: quotas over the pools no other scheduler owns, without team namespaces (the stack owns
every namespace; each LocalQueue waits for its own). With a Prometheus Operator metrics path its chart renders
a ServiceMonitor, so it then waits for the CRDs' release of the observability add-on."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gpu_platform.addons.kueue.plan import kueue_plan
from gpu_platform.addons.requirement import Requirement, section_on
from gpu_platform.releases import KUEUE

if TYPE_CHECKING:
    from gpu_platform.addons.deployment import Deployment
    from gpu_platform.addons.platform_spec import PlatformSpec


REQUIRES = (
    Requirement(
        ("topology",),
        "kueue.enabled",
        met=lambda s: section_on(s, "kueue", True),
        applies=lambda s, pool: pool is not None and pool.topology is not None,
        reason=lambda pool: "Kueue places pods by topology: needs {{kueue.enabled}}",
        per_pool=True,
    ),
)
"""A pool's topology is Kueue's Topology Aware Scheduling: without Kueue the setting would do nothing."""


def enabled(spec: PlatformSpec) -> bool:
    return spec.kueue is not None


def deploy(d: Deployment) -> dict[str, Any]:
    from gpu_platform.addons.kueue.component import Kueue

    spec = d.spec
    assert spec.kueue is not None
    observability = d.created.get("observability")
    crds = observability.monitor_crds if observability is not None else []
    opts = d.with_dependencies(crds) if crds else d.opts
    plan = kueue_plan(
        spec.queue_pools,
        spec.kueue,
        KUEUE.namespace,
        manage_namespaces=False,
        secret=d.secret("kueue"),
        metrics_values=d.contributions.get("kueue"),
    )
    component = Kueue.in_namespaces(KUEUE.component_name, plan, d.namespaces, opts)
    d.created["kueue"] = component
    return {"clusterQueues": component.cluster_queue_names}
