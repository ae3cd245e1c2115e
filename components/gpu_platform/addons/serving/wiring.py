"""Serving in the stack: after KServe (its namespace, ConfigMap and certificate issuer) and the GPU Operator (the
pods need the device plugin), the LLMInferenceService controller and one service per model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from gpu_platform.addons.requirement import Requirement, Sections, derived, exclusive_pools, section_on
from gpu_platform.addons.serving.autoscaling import resolved_source
from gpu_platform.addons.serving.checks import ServingSpec
from gpu_platform.addons.serving.plan import REQUIRES_OUTPUT, serving_plan
from gpu_platform.addons.serving.settings import DEFAULT_SERVING_NAMESPACE
from gpu_platform.addons.workloads.settings import Controller
from gpu_platform.cloud_facts import profile_of
from gpu_platform.errors import Problems
from gpu_platform.resolve.pools import resolve_pool_list

if TYPE_CHECKING:
    from gpu_platform.addons.deployment import Deployment
    from gpu_platform.addons.platform_spec import PlatformSpec

COMPONENT_NAME = "serving"
LEADER_WORKER_SET = Controller.LEADER_WORKER_SET.value
LWS_FRAMEWORK = "leaderworkerset.x-k8s.io/leaderworkerset"
"""Kueue's LeaderWorkerSet integration (Kueue v0.19.2 ``integrations.frameworks``)."""


def _models(s: Sections) -> bool:
    section = s.get("serving")
    return isinstance(section, Mapping) and bool(section.get("models"))


def _on_slurm_pools(s: Sections) -> tuple[str, ...]:
    """``model 'x' on pool 'y'`` for each model that names a pool Slurm owns (``slurm.pools``, Slurm on)."""
    section, owned = s.get("serving"), set(exclusive_pools(s))
    if not owned or not _models(s):
        return ()
    assert isinstance(section, Mapping)
    return tuple(
        f"model '{m.get('name')}' on pool '{pool}'"
        for m in section.get("models") or ()
        if isinstance(m, Mapping)
        for pool in m.get("pools") or ()
        if pool in owned
    )


def _queued_models(s: Sections) -> bool:
    """Kueue is on and some model is labelled with a LocalQueue: it names one (``queue``) or sits in a team's
    namespace (given its own ``namespace`` or the section's). A model on a team's pool elsewhere is refused at its
    ``queue`` (``stack.resolve_sections.with_serving_queues``)."""
    section, kueue = s.get("serving"), s.get("kueue", {})
    if not _models(s) or not section_on(s, "kueue", True) or not isinstance(kueue, Mapping):
        return False
    assert isinstance(section, Mapping)
    teams = {t.get("namespace", t.get("name")) for t in kueue.get("teams") or () if isinstance(t, Mapping)}
    default = section.get("namespace", DEFAULT_SERVING_NAMESPACE)
    return any(
        isinstance(m, Mapping) and ("queue" in m or m.get("namespace", default) in teams)
        for m in section.get("models") or ()
    )


def _spanning_models(s: Sections) -> frozenset[str]:
    """The names of the models whose smallest fit spans nodes (a LeaderWorkerSet group per replica), sized as
    ``checks.resolve_models`` sizes them, once per stack file; models with problems of their own are left out (they
    are refused where the section is resolved)."""
    return frozenset(derived(s, "serving.spanning_models", lambda: _size_spanning(s)))


def _size_spanning(s: Sections) -> tuple[str, ...]:
    from gpu_platform.addons.serving.checks import model_spans_nodes

    section, cloud = s.get("serving"), s.get("cloud")
    if not _models(s) or not isinstance(cloud, str):
        return ()
    assert isinstance(section, Mapping)
    raw_pools = s.get("gpu_pools")
    scratch = Problems()
    pools = resolve_pool_list(
        cloud,
        raw_pools if isinstance(raw_pools, Sequence) else [],
        s.get("cuda_version"),
        lambda i: scratch.at("gpu_pools", i),
    )
    return tuple(
        m["name"]
        for m in section.get("models") or ()
        if isinstance(m, Mapping) and model_spans_nodes(m, pools)
    )


def _queued_spanning_models(s: Sections) -> bool:
    """Kueue is on and some model charged to a LocalQueue (as ``_queued_models`` reads it) spans nodes."""
    section, kueue = s.get("serving"), s.get("kueue", {})
    if not _queued_models(s) or not isinstance(kueue, Mapping):
        return False
    assert isinstance(section, Mapping)
    spanning = _spanning_models(s)
    teams = {t.get("namespace", t.get("name")) for t in kueue.get("teams") or () if isinstance(t, Mapping)}
    default = section.get("namespace", DEFAULT_SERVING_NAMESPACE)
    return any(
        isinstance(m, Mapping)
        and m.get("name") in spanning
        and ("queue" in m or m.get("namespace", default) in teams)
        for m in section.get("models") or ()
    )


def _lws_available(s: Sections) -> bool:
    """LeaderWorkerSet is installed by the stack (``workloads.leader_worker_set.enabled``) or declared installed
    (``workloads.installed_elsewhere``)."""
    workloads = s.get("workloads", {})
    if not isinstance(workloads, Mapping):
        return False
    lws = workloads.get("leader_worker_set", {})
    on = isinstance(lws, Mapping) and bool(lws.get("enabled", False))
    return on or LEADER_WORKER_SET in (workloads.get("installed_elsewhere") or ())


def _charges_leader_worker_sets(s: Sections) -> bool:
    """Kueue's ``leaderworkerset`` framework is on: listed in the explicit ``kueue.integrations``, or derived (the
    derived list has it when LeaderWorkerSet is installed and Volcano does not gang-schedule it:
    ``workloads.checks.kueue_frameworks``)."""
    kueue = s.get("kueue", {})
    given = kueue.get("integrations") if isinstance(kueue, Mapping) else None
    if given is None:
        return not section_on(s, "volcano", False)
    return LWS_FRAMEWORK in given


def _charges_deployments(s: Sections) -> bool:
    """Kueue's frameworks gate and charge a Deployment's pods: ``deployment`` and ``pod`` among the explicit
    ``kueue.integrations`` (without them the stack derives a list that has both: ``workloads.plan``)."""
    kueue = s.get("kueue", {})
    given = kueue.get("integrations") if isinstance(kueue, Mapping) else None
    return given is None or {"deployment", "pod"} <= set(given)


REQUIRES = (
    Requirement(
        ("serving", "models"),
        "slurm.pools",
        met=lambda s, pool: not _on_slurm_pools(s),
        applies=lambda s, pool: _models(s),
        reason=lambda s, pool: (
            f"{', '.join(_on_slurm_pools(s))}: the pool is Slurm's ({{{{slurm.pools}}}}), and slurmd holds every GPU "
            "of its nodes, so the model's pods would never schedule: serve from pools Slurm does not own, or take "
            "the pool out of slurm.pools"
        ),
    ),
    Requirement(
        ("serving", "models"),
        "kserve.enabled",
        met=lambda s, pool: section_on(s, "kserve", False),
        applies=lambda s, pool: _models(s),
        reason=lambda s, pool: (
            "needs {{kserve.enabled}}: the LLMInferenceService controller runs beside KServe's (its namespace, "
            "inferenceservice-config and cert-manager issuer); turn KServe on, or remove the serving section"
        ),
    ),
    Requirement(
        ("serving", "models"),
        "kueue.integrations",
        met=lambda s, pool: _charges_deployments(s),
        applies=lambda s, pool: _queued_models(s),
        reason=lambda s, pool: (
            "a model is charged to a Kueue LocalQueue (its queue label), which Kueue reads on the model's "
            "Deployment and enforces on its pods: add 'deployment' and 'pod' to {{kueue.integrations}}, or leave "
            "the list out (the derived one has both)"
        ),
    ),
    Requirement(
        ("serving", "models"),
        "workloads.leader_worker_set.enabled",
        met=lambda s, pool: _lws_available(s),
        applies=lambda s, pool: section_on(s, "kserve", False) and bool(_spanning_models(s)),
        reason=lambda s, pool: (
            f"{', '.join(sorted(_spanning_models(s)))}: a replica spanning nodes is a LeaderWorkerSet group (KServe's "
            "multi-node workload), and LeaderWorkerSet is not installed: enable "
            "{{workloads.leader_worker_set.enabled}} or list 'leaderWorkerSet' in {{workloads.installed_elsewhere}}"
        ),
    ),
    Requirement(
        ("serving", "models"),
        "kueue.integrations",
        met=lambda s, pool: _charges_leader_worker_sets(s),
        applies=lambda s, pool: _queued_spanning_models(s),
        reason=lambda s, pool: (
            "a model spanning nodes is charged to a Kueue LocalQueue (its queue label), which Kueue reads on its "
            f"LeaderWorkerSet: add '{LWS_FRAMEWORK}' to {{{{kueue.integrations}}}}, or leave the list out (the "
            "derived one has it while Volcano does not gang-schedule LeaderWorkerSet)"
        ),
    ),
)
"""The LLMInferenceService controller is installed with ``createSharedResources: false``: KServe's release holds
the shared resources. A model charged to a Kueue queue needs Kueue's ``deployment`` and ``pod`` frameworks
(``plan.queue_labels``). A model spanning nodes needs LeaderWorkerSet, and when it is charged to a queue Kueue's
``leaderworkerset.x-k8s.io/leaderworkerset`` framework."""


def enabled(spec: PlatformSpec) -> bool:
    return spec.serving is not None


def deploy(d: Deployment) -> dict[str, Any]:
    from gpu_platform.addons.serving.component import LlmServing

    spec = d.spec.serving
    assert spec is not None
    spec = with_reader_facts(spec, d)
    plan = serving_plan(spec, existing_namespaces=frozenset(d.namespaces))
    # The scrape objects of autoscaled models are the Prometheus Operator's kinds: after its CRDs.
    metrics = d.after("observability") if spec.autoscaled else []
    namespaces = [d.namespaces[n] for n in spec.namespaces if n in d.namespaces]
    deps = [*d.after("gpu_operator", "kserve"), *metrics, *namespaces]
    component = LlmServing.from_plan(COMPONENT_NAME, plan, d.with_dependencies(deps))
    d.created["serving"] = component
    # What the stack does not create: in the outputs, as the nodes to label are, so `gpu-platform plan` prints it.
    return {
        "llmServices": component.services,
        **({REQUIRES_OUTPUT: list(plan.requires)} if plan.requires else {}),
    }


def with_reader_facts(spec: ServingSpec, d: Deployment) -> ServingSpec:
    """``spec`` with the managed Prometheus' query URL and KEDA's identity filled in where they exist only once the
    cloud's stack has created the identity on the observability workspace (``PrometheusSource.deferred``: AKS)."""
    source = spec.prometheus
    reader = profile_of(spec.cloud).metrics_reader
    if source is None or not source.deferred or reader is None or source.grant is None:
        return spec
    observability = d.created.get("observability")
    workspace = getattr(observability, "workspace", None)
    facts = d.metrics_reader(source.grant, workspace)
    return replace(spec, prometheus=resolved_source(source, reader, facts))
