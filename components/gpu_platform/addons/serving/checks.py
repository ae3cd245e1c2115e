"""The ``serving`` section checked once, for the stack file and ``LlmServing``: each model resolved to its
architecture, sized on its pools (``addons.kserve.llm_sizing``) and placed, or refused with the reason.

A model that fits none of its pools is refused with ``size_model``'s refusal: the model, the declared shape that
comes closest and a catalog shape that would hold it. A model whose smallest fit spans nodes (pipeline
parallelism) is served as a LeaderWorkerSet group per replica (``llm_service_plan``), unless its pool cannot hold
one (``multi_node_problem``) or its replicas would need more nodes than the pool has.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.addons.kserve.llm_service_plan import multi_node_problem, prefill_decode_problem
from gpu_platform.addons.kserve.llm_sizing import Request, Sizing, SizingError, size_model
from gpu_platform.addons.kserve.service_checks import INT32_MAX, STORAGE_SCHEMES
from gpu_platform.addons.serving.autoscaling import (
    IN_CLUSTER,
    PrometheusSource,
    prometheus_source,
    reader_source,
)
from gpu_platform.addons.serving.gateway import MAX_MODEL_NAME
from gpu_platform.addons.serving.settings import (
    DEFAULT_CONCURRENT_SEQUENCES,
    DEFAULT_MIN_REPLICAS,
    DEFAULT_PRECISION,
    DEFAULT_PREFILL_REPLICAS,
    DEFAULT_SERVING_NAMESPACE,
    LlmServingArgs,
)
from gpu_platform.args.validate import check_arguments
from gpu_platform.catalog.llm_models import LLM_MODELS, LlmModel, find_model
from gpu_platform.cloud_facts import profile_of
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
    queue: str | None = None
    """The Kueue LocalQueue (in ``namespace``) that admits the model's pods; ``None``: Kueue does not manage them.
    A stack checks it against its Kueue teams (``stack.resolve_sections.with_serving_queues``); ``LlmServing``
    takes it as given."""
    prefill_replicas: int | None = None
    """Prefill replicas beside the (decode) replicas (``prefill_decode``); ``None``: not disaggregated."""

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
    network_created: bool = False
    """The stack creates the cluster's network, and with it what the cloud's managed inference Gateway needs of
    that network (``InferenceGateway.network_requires``: GKE's proxy-only subnet)."""

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


def _prefill_replicas(raw: Mapping[str, Any], p: Problems) -> int | None:
    """The model's prefill replicas (``prefill_decode``), ``None`` when it is not disaggregated or the count is
    refused (the problem is added)."""
    pd = raw.get("prefill_decode")
    if pd is None:
        return None
    count = pd.get("prefill_replicas", DEFAULT_PREFILL_REPLICAS)
    if count < 1:
        p.add(
            ("prefill_decode", "prefill_replicas"),
            f"{count} is less than 1: a disaggregated model needs at least one prefill replica; leave "
            "{{prefill_decode}} out to serve it without disaggregation",
        )
        return None
    if count > INT32_MAX:
        p.add(
            ("prefill_decode", "prefill_replicas"),
            f"{count} is past the 32-bit replica field (at most {INT32_MAX})",
        )
        return None
    return count


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
    pool = next(pl for pl in usable if pl.name == sizing.shape.pool)
    if sizing.nodes > 1 and (reason := multi_node_problem(pool, sizing)):
        p.add(key, reason)
        return None
    return sizing


def multi_node_replicas_problem(sizing: Sizing, pool: GpuPool, max_replicas: int) -> str | None:
    """A replica spanning nodes holds each of its nodes whole: ``max_replicas`` of them must fit the pool's
    ``max_nodes``, or the last replicas could never be scheduled."""
    need = max_replicas * sizing.nodes
    if sizing.nodes < 2 or need <= pool.max_nodes:
        return None
    return (
        f"{max_replicas} replicas of {sizing.request.model.key} ({sizing.nodes} nodes each: pipeline parallelism "
        f"{sizing.shape.pp} x tensor parallelism {sizing.shape.tp}) need {need} nodes of pool '{pool.name}', which "
        f"has {{{{max_nodes}}}} {pool.max_nodes}; lower the replicas or raise the pool's {{{{max_nodes}}}}"
    )


def model_spans_nodes(raw: Mapping[str, Any], pools: ResolvedPools) -> bool:
    """Whether one ``serving.models`` entry, sized on ``pools`` as ``resolve_models`` sizes it, spans nodes (what the
    add-on's requirements ask before the section is resolved); ``False`` when it has a problem of its own."""
    if not isinstance(raw.get("model"), str):
        return False
    arch = raw.get("architecture")
    if arch is not None and not (isinstance(arch, Mapping) and all(k in arch for k in ARCHITECTURE_FIELDS)):
        return False
    scratch = Problems()
    model = llm_model(raw, scratch)
    found = _model_pools(raw, pools, scratch)
    if model is None or found is None:
        return False
    sizing = size_on_pools(raw, model, found[0], found[1], scratch)
    return sizing is not None and sizing.nodes > 1


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
        prefill = _prefill_replicas(raw, here)
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
        if reason := multi_node_replicas_problem(sizing, pool, high):
            here.add(("max_replicas" if "max_replicas" in raw else "min_replicas",), reason)
            continue
        if "prefill_decode" in raw and (reason := prefill_decode_problem(pool, sizing)):
            here.add(("prefill_decode",), reason)
            continue
        out.append(ServedModel(name, ns, uri, sizing, pool, low, high, raw, raw.get("queue"), prefill))
    return tuple(out) if p.count() == before else None


def resolve_serving(
    cloud: str,
    section: Mapping[str, Any] | None,
    pools: ResolvedPools,
    p: Problems,
    mirror: Mirror | None = None,
    metrics: tuple[str, str] | None = None,
    cluster: ServingCluster | None = None,
) -> ServingSpec | None:
    """The stack file's ``serving`` section (``p`` is at it); ``None`` when it is absent or has a problem.
    ``metrics``: the observability stack's ``(backend, namespace)``, ``None`` when it is off; ``cluster``: the
    stack's cluster (``None``: made elsewhere, project unknown)."""
    if section is None:
        return None
    before = p.count()
    models = resolve_models(section, pools, p)
    backend, namespace = metrics if metrics is not None else (None, "monitoring")
    cluster = cluster if cluster is not None else ServingCluster()
    prometheus = metrics_source(backend, namespace, section.get("models") or [], p, cloud, cluster)
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
        cluster.created,
    )


@dataclass(frozen=True)
class ServingCluster:
    """What the serving section needs of the stack's cluster: whether the stack creates it (and its network), and
    the cloud project it is in (``cluster.project``)."""

    created: bool = False
    project: str | None = None
    name: str = ""
    resource_group: str | None = None
    """AKS: the resource group (given when attaching)."""


def metrics_source(
    backend: str | None,
    namespace: str,
    models: Sequence[Mapping[str, Any]],
    p: Problems,
    cloud: str = "existing",
    cluster: ServingCluster | None = None,
) -> PrometheusSource | None:
    """Where KEDA reads vLLM's metrics, when some model is autoscaled: the observability stack's in-cluster
    Prometheus (``backend``), or the cloud's managed one where the cloud's profile describes how it is read
    (``metrics_reader``) and the cluster's project is known; each autoscaled model is refused otherwise."""
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
    cluster = cluster if cluster is not None else ServingCluster()
    reader = profile_of(cloud).metrics_reader
    readable = (*IN_CLUSTER, reader.backend) if reader is not None else IN_CLUSTER
    if reader is not None and backend == reader.backend:
        if reader.scope_setting is None or cluster.project:
            return reader_source(
                reader,
                cluster.project,
                cluster_created=cluster.created,
                cluster_name=cluster.name,
                resource_group=cluster.resource_group or "",
            )
        for i in scaled:
            p.add(
                ("models", i, "max_replicas"),
                f"above minReplicas makes KEDA query {{{{observability.backend}}}} '{backend}' in the cluster's "
                f"project, which is not given: set {{{{{reader.scope_setting}}}}}, or maxReplicas to minReplicas",
            )
        return None
    if backend is None:
        why = "{{observability.enabled}} is false"
    else:
        why = (
            f"{{{{observability.backend}}}} '{backend}' is a managed Prometheus the library cannot query yet"
        )
    for i in scaled:
        p.add(
            ("models", i, "max_replicas"),
            f"above minReplicas needs vLLM's metrics in a Prometheus KEDA can query ({', '.join(readable)}), and "
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
