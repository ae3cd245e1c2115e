"""The whole stack file, parsed, resolved and checked once: ``load_platform(raw) -> PlatformSpec``.

Each section is validated on its own and every resolver runs, so one run reports every problem of a
stack file, each once, as ``gpu-platform:<camelCase path>: <reason>``; a broken pool produces no
follow-on errors in the queues and services that name it. Nothing is registered until this passes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gpu_platform.args import stack as schema
from gpu_platform.args.common import Cloud
from gpu_platform.args.inference import InferenceServiceConfigArgs
from gpu_platform.args.kueue import DEFAULT_LOCAL_QUEUE
from gpu_platform.args.validate import hints, parse, unknown_key_reason
from gpu_platform.driver import DriverPlan
from gpu_platform.errors import Problems
from gpu_platform.plans.dra import check_dra_settings
from gpu_platform.plans.gpu_operator import check_operator_settings
from gpu_platform.plans.kserve import check_kserve_settings
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cloud_pools import resolve_cluster_pools
from gpu_platform.resolve.cluster import ClusterSpec, resolve_cluster
from gpu_platform.resolve.dra import cluster_dra_problems, dra_driver_problems, kubernetes_version_problem
from gpu_platform.resolve.driver import DriverLocations, resolve_driver
from gpu_platform.resolve.inference import ServiceRequest, resolve_request
from gpu_platform.resolve.kueue import CapacityBasis, GpuOperatorFacts, KueueSpec, resolve_kueue
from gpu_platform.resolve.pools import ResolvedPools, check_cuda_default
from gpu_platform.resolve.volcano import VolcanoSpec, resolve_volcano
from gpu_platform.resolve.workloads import WorkloadsSpec, resolve_workloads, with_workload_integrations
from gpu_platform.stack.read import misspelled_namespace_problems
from gpu_platform.versions import GPU_OPERATOR

DRIVER_FIX = "{{gpu_operator.driver.version}} (operator driver) or {{gpu_operator.driver.host_version}} (cloud image driver)"


@dataclass(frozen=True)
class KServeSpec:
    """The ``kserve`` section: settings for the charts and one checked request per service."""

    settings: Mapping[str, Any]
    install_cert_manager: bool
    services: tuple[tuple[Mapping[str, Any], ServiceRequest], ...] = ()
    """``(service config, request)`` per ``kserve.services`` entry."""


@dataclass(frozen=True)
class PlatformSpec:
    """Everything the stack program needs, derived once from the stack file."""

    cloud: str
    cluster: ClusterSpec
    pools: tuple[GpuPool, ...]
    driver: DriverPlan
    cuda_version: str | None = None
    gpu_operator: Mapping[str, Any] | None = None
    """The ``gpuOperator`` settings, or ``None`` when it is switched off."""
    kueue: KueueSpec | None = None
    kserve: KServeSpec | None = None
    dra: Mapping[str, Any] | None = None
    """The ``dra`` settings when the NVIDIA DRA driver is enabled, else ``None``."""
    config: Mapping[str, Any] = field(default_factory=dict)
    """The validated stack file (snake_case keys), for outputs and diagnostics."""
    secret_sections: frozenset[str] = frozenset()
    """Sections holding a ``secure:`` value (snake_case): their chart values are stored encrypted."""
    workloads: WorkloadsSpec = field(default_factory=WorkloadsSpec)
    """The workload controllers the stack installs."""
    volcano: VolcanoSpec | None = None
    """Volcano and its team queues, or ``None`` when it is not installed."""


def _sections(raw: Any, p: Problems) -> dict[str, Any]:
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
            reason = unknown_key_reason(given, list(fields), camel=True)
            p.add((given,), reason)
            suggested |= {f for f in fields if f"'{_camel(f)}'?" in reason}
    for key in sorted(schema.StackConfigArgs.__required_keys__):
        if key not in snake and key not in suggested:  # a misspelt key is one mistake, said once
            p.add((key,), "required key is missing")
    for key, tp in fields.items():
        if key not in snake or key == "gpu_pools":
            continue
        value = raw[snake[key]]
        services = value.get("services", []) if key == "kserve" and isinstance(value, Mapping) else None
        if services is not None:
            value = {k: v for k, v in value.items() if k != "services"}
        parsed = parse(tp, value, p.at(key), camel=True)
        if parsed is not None:
            out[key] = parsed
            if services is not None:
                # Services are checked only against a valid kserve section: no follow-on errors.
                out["kserve_services"] = services
    if "gpu_pools" in snake:
        pools = raw[snake["gpu_pools"]]
        if not isinstance(pools, list) or not pools:
            p.add(("gpu_pools",), "must be a list of at least one GPU pool")
        else:
            out["gpu_pools"] = pools
    return out


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part.title() for part in rest)


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in str(key))


def _kserve(
    section: Mapping[str, Any],
    raw_services: Any,
    pools: ResolvedPools,
    kueue: KueueSpec | None,
    kueue_on: bool,
    p: Problems,
) -> KServeSpec | None:
    check_kserve_settings(section, p.at("kserve"))
    enabled = section.get("enabled", False)
    services: list[tuple[Mapping[str, Any], ServiceRequest]] = []
    if not isinstance(raw_services, Sequence) or isinstance(raw_services, str):
        p.add(("kserve", "services"), "must be a list of services")
        return None
    seen: set[tuple[str, str]] = set()
    by_name = pools.by_name()
    for i, raw in enumerate(raw_services):
        here = p.at("kserve", "services", i)
        svc = parse(InferenceServiceConfigArgs, raw, here, camel=True)
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
            here.add(("pool",), f"'{svc['pool']}' is not a GPU pool; valid: {', '.join(by_name)}")
        request = resolve_request(svc, svc["name"], pool, here)
        if request is not None:
            services.append((svc, request))
    if not enabled:
        return None
    return KServeSpec(section, section.get("install_cert_manager", True), tuple(services))


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


def _driver(
    cloud: str, cfg: Mapping[str, Any], pools: ResolvedPools, n_pools: int, p: Problems
) -> DriverPlan | None:
    operator = cfg.get("gpu_operator", {})
    before = p.count()
    check_operator_settings(operator, p.at("gpu_operator"))
    if p.count() != before or len(pools.pools) != n_pools:
        # The driver decision needs every pool and a known operator; what is broken is already reported.
        return None
    at = DriverLocations(
        p.at("gpu_operator", "driver"),
        lambda i: p.at("gpu_pools", i),
        p.at("gpu_pools"),
        p.at("cuda_version"),
        DRIVER_FIX,
    )
    return resolve_driver(
        cloud, pools.pools, operator.get("driver", {}), operator.get("version", GPU_OPERATOR.version), at
    )


# --- workload layer ---
def _workload_layer(
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
    elif section.get("teams"):
        p.add(("volcano", "teams"), "{{volcano.enabled}} is false")
    return workloads, volcano, kueue


# --- end workload layer ---


def _no_operator_sharing(pools: Sequence[GpuPool], at: Any) -> None:
    """Sharing configured through the GPU Operator cannot happen when the operator is switched off."""
    for pool in pools:
        if pool.sharing.mode != "none" and pool.sharing.managed_by == "operator":
            at(pool.index).add(
                ("sharing", "mode"),
                f"'{pool.sharing.mode}' is configured through the GPU Operator, which {{{{gpu_operator.enabled}}}} "
                "false leaves out; enable it, or use cloud-managed sharing (managedBy: cloud)",
            )


def _given(raw: Any) -> set[str]:
    return {_snake(k) for k in raw} if isinstance(raw, Mapping) else set()


def _with_capacity_basis(
    cloud: str,
    kueue: KueueSpec | None,
    volcano: VolcanoSpec | None,
    operator: Mapping[str, Any],
    driver: DriverPlan,
) -> tuple[KueueSpec | None, VolcanoSpec | None]:
    """Kueue's quotas and Volcano's queues count a node alike: the cloud's allocatable less the operands the
    GPU Operator runs on it."""
    facts = None
    if operator.get("enabled", True):
        facts = GpuOperatorFacts(driver, operator.get("dcgm_exporter", {}).get("enabled", True))
    if kueue is not None:
        kueue = replace(kueue, gpu_operator=facts)
    if volcano is not None:
        basis = kueue.capacity_basis if kueue is not None else CapacityBasis(cloud, gpu_operator=facts)
        volcano = replace(volcano, capacity_basis=basis)
    return kueue, volcano


def _plain_kubeconfig_problem(
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


def load_platform(
    raw: Any, other_keys: Sequence[str] = (), secret_sections: frozenset[str] | None = None
) -> PlatformSpec:
    """Parse and check the whole stack config; raise one ``ConfigError`` listing every problem.

    ``other_keys`` are the stack's config keys outside the namespace (``aws:region``): one that is a typo
    of ``gpu-platform:`` is refused, since Pulumi would silently ignore it. ``secret_sections`` are the
    sections Pulumi holds as secrets (``None``: unknown, e.g. in tests); a kubeconfig outside one is refused."""
    p = Problems()
    misspelled_namespace_problems(list(other_keys), p)
    cfg = _sections(raw, p)
    _plain_kubeconfig_problem(cfg, secret_sections, p)
    cloud: str | None = cfg.get("cloud")
    if cloud is None:
        p.raise_for_config()
    assert cloud is not None
    at = lambda i: p.at("gpu_pools", i)  # noqa: E731
    check_cuda_default(cfg.get("cuda_version"), p.at("cuda_version"))
    raw_pools = cfg.get("gpu_pools", [])
    pools = resolve_cluster_pools(cloud, raw_pools, cfg.get("cuda_version"), at, camel=True, created=True)
    cluster = (
        resolve_cluster(cloud, cfg["cluster"], pools.pools, at, p.at("cluster")) if "cluster" in cfg else None
    )
    kueue_section = cfg.get("kueue", {})
    kueue_on = kueue_section.get("enabled", True)
    system_pool = cluster.system_pool if cluster is not None and cluster.create else None
    kueue = resolve_kueue(cloud, kueue_section, pools, at, p.at("kueue"), system_pool) if kueue_on else None
    workloads, volcano, kueue = _workload_layer(cfg, pools, kueue, kueue_on, p)
    kserve = None
    if "kserve" in cfg or "kserve" not in _given(raw):
        kserve = _kserve(cfg.get("kserve", {}), cfg.get("kserve_services", []), pools, kueue, kueue_on, p)
    driver = _driver(cloud, cfg, pools, len(raw_pools), p)
    if not cfg.get("gpu_operator", {}).get("enabled", True):
        _no_operator_sharing(pools.pools, at)
    dra = _dra(cfg, pools, cluster, driver, at, p)
    p.raise_for_config()
    assert cluster is not None and driver is not None
    operator = cfg.get("gpu_operator", {})
    kueue, volcano = _with_capacity_basis(cloud, kueue, volcano, operator, driver)
    return PlatformSpec(
        cloud=Cloud(cloud).value,
        cluster=cluster,
        pools=tuple(pools.pools),
        driver=driver,
        cuda_version=cfg.get("cuda_version"),
        gpu_operator=operator if operator.get("enabled", True) else None,
        kueue=kueue,
        kserve=kserve,
        dra=dra,
        config=cfg,
        secret_sections=secret_sections or frozenset(),
        workloads=workloads,
        volcano=volcano,
    )


def _dra(
    cfg: Mapping[str, Any],
    pools: ResolvedPools,
    cluster: ClusterSpec | None,
    driver: DriverPlan | None,
    at: Any,
    p: Problems,
) -> Mapping[str, Any] | None:
    """The ``dra`` section: settings, the cluster version, the GPU Operator and the node driver."""
    section = cfg.get("dra", {})
    enabled = section.get("enabled", False)
    cluster_dra_problems(pools.pools, cfg.get("gpu_pools", []), enabled, at, p.at("dra"))
    if not enabled:
        return None
    check_dra_settings(section, p.at("dra"))
    if cluster is not None and (reason := kubernetes_version_problem(cluster.kubernetes_version)):
        p.add(("cluster", "kubernetes_version"), reason)
    if not cfg.get("gpu_operator", {}).get("enabled", True):
        p.add(
            ("dra", "enabled"),
            "needs {{gpu_operator.enabled}}: the operator's NFD labels place the DRA plugin and its per-node "
            "labels keep its device plugin off the DRA nodes",
        )
    if driver is not None:
        dra_driver_problems(
            pools.pools,
            driver,
            section.get("compute_domains", False),
            at,
            p.at("gpu_operator", "driver"),
        )
    return section
