"""Every check of the stack file as a whole, written once: its sections, the config keys around it, and
what one section asks of another (services of Kueue queues, DRA of the cluster version and the operator).

``stack.spec.load_platform`` runs these in order and builds the ``PlatformSpec``; nothing here registers
anything.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from gpu_platform.addons.dra.checks import (
    DraSpec,
    check_dra_settings,
    cluster_dra_problems,
    dra_driver_problems,
    kubernetes_version_problem,
)
from gpu_platform.addons.gpu_operator.checks import GpuOperatorSpec, check_operator_settings
from gpu_platform.addons.kserve.service_checks import (
    KServeSpec,
    ServiceRequest,
    isolated_memory_problems,
    resolve_request,
    shared_memory_problems,
)
from gpu_platform.addons.kserve.service_settings import InferenceServiceConfigArgs
from gpu_platform.addons.kueue.checks import CapacityBasis, GpuOperatorFacts, KueueSpec, QueueIndex
from gpu_platform.addons.kueue.settings import DEFAULT_LOCAL_QUEUE
from gpu_platform.addons.observability.checks import ObservabilitySpec
from gpu_platform.addons.serving.checks import ServedModel, ServingSpec
from gpu_platform.addons.slurm.checks import SlurmSpec, resolve_slurm
from gpu_platform.addons.volcano.checks import VolcanoSpec, resolve_volcano
from gpu_platform.addons.workloads.checks import WorkloadsSpec, resolve_workloads, with_workload_integrations
from gpu_platform.args.validate import hints, parse_partial, unknown_key_reason
from gpu_platform.cloud_facts import profile_of
from gpu_platform.cloud_facts.profile import PoolProblems
from gpu_platform.driver import DriverPlan
from gpu_platform.errors import NAMESPACE, Problems
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cluster import ClusterSpec
from gpu_platform.resolve.driver import DriverLocations, resolve_driver
from gpu_platform.resolve.pools import ResolvedPools, valid_pools
from gpu_platform.stack import sections as schema

DRIVER_FIX = "{{gpu_operator.driver.version}} (operator driver) or {{gpu_operator.driver.host_version}} (cloud image driver)"


def config_sections(raw: Any, p: Problems, camel: bool = True) -> dict[str, Any]:
    """Top-level keys known and present; each section validated on its own so one bad section does not
    hide the problems of the others."""
    if not isinstance(raw, Mapping):
        p.add((), "the gpu-platform configuration must be a mapping of keys")
        return {}
    fields = hints(schema.StackConfigArgs)
    snake = {_snake(k): k for k in raw}
    out: dict[str, Any] = {}
    suggested = set()
    for key, given in snake.items():
        if key not in fields:
            reason = unknown_key_reason(given, list(fields), camel=camel)
            p.add((given,), reason)
            suggested |= {f for f in fields if f"'{_camel(f) if camel else f}'?" in reason}
    for key in sorted(schema.StackConfigArgs.__required_keys__):
        if key not in snake and key not in suggested:  # a misspelt key is one mistake, said once
            p.add((key,), "required key is missing" if camel else "required argument is missing")
    for key, tp in fields.items():
        if key not in snake or key == "gpu_pools":
            continue
        value = raw[snake[key]]
        services = value.get("services", []) if key == "kserve" and isinstance(value, Mapping) else None
        if services is not None:
            value = {k: v for k, v in value.items() if k != "services"}
        # A wrong type in one setting leaves the rest of the section to its checks (both are reported).
        parsed, left_out = parse_partial(tp, value, p.at(key), camel=camel)
        for field in sorted(left_out):
            p.mute(key, field)
        if parsed is not None:
            out[key] = parsed
            if services is not None:
                # Services are checked only against a valid kserve section: no follow-on errors.
                out["kserve_services"] = services
    switched_off_problems(out, p)
    if "gpu_pools" in snake:
        pools = raw[snake["gpu_pools"]]
        if not isinstance(pools, list) or not pools:
            p.add(("gpu_pools",), "must be a list of at least one GPU pool")
        else:
            out["gpu_pools"] = pools
    return out


SWITCHED_SECTIONS = {
    "gpu_operator": True,
    "kueue": True,
    "observability": True,
    "volcano": False,
    "slurm": False,
    "dra": False,
    "kserve": False,
}
"""Sections with an ``enabled`` switch, and whether they are on when it is not given: switched off, the rest of
their settings would do nothing."""
READ_WHEN_OFF = {"gpu_operator": frozenset({"driver"})}
"""Settings read with their section off: the driver the nodes run still bounds CUDA and the DRA driver."""


def switched_off_problems(cfg: Mapping[str, Any], p: Problems) -> None:
    """A setting of a section that is switched off is refused, never dropped: the user meant it to act."""
    for section, default in SWITCHED_SECTIONS.items():
        given = cfg.get(section)
        if not isinstance(given, Mapping) or given.get("enabled", default):
            continue
        for key in given:
            if key != "enabled" and key not in READ_WHEN_OFF.get(section, ()):
                p.add(
                    (section, key),
                    f"has no effect while {{{{{section}.enabled}}}} is false: remove it, or turn the section on",
                )


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part.title() for part in rest)


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in str(key))


def resolve_kserve(
    section: Mapping[str, Any],
    raw_services: Any,
    pools: ResolvedPools,
    kueue: KueueSpec | None,
    kueue_on: bool,
    p: Problems,
    camel: bool = True,
) -> KServeSpec | None:
    """The ``kserve`` services on a section whose settings are checked (``addons.kserve.plan`` checks those)."""
    enabled = section.get("enabled", False)
    services: list[tuple[Mapping[str, Any], ServiceRequest]] = []
    placed: list[tuple[Problems, ServiceRequest]] = []
    if not isinstance(raw_services, Sequence) or isinstance(raw_services, str):
        p.add(("kserve", "services"), "must be a list of services")
        return None
    seen: set[tuple[str, str]] = set()
    by_name = pools.by_name()
    index: QueueIndex | None = None
    for i, raw in enumerate(raw_services):
        here = p.at("kserve", "services", i)
        svc, left_out = parse_partial(InferenceServiceConfigArgs, raw, here, camel=camel)
        for field in sorted(left_out):
            here.mute(field)
        if svc is None:
            continue
        if not enabled:
            here.add((), "{{kserve.enabled}} is false")
            continue
        key = (svc.get("namespace", "default"), svc["name"])
        if key in seen:
            here.add(("name",), f"'{svc['name']}' is already used in namespace '{key[0]}'")
        seen.add(key)
        queue = _service_queue(svc, kueue, kueue_on, here, p)
        if queue is not None:
            svc = {**svc, "queue": queue}
        pool = by_name.get(svc["pool"])
        if pool is None and svc["pool"] not in pools.broken:
            here.add(("pool",), f"'{svc['pool']}' is not a GPU pool; {valid_pools(by_name)}")
        elif pool is not None and queue is not None and kueue is not None and kueue_on:
            index = index or QueueIndex(kueue.cluster_queues, pools.pools)
            if reason := _unreachable_pool(kueue, index, svc.get("namespace", "default"), queue, pool.name):
                here.add(("queue",) if "queue" in raw_keys(raw) else ("pool",), reason)
        request = resolve_request(svc, svc["name"], pool, here)
        if request is not None and not left_out:
            services.append((svc, request))
            placed.append((here, request))
    shared_memory_problems(placed)  # the services that can share one GPU fit in its memory together
    isolated_memory_problems(placed)  # the memory slices on an isolated pool fit in its cards
    if not enabled:
        return None
    return KServeSpec(section, section.get("install_cert_manager", True), tuple(services))


def raw_keys(raw: Any) -> set[str]:
    """The snake_case keys a stack-file entry gave."""
    return {_snake(k) for k in raw} if isinstance(raw, Mapping) else set()


def _unreachable_pool(
    kueue: KueueSpec, index: QueueIndex, namespace: str, queue: str, pool: str, what: str = "the predictor"
) -> str | None:
    """Why Kueue would never admit ``what`` (a predictor) of ``pool`` through the LocalQueue ``namespace/queue``:
    its ClusterQueue neither owns the pool nor can borrow it in its cohort (``None`` when it can)."""
    team = next((t for t in kueue.teams if (t.namespace, t.queue_name) == (namespace, queue)), None)
    cq = next((q for q in kueue.cluster_queues if team is not None and q.name == team.cluster_queue), None)
    if cq is None or pool in {p.name for p in index.own(cq)}:
        return None
    if cq.cohort is not None and cq.borrowing_limit_percent != 0:
        lenders = [
            q
            for q in kueue.cluster_queues
            if q is not cq and q.cohort == cq.cohort and pool in {p.name for p in index.own(q)}
        ]
        if any(q.lending_limit_percent != 0 for q in lenders):
            return None
    return (
        f"LocalQueue '{queue}' feeds ClusterQueue '{cq.name}', which neither owns pool '{pool}' nor can borrow "
        f"it from its cohort: Kueue would never admit {what}. Use a queue whose ClusterQueue lists the "
        "pool, or put both queues in one cohort with borrowing allowed"
    )


def _service_queue(
    svc: Mapping[str, Any], kueue: KueueSpec | None, kueue_on: bool, here: Problems, p: Problems
) -> str | None:
    """The LocalQueue the service's predictor is labelled with: its ``queue``, or, when it has only a
    ``priority_class``, its namespace's team LocalQueue (a priority without a queue would bypass Kueue)."""
    priority = svc.get("priority_class")
    known = kueue is not None and priority in [c.name for c in kueue.priority_classes]
    if priority is not None and not kueue_on:
        here.add(
            ("priority_class",), "a Kueue WorkloadPriorityClass, but Kueue is off; remove it or enable Kueue"
        )
    elif priority is not None and kueue is not None and not known:
        valid = ", ".join(c.name for c in kueue.priority_classes)
        here.add(("priority_class",), f"'{priority}' is not a Kueue WorkloadPriorityClass; valid: {valid}")
    queue = svc.get("queue")
    namespace = svc.get("namespace", "default")
    if queue is None and priority is not None and kueue is not None and known:
        queue = _team_queue(kueue, namespace, priority, here)
    if queue is None:
        return None
    if not kueue_on or (kueue is not None and (namespace, queue) not in kueue.local_queues()):
        here.add(("queue",), f"no Kueue LocalQueue '{queue}' in namespace '{namespace}' (kueue.teams)")
    elif kueue is not None and not {"pod", "deployment"} <= set(kueue.integrations):
        p.add(("kueue", "integrations"), "KServe predictors are Deployments: add 'pod' and 'deployment'")
    return queue


def _team_queue(kueue: KueueSpec, namespace: str, priority: str, here: Problems) -> str | None:
    """The namespace's team LocalQueue for a service with a priority and no queue; refused when there is
    none (Kueue would never see the service, so its priority would mean nothing) or it is ambiguous."""
    queues = kueue.namespace_queues(namespace)
    if not queues:
        teams = sorted({t.namespace for t in kueue.teams})
        where = f"a team namespace ({', '.join(teams)})" if teams else "a team namespace (kueue.teams)"
        here.add(
            ("priority_class",),
            f"'{priority}' is a Kueue priority, but namespace '{namespace}' has no Kueue team, so no LocalQueue "
            f"admits the service and Kueue never sees it: run it in {where}, whose LocalQueue then admits "
            "it, or remove {{priority_class}}",
        )
        return None
    if len(queues) > 1 and DEFAULT_LOCAL_QUEUE not in queues:
        here.add(
            ("queue",),
            f"required with {{{{priority_class}}}}: namespace '{namespace}' has several LocalQueues "
            f"({', '.join(queues)}); name one",
        )
        return None
    # One team queue; or Kueue's own choice (LocalQueueDefaulting picks the one named 'default').
    return queues[0] if len(queues) == 1 else DEFAULT_LOCAL_QUEUE


def with_serving_queues(
    serving: ServingSpec | None,
    kueue: KueueSpec | None,
    kueue_on: bool,
    pools: Sequence[GpuPool],
    p: Problems,
) -> ServingSpec | None:
    """The served models with the Kueue LocalQueue that charges each to its team's quota (``p`` is at
    ``serving``; ``pools`` are those Kueue counts): the same teams, ClusterQueues and reachability as the
    ``kserve.services``' queues (``_service_queue``, ``_unreachable_pool``). ``None`` on a problem."""
    if serving is None:
        return None
    before = p.count()
    kueue = kueue if kueue_on else None
    index = QueueIndex(kueue.cluster_queues, pools) if kueue is not None else None
    models = tuple(
        replace(m, queue=_model_queue(m, kueue, index, p.at("models", i)))
        for i, m in enumerate(serving.models)
    )
    return replace(serving, models=models) if p.count() == before else None


def _model_queue(
    model: ServedModel, kueue: KueueSpec | None, index: QueueIndex | None, here: Problems
) -> str | None:
    """The model's ``queue`` checked, or on a pool a team's ClusterQueue owns its namespace's team LocalQueue (a
    model there with no queue would take the team's GPUs uncharged: refused); ``None``: Kueue does not manage it."""
    given = model.settings.get("queue")
    namespace, pool = model.namespace, model.pool.name
    if kueue is None or index is None:
        if given is not None:
            here.add(
                ("queue",), "a Kueue LocalQueue, but {{kueue.enabled}} is false; remove it or enable Kueue"
            )
        return None
    if given is not None:
        if (namespace, given) not in kueue.local_queues():
            here.add(
                ("queue",),
                f"no Kueue LocalQueue '{given}' in namespace '{namespace}' (kueue.teams); "
                + _valid_model_queues(kueue, index, pool),
            )
            return None
        if reason := _unreachable_pool(kueue, index, namespace, given, pool, "the model's pods"):
            here.add(("queue",), reason)
            return None
        return given
    owners = {t.cluster_queue for t in kueue.teams} & {
        q.name for q in kueue.cluster_queues if pool in {p.name for p in index.own(q)}
    }
    if not owners:
        return None  # no team's quota covers the pool: Kueue has nothing to charge
    reachable = [
        q
        for q in kueue.namespace_queues(namespace)
        if _unreachable_pool(kueue, index, namespace, q, pool) is None
    ]
    if len(reachable) == 1 or DEFAULT_LOCAL_QUEUE in reachable:
        # One team queue; or Kueue's own choice among several (LocalQueueDefaulting picks 'default').
        return reachable[0] if len(reachable) == 1 else DEFAULT_LOCAL_QUEUE
    if reachable:
        here.add(
            ("queue",),
            f"required: namespace '{namespace}' has several LocalQueues that reach pool '{pool}' "
            f"({', '.join(reachable)}); name one",
        )
        return None
    here.add(
        ("queue",),
        f"required: pool '{pool}' is under the quota of ClusterQueue {', '.join(sorted(owners))} (kueue.teams), "
        f"and namespace '{namespace}' has no team LocalQueue that reaches it, so the model's pods would take "
        "the team's GPUs without being charged. Serve the model from a team's namespace ({{namespace}}) "
        "with its LocalQueue ({{queue}}); " + _valid_model_queues(kueue, index, pool),
    )
    return None


def _valid_model_queues(kueue: KueueSpec, index: QueueIndex, pool: str) -> str:
    """The ``namespace/queue`` pairs of the teams whose LocalQueue reaches ``pool``, for a refusal."""
    valid = sorted(
        {
            f"{t.namespace}/{t.queue_name}"
            for t in kueue.teams
            if _unreachable_pool(kueue, index, t.namespace, t.queue_name, pool) is None
        }
    )
    if not valid:
        return f"no team's LocalQueue reaches pool '{pool}'"
    return f"valid for pool '{pool}' (namespace/queue): {', '.join(valid)}"


def resolve_stack_driver(
    cloud: str, section: Mapping[str, Any], pools: ResolvedPools, n_pools: int, p: Problems
) -> DriverPlan | None:
    """The cluster's one driver plan, from the ``gpu_operator`` section (it decides the driver even when the
    operator is off)."""
    before = p.count()
    check_operator_settings(section, p.at("gpu_operator"))
    profile_of(cloud).gpu_operator_setting_problems(section, p.at("gpu_operator"))
    if p.count() != before or len(pools.pools) != n_pools:
        # The driver decision needs every pool and a known operator; what is broken is already reported.
        return None
    at = DriverLocations(
        p.at("gpu_operator", "driver"),
        lambda i: p.at("gpu_pools", i),
        p.at("gpu_pools"),
        p.at("cuda_version"),
        DRIVER_FIX,
        "gpu_operator.driver",
    )
    operator = GpuOperatorSpec.from_settings(section)
    return resolve_driver(cloud, pools.pools, operator.driver, operator.version, at)


# --- workload layer ---
def workload_layer(
    cfg: Mapping[str, Any], pools: ResolvedPools, kueue: KueueSpec | None, kueue_on: bool, p: Problems
) -> tuple[WorkloadsSpec, VolcanoSpec | None, KueueSpec | None]:
    """``workloads`` and ``volcano``; Kueue's integrations then follow the installed controllers."""
    section = cfg.get("volcano", {})
    volcano_on = section.get("enabled", False)
    workloads = resolve_workloads(cfg.get("workloads", {}), volcano_on, p.at("workloads"))
    kueue_section = cfg.get("kueue", {})
    if kueue_on:
        kueue = with_workload_integrations(kueue, kueue_section, workloads, p.at("kueue", "integrations"))
    volcano = None
    if volcano_on:
        at = lambda i: p.at("gpu_pools", i)  # noqa: E731
        volcano = resolve_volcano(section, pools, at, p.at("volcano"), kueue_section if kueue_on else None)
    return workloads, volcano, kueue


# --- end workload layer ---


def resolve_stack_slurm(
    cfg: Mapping[str, Any], pools: ResolvedPools, kueue_on: bool, p: Problems
) -> SlurmSpec | None:
    """The ``slurm`` section over every pool, with the Kueue queues, Volcano teams and KServe services of the
    same stack: none of them may use a pool Slurm owns."""
    section = cfg.get("slurm", {})
    if not section.get("enabled", False):
        return None  # its settings are refused by switched_off_problems
    volcano = cfg.get("volcano", {})
    serving = cfg.get("kserve", {}).get("enabled", False)
    return resolve_slurm(
        section,
        pools,
        p.at("slurm"),
        cfg.get("kueue", {}) if kueue_on else None,
        volcano if volcano.get("enabled", False) else None,
        cfg.get("kserve_services", []) if serving else [],
        p.at("kserve", "services"),
    )


def given_keys(raw: Any) -> set[str]:
    """The stack file's top-level keys, snake_case."""
    return {_snake(k) for k in raw} if isinstance(raw, Mapping) else set()


def with_capacity_basis(
    cloud: str,
    kueue: KueueSpec | None,
    volcano: VolcanoSpec | None,
    operator: GpuOperatorSpec,
    driver: DriverPlan,
    dra: DraSpec | None = None,
    observability: ObservabilitySpec | None = None,
) -> tuple[KueueSpec | None, VolcanoSpec | None]:
    """Kueue's quotas and Volcano's queues count a node alike: the cloud's allocatable less the operands the
    GPU Operator runs on it, the DRA plugin containers that run and the GPU health checks' pod."""
    health_checks = observability is not None and observability.health_checks
    facts = None
    if operator.enabled:
        facts = GpuOperatorFacts(driver, operator.dcgm_exporter)
    domains = dra is not None and dra.compute_domains
    if kueue is not None:
        kueue = replace(
            kueue, gpu_operator=facts, dra_compute_domains=domains, gpu_health_checks=health_checks
        )
    if volcano is not None:
        basis = (
            kueue.capacity_basis
            if kueue is not None
            else CapacityBasis(
                cloud, gpu_operator=facts, dra_compute_domains=domains, gpu_health_checks=health_checks
            )
        )
        volcano = replace(volcano, capacity_basis=basis)
    return kueue, volcano


def plain_kubeconfig_problem(
    cfg: Mapping[str, Any], secret_sections: frozenset[str] | None, p: Problems
) -> None:
    """A kubeconfig outside a secret section would be plain text in the stack file and in the state."""
    if secret_sections is None or "kubeconfig" not in cfg.get("cluster", {}) or "cluster" in secret_sections:
        return
    p.add(
        ("cluster", "kubeconfig"),
        "is plain text in the stack file (and would be in the state): set it as a secret with "
        "`pulumi config set --secret --path 'gpu-platform:cluster.kubeconfig' \"$(cat kubeconfig)\"`, "
        "or use {{cluster.kubeconfig_stack_reference}}",
    )


def resolve_stack_dra(
    cfg: Mapping[str, Any],
    pools: ResolvedPools,
    cluster: ClusterSpec | None,
    driver: DriverPlan | None,
    at: PoolProblems,
    p: Problems,
) -> DraSpec | None:
    """The ``dra`` section: settings, the cluster version and the node driver (that it needs the GPU Operator is
    its declared requirement, ``addons.dra.wiring.REQUIRES``)."""
    section = DraSpec.from_settings(cfg.get("dra", {}))
    cluster_dra_problems(pools.pools, cfg.get("gpu_pools", []), section.enabled, at, p.at("dra"))
    if not section.enabled:
        return None
    check_dra_settings(section, p.at("dra"))
    if cluster is not None and (reason := kubernetes_version_problem(cluster.kubernetes_version)):
        p.add(("cluster", "kubernetes_version"), reason)
    if driver is not None:
        dra_driver_problems(
            pools.pools,
            driver,
            section.compute_domains,
            at,
            p.at("gpu_operator", "driver"),
        )
    return section


def misspelled_namespace_problems(keys: list[str], p: Problems) -> None:
    """``gpu-platfrom:kserve`` would be silently ignored by Pulumi: refuse a namespace that is one typo
    away from ``gpu-platform``."""
    for key in keys:
        namespace, _, rest = key.partition(":")
        if namespace == NAMESPACE or not rest:
            continue
        if difflib.SequenceMatcher(None, namespace, NAMESPACE).ratio() >= 0.8:
            p.add(
                (rest,),
                f"set as '{key}': '{namespace}' is not the '{NAMESPACE}' namespace, so this setting would be "
                f"ignored; write it as '{NAMESPACE}:{rest}'",
            )
