"""The ``serving`` section checked once, for the stack file and ``LlmServing``: each model resolved to its
architecture, sized on its pools (``addons.kserve.llm_sizing``) and placed, or refused with the reason.

A model that fits none of its pools is refused with ``size_model``'s refusal: the model, the declared shape that
comes closest and a catalog shape that would hold it. A model whose smallest fit spans nodes (pipeline
parallelism) is refused as ``llm_service_plan`` refuses it: KServe v0.20.0's presets run no such replica.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.addons.kserve.llm_sizing import Request, Sizing, SizingError, describe_request, size_model
from gpu_platform.addons.kserve.service_checks import INT32_MAX, STORAGE_SCHEMES
from gpu_platform.addons.serving.autoscaling import IN_CLUSTER, PrometheusSource, prometheus_source
from gpu_platform.addons.serving.gateway import MAX_MODEL_NAME
from gpu_platform.addons.serving.settings import (
    DEFAULT_CONCURRENT_SEQUENCES,
    DEFAULT_MIN_REPLICAS,
    DEFAULT_PRECISION,
    DEFAULT_SERVING_NAMESPACE,
    LlmServingArgs,
)
from gpu_platform.args.validate import check_arguments
from gpu_platform.catalog.llm_models import LLM_MODELS, LlmModel, find_model
from gpu_platform.errors import Problems
from gpu_platform.formats.secret import is_stand_in
from gpu_platform.mirror import Mirror
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.kubernetes import DNS_1035_LABEL, RESERVED_NAMESPACES, namespace_problem
from gpu_platform.resolve.mirror import resolve_mirror
from gpu_platform.resolve.pools import ResolvedPools, resolve_pool_list, valid_pools

ARCHITECTURE_FIELDS = ("params_b", "layers", "attention_heads", "kv_heads", "head_dim", "max_context")


@dataclass(frozen=True)
class ServedModel:
    """One model, sized and placed: what its ``LLMInferenceService`` is made from."""

    name: str
    namespace: str
    uri: str
    sizing: Sizing
    pool: GpuPool
    """The pool of the chosen shape (``sizing.shape.pool``)."""
    min_replicas: int
    max_replicas: int
    settings: Mapping[str, Any] = field(default_factory=dict)
    """The model's entry as given (snake_case), for the parts planned beside the service."""

    @property
    def autoscaled(self) -> bool:
        return self.max_replicas > self.min_replicas


@dataclass(frozen=True)
class ServingSpec:
    """The ``serving`` section resolved: every model sized on its pools."""

    namespace: str
    models: tuple[ServedModel, ...]
    settings: Mapping[str, Any] = field(default_factory=dict)
    """The section as given (snake_case)."""
    pools: tuple[GpuPool, ...] = ()
    """Every GPU pool of the stack (the models' pools among them)."""
    cloud: str = "existing"
    mirror: Mirror | None = None
    prometheus: PrometheusSource | None = None
    """Where KEDA reads vLLM's metrics for the autoscaled models (``None``: no model is autoscaled)."""

    @property
    def autoscaled(self) -> tuple[ServedModel, ...]:
        """The models KEDA scales (``max_replicas`` above ``min_replicas``)."""
        return tuple(m for m in self.models if m.autoscaled)

    @property
    def namespaces(self) -> tuple[str, ...]:
        """The models' namespaces, each once, in order."""
        return tuple(dict.fromkeys(m.namespace for m in self.models))


def llm_model(raw: Mapping[str, Any], p: Problems) -> LlmModel | None:
    """The catalog's entry for ``model`` or the one its ``architecture`` describes; ``None`` with the problem."""
    name = raw["model"]
    arch = raw.get("architecture")
    if arch is not None:
        bad = [k for k in ARCHITECTURE_FIELDS if not arch[k] > 0]
        for key in bad:
            p.add(("architecture", key), f"{arch[key]} must be greater than 0")
        if bad:
            return None
        hf_id = name.removeprefix("hf://")
        found = find_model(name)
        return LlmModel(
            found.key if found else hf_id,
            found.hf_id if found else hf_id,
            float(arch["params_b"]),
            *(int(arch[k]) for k in ARCHITECTURE_FIELDS[1:]),
        )
    found = find_model(name)
    if found is None:
        p.add(
            ("model",),
            f"'{name}' is not in the model catalog ({', '.join(LLM_MODELS)}); give its numbers under "
            "{{architecture}} ({{params_b}}, {{layers}}, {{attention_heads}}, {{kv_heads}}, {{head_dim}}, "
            "{{max_context}} from its config.json)",
        )
    return found


def _uri_problem(uri: str) -> str | None:
    if is_stand_in(uri):
        return None
    scheme, sep, rest = uri.partition("://")
    if not sep or scheme not in STORAGE_SCHEMES:
        return f"{uri!r}: the scheme must be one of {', '.join(f'{s}://' for s in STORAGE_SCHEMES)}"
    if not rest.strip("/"):
        return f"{uri!r} names no bucket, volume, repository or path after {scheme}://"
    return None


def _namespace_problem(namespace: str) -> str | None:
    if reason := namespace_problem(namespace):
        return reason
    if namespace != "default" and namespace in RESERVED_NAMESPACES:
        return f"'{namespace}' is {RESERVED_NAMESPACES[namespace]}; serve models in their own namespace"
    return None


def _replicas(raw: Mapping[str, Any], p: Problems) -> tuple[int, int]:
    low = raw.get("min_replicas", DEFAULT_MIN_REPLICAS)
    high = raw.get("max_replicas", max(low, 1))
    if low < 0:
        p.add(("min_replicas",), f"{low} is negative")
    if high > INT32_MAX:
        p.add(("max_replicas",), f"{high} is past the 32-bit replica field (at most {INT32_MAX})")
    if high < 1:
        p.add(("max_replicas",), f"{high} is less than 1")
    elif high < low:
        p.add(("max_replicas",), f"{high} is less than minReplicas {low}")
    return low, high


def _model_pools(
    raw: Mapping[str, Any], pools: ResolvedPools, p: Problems
) -> tuple[list[GpuPool], bool] | None:
    """The pools the model may use, in the order given (default every pool), and whether it named them; ``None``
    when one is unknown or broken (the problem is added, or was at the pool)."""
    by_name = pools.by_name()
    names = raw.get("pools")
    if names is None:
        return list(pools.pools), False
    if not names:
        p.add(
            ("pools",),
            f"an empty list: name at least one GPU pool, or leave it out for every pool; "
            f"{valid_pools(by_name)}",
        )
        return None
    out, ok = [], True
    for name in names:
        pool = by_name.get(name)
        if pool is None:
            ok = False
            if name not in pools.broken:
                p.add(("pools",), f"'{name}' is not a GPU pool; {valid_pools(by_name)}")
            continue
        out.append(pool)
    return (out, True) if ok else None


def _unsizable(pool: GpuPool) -> str | None:
    """Why no replica is sized on ``pool`` (a DRA pool, a memory-isolated share, no nodes), else ``None``."""
    if pool.dra:
        return f"pool '{pool.name}' has allocation 'dra': its GPUs are claimed, not requested; serve from a device-plugin pool"
    if pool.sharing.mode not in ("none", "mig", "time-slicing", "mps"):
        return (
            f"pool '{pool.name}' shares its GPUs '{pool.sharing.mode}', which the sizing does not cover yet"
        )
    if pool.max_nodes == 0:
        return f"pool '{pool.name}' has {{{{max_nodes}}}} 0: the model could never run"
    return None


def size_on_pools(
    raw: Mapping[str, Any], model: LlmModel, pools: Sequence[GpuPool], named: bool, p: Problems
) -> Sizing | None:
    """``size_model`` on the model's pools, with its refusal at ``pools`` (or ``model`` when every pool was
    meant), and a replica spanning nodes refused."""
    key = ("pools",) if named else ("model",)
    usable = []
    for pool in pools:
        reason = _unsizable(pool)
        if reason is not None and named:
            p.add(("pools",), reason)
        elif reason is None:
            usable.append(pool)
    if named and len(usable) != len(pools):
        return None
    request = Request(
        model,
        raw.get("precision", DEFAULT_PRECISION),
        raw.get("context_length"),
        raw.get("concurrent_sequences", DEFAULT_CONCURRENT_SEQUENCES),
    )
    try:
        sizing = size_model(request, usable)
    except SizingError as exc:
        text = str(exc)
        where = ("precision",) if "precision" in text and " is not one of " in text else key
        if " context " in text and "max_position_embeddings" in text:
            where = ("context_length",)
        elif "concurrency" in text and "must be at least" in text:
            where = ("concurrent_sequences",)
        p.add(where, text)
        return None
    if sizing.nodes > 1:
        p.add(
            key,
            f"{describe_request(request)} needs {sizing.nodes} nodes of pool '{sizing.shape.pool}' per replica "
            f"(pipeline parallelism over {sizing.shape.tp} x {sizing.shape.device} each), which KServe v0.20.0's "
            "presets do not run; use a pool with larger GPUs or more per node, lower the context or the "
            "concurrency, or fp8",
        )
        return None
    return sizing


def resolve_models(
    section: Mapping[str, Any], pools: ResolvedPools, p: Problems
) -> tuple[ServedModel, ...] | None:
    """Every model of the section sized and placed (``p`` is at the section); ``None`` on a problem."""
    before = p.count()
    namespace = section.get("namespace", DEFAULT_SERVING_NAMESPACE)
    if reason := _namespace_problem(namespace):
        p.add(("namespace",), reason)
    models = section.get("models") or []
    if not models:
        p.add(("models",), "required: at least one model (name, model, pools ...)")
    out: list[ServedModel] = []
    seen: set[tuple[str, str]] = set()
    for i, raw in enumerate(models):
        here = p.at("models", i)
        name = raw["name"]
        if not DNS_1035_LABEL.match(name):
            here.add(
                ("name",),
                f"{name!r} is not a DNS-1035 label (lowercase letters, digits, '-', starting with a letter, <= 63)",
            )
        elif len(name) > MAX_MODEL_NAME:
            here.add(
                ("name",),
                f"'{name}' is {len(name)} characters: at most {MAX_MODEL_NAME}, so the names KServe derives from it "
                "(<name>-kserve-router-scheduler, <name>-inference-pool ...) stay within 63",
            )
        ns = raw.get("namespace", namespace)
        if "namespace" in raw and (reason := _namespace_problem(ns)):
            here.add(("namespace",), reason)
        if (ns, name) in seen:
            here.add(("name",), f"'{name}' is already used in namespace '{ns}'")
        seen.add((ns, name))
        low, high = _replicas(raw, here)
        if low == 0 and high > 0:
            here.add(
                ("min_replicas",),
                "0 would stop the model: KEDA scales on vLLM's own metrics, which vanish with its last pod; keep 1",
            )
        model = llm_model(raw, here)
        uri = raw.get("uri") or (f"hf://{model.hf_id}" if model is not None else "")
        if "uri" in raw and (reason := _uri_problem(uri)):
            here.add(("uri",), reason)
        found = _model_pools(raw, pools, here)
        if model is None or found is None:
            continue
        candidates, named = found
        sizing = size_on_pools(raw, model, candidates, named, here)
        if sizing is None:
            continue
        pool = next(pl for pl in candidates if pl.name == sizing.shape.pool)
        out.append(ServedModel(name, ns, uri, sizing, pool, low, high, raw))
    return tuple(out) if p.count() == before else None


def resolve_serving(
    cloud: str,
    section: Mapping[str, Any] | None,
    pools: ResolvedPools,
    p: Problems,
    mirror: Mirror | None = None,
    metrics: tuple[str, str] | None = None,
) -> ServingSpec | None:
    """The stack file's ``serving`` section (``p`` is at it); ``None`` when it is absent or has a problem.
    ``metrics``: the observability stack's ``(backend, namespace)``, ``None`` when it is off."""
    if section is None:
        return None
    before = p.count()
    models = resolve_models(section, pools, p)
    backend, namespace = metrics if metrics is not None else (None, "monitoring")
    prometheus = metrics_source(backend, namespace, section.get("models") or [], p)
    if models is None or p.count() != before:
        return None
    return ServingSpec(
        section.get("namespace", DEFAULT_SERVING_NAMESPACE),
        models,
        section,
        tuple(pools.pools),
        cloud,
        mirror,
        prometheus,
    )


def metrics_source(
    backend: str | None, namespace: str, models: Sequence[Mapping[str, Any]], p: Problems
) -> PrometheusSource | None:
    """Where KEDA reads vLLM's metrics: the observability stack's in-cluster Prometheus (``backend``), when some
    model is autoscaled; each autoscaled model is refused when there is none."""
    scaled = [
        i
        for i, m in enumerate(models)
        if m.get("max_replicas", m.get("min_replicas", DEFAULT_MIN_REPLICAS))
        > m.get("min_replicas", DEFAULT_MIN_REPLICAS)
    ]
    if not scaled:
        return None
    if backend in IN_CLUSTER:
        return prometheus_source(backend, monitoring_namespace=namespace)
    why = (
        "{{observability.enabled}} is false"
        if backend is None
        else f"{{{{observability.backend}}}} '{backend}' is a managed Prometheus the library cannot query yet"
    )
    for i in scaled:
        p.add(
            ("models", i, "max_replicas"),
            f"above minReplicas needs vLLM's metrics in an in-cluster Prometheus ({', '.join(IN_CLUSTER)}), and "
            f"{why}: set maxReplicas to minReplicas, or use one of those backends",
        )
    return None


def resolve_serving_args(args: LlmServingArgs) -> ServingSpec:
    """``LlmServing``'s arguments checked and resolved as the stack file's ``serving`` is; ``ArgumentsError``
    lists every problem with its argument path."""
    p = Problems()
    checked = check_arguments(LlmServingArgs, args, p)
    if checked is None:
        p.raise_for_arguments()
    assert checked is not None
    resolved = resolve_pool_list(checked["cloud"], checked["pools"], None, lambda i: p.at("pools", i))
    mirror = resolve_mirror(checked.get("mirror"), p.at("mirror"))
    # A component has no observability stack of its own: its autoscaled models read kube-prometheus-stack's.
    spec = resolve_serving(
        checked["cloud"], checked, resolved, p, mirror, ("kube-prometheus-stack", "monitoring")
    )
    p.raise_for_arguments()
    assert spec is not None
    return spec
