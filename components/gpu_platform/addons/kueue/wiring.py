"""Kueue in the stack: quotas over the pools no other scheduler owns, without team namespaces (the stack owns
every namespace; each LocalQueue waits for its own). With a Prometheus Operator metrics path its chart renders
a ServiceMonitor, so it then waits for the CRDs' release of the observability add-on."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gpu_platform.addons.kueue.checks import given_cluster_queues
from gpu_platform.addons.kueue.plan import kueue_plan
from gpu_platform.addons.requirement import Requirement, Sections, derived, exclusive_pools, section_on
from gpu_platform.pools import GpuPool
from gpu_platform.releases import KUEUE

if TYPE_CHECKING:
    from gpu_platform.addons.deployment import Deployment
    from gpu_platform.addons.platform_spec import PlatformSpec


def kueue_quota_covers(sections: Sections, pool: GpuPool | None) -> bool:
    """Whether a Kueue ClusterQueue's quota covers ``pool``: Kueue is on, Slurm does not own the pool, and a queue
    lists it (or lists none: the default queue over every pool), as ``pool_owners`` decides for the plan."""
    if pool is None or not section_on(sections, "kueue", True) or pool.name in exclusive_pools(sections):
        return False
    covered = derived(sections, "kueue_pools", lambda: _queued_pool_names(sections))
    return covered is None or pool.name in covered


def _queued_pool_names(sections: Sections) -> frozenset[str] | None:
    """Every pool some Kueue ClusterQueue lists; ``None`` when a queue lists none (it covers every pool,
    ``pool_owners``)."""
    queues = given_cluster_queues(sections.get("kueue", {}))
    names: set[str] = set()
    for q in queues:
        if q.pools is None:
            return None
        names.update(q.pools)
    return frozenset(names)


def _not_in_a_queue(feature: str, effect: str) -> Callable[[Sections, GpuPool | None], str]:
    """The refusal for a pool feature only Kueue acts on, on a pool no Kueue queue covers: why, and the fix."""

    def reason(sections: Sections, pool: GpuPool | None) -> str:
        name = pool.name if pool is not None else ""
        if not section_on(sections, "kueue", True):
            return f"{feature} needs {{{{kueue.enabled}}}}: {effect}"
        if name in exclusive_pools(sections):
            return (
                f"{feature} needs Kueue, but pool '{name}' is Slurm's ({{{{slurm.pools}}}}): {effect}; take the pool "
                "out of slurm.pools or remove the setting"
            )
        return (
            f"{feature} needs a Kueue ClusterQueue over pool '{name}', and no {{{{kueue.cluster_queues}}}} entry "
            f"lists it: {effect}; add '{name}' to a queue's pools"
        )

    return reason


REQUIRES = (
    Requirement(
        ("topology",),
        "kueue.cluster_queues",
        met=kueue_quota_covers,
        applies=lambda s, pool: pool is not None and pool.topology is not None,
        reason=_not_in_a_queue("topology", "Kueue's Topology Aware Scheduling is what places pods by it"),
        per_pool=True,
    ),
    Requirement(
        ("capacity",),
        "kueue.cluster_queues",
        met=kueue_quota_covers,
        applies=lambda s, pool: pool is not None and pool.queued_provisioning,
        reason=_not_in_a_queue(
            "queued-provisioning",
            "Kueue's ProvisioningRequest admission check is what asks GKE for the nodes, so the pool would never grow",
        ),
        per_pool=True,
    ),
)
"""Pool features that are Kueue's to act on (Topology Aware Scheduling, ProvisioningRequests): without a Kueue
queue over the pool they would do nothing."""


def enabled(spec: PlatformSpec) -> bool:
    return spec.kueue is not None


def deploy(d: Deployment) -> dict[str, Any]:
    from gpu_platform.addons.kueue.component import Kueue

    spec = d.spec
    assert spec.kueue is not None
    observability = d.created.get("observability")
    crds = observability.monitor_crds if observability is not None else []
    # The workload controllers' CRDs first: Kueue sets up an integration whose API is missing at its start
    # only after a backoff of up to two minutes, and until then its TrainJob webhook refuses every TrainJob
    # ("unsupported runtime": the runtimes register with the controller; kubernetes-sigs/kueue v0.19.2
    # pkg/controller/jobframework/setup.go WaitForAPI, pkg/controller/jobs/trainjob/trainjob_controller.go).
    before = [*crds, *(d.created.get("workloads") or [])]
    opts = d.with_dependencies(before) if before else d.opts
    plan = kueue_plan(
        spec.queue_pools,
        spec.kueue,
        KUEUE.namespace,
        manage_namespaces=False,
        secret=d.secret("kueue"),
        metrics_values=d.contributions.get("kueue"),
        mirror=spec.mirror,
    )
    component = Kueue.in_namespaces(KUEUE.component_name, plan, d.namespaces, opts)
    d.created["kueue"] = component
    return {"clusterQueues": component.cluster_queue_names}
