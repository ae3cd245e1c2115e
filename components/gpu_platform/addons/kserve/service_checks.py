"""Inference services: what each asks of its pool, resolved and checked once.

A request is judged by ``gpu_requests`` whether it comes from the stack file or from
``GpuInferenceService``: whole units of what the pool advertises, fitting on one node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpu_platform.addons.kserve.gpu_memory import (
    UNSET_GPU_MEMORY,
    GpuMemory,
    budget_reason,
    over_budget,
    pods_at_most,
    resolve_gpu_memory,
    shared_replicas,
)
from gpu_platform.addons.kserve.gpu_requests import (
    gpu_resource,
    gpu_units_problems,
    isolated_slice,
    whole_number_problems,
)
from gpu_platform.addons.kserve.service_settings import (
    DEFAULT_MIN_REPLICAS,
    DEFAULT_SERVICE_CPU,
    DEFAULT_SERVICE_GPUS,
    DEFAULT_SERVICE_MEMORY,
    DEFAULT_SERVICE_NAMESPACE,
    GpuInferenceServiceArgs,
)
from gpu_platform.args.operators import DEFAULT_DEPLOYMENT_MODE
from gpu_platform.args.validate import check_arguments
from gpu_platform.errors import Problems
from gpu_platform.formats.secret import is_stand_in
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.kubernetes import (
    DNS_1035_LABEL,
    DNS_SUBDOMAIN,
    QUANTITY,
    RESERVED_NAMESPACES,
    namespace_problem,
)
from gpu_platform.resolve.pools import resolve_pool_list
from gpu_platform.sharing import card_memory_mib

_FIELD = {"gpus": "gpus", "mig_profile": "mig_profile"}
INT32_MAX = 2**31 - 1
"""Replica counts land in int32 fields of the InferenceService."""
STORAGE_SCHEMES = ("gs", "s3", "pvc", "hf", "http", "https", "oci", "hdfs", "webhdfs")
"""The schemes KServe's storage initializer downloads from."""


@dataclass(frozen=True)
class ServiceRequest:
    """What one replica of a service asks for, on which pool."""

    name: str
    namespace: str
    pool: GpuPool
    resource: str
    """Extended resource requested (``nvidia.com/gpu``, ``nvidia.com/mig-3g.40gb`` ...)."""
    units: int
    min_replicas: int
    max_replicas: int
    cpu: str
    memory: str
    queue: str | None
    priority_class: str | None
    gpu_memory: GpuMemory = UNSET_GPU_MEMORY
    """The model server's share of each GPU's memory (``addons.kserve.gpu_memory``)."""
    gpu_memory_mib: int | None = None
    """Isolated pools: MiB of a card per unit (``nvidia.com/gpumem``); ``None``: a whole card's."""


def check_service_shape(raw: Mapping[str, Any], name: str, p: Problems) -> tuple[int, int]:
    """Name, namespace, quantities and replica bounds; returns ``(min_replicas, max_replicas)``."""
    if not DNS_1035_LABEL.match(name):
        p.add(
            ("name",),
            f"{name!r} is not a DNS-1035 label (lowercase letters, digits, '-', starting with a letter, <= 63)",
        )
    namespace = raw.get("namespace", DEFAULT_SERVICE_NAMESPACE)
    if isinstance(namespace, str) and (reason := namespace_problem(namespace)):
        p.add(("namespace",), reason)
    elif namespace != "default" and namespace in RESERVED_NAMESPACES:
        p.add(
            ("namespace",),
            f"'{namespace}' is {RESERVED_NAMESPACES[namespace]}; run models in their own namespace",
        )
    for key, default in (("cpu", DEFAULT_SERVICE_CPU), ("memory", DEFAULT_SERVICE_MEMORY)):
        value = raw.get(key, default)
        if isinstance(value, str) and not QUANTITY.match(value):
            p.add((key,), f"{value!r} is not a Kubernetes quantity (like '2', '500m', '8Gi')")
    _check_model(raw, p)
    low = raw.get("min_replicas", DEFAULT_MIN_REPLICAS)
    high = raw.get("max_replicas", max(low, 1))
    for key, count in (("min_replicas", low), ("max_replicas", high)):
        if count > INT32_MAX:
            p.add((key,), f"{count} is past the 32-bit replica field (at most {INT32_MAX})")
    if low < 0:
        p.add(("min_replicas",), f"{low} is negative")
    if high < 1:
        p.add(("max_replicas",), f"{high} is less than 1")
    elif high < low:
        p.add(("max_replicas",), f"{high} is less than minReplicas {low}")
    return low, high


def _check_model(raw: Mapping[str, Any], p: Problems) -> None:
    """A model format KServe can match, and a storage URI its storage initializer can download."""
    model_format = raw.get("model_format")
    if isinstance(model_format, str) and not model_format.strip():
        p.add(("model_format",), "empty: name the model's format (huggingface, sklearn, onnx ...)")
    runtime = raw.get("runtime")
    if isinstance(runtime, str) and (len(runtime) > 253 or not DNS_SUBDOMAIN.match(runtime)):
        p.add(
            ("runtime",),
            f"{runtime!r} is not a ServingRuntime name (a Kubernetes object name: lowercase letters, digits, "
            "'-' and '.', like kserve-huggingfaceserver)",
        )
    uri = raw.get("storage_uri")
    if isinstance(uri, str) and not is_stand_in(uri):  # a secret URI is checked when pulumi up reads it
        scheme, sep, rest = uri.partition("://")
        if not sep or scheme not in STORAGE_SCHEMES:
            p.add(
                ("storage_uri",),
                f"{uri!r}: the scheme must be one of {', '.join(f'{s}://' for s in STORAGE_SCHEMES)}",
            )
        elif not rest.strip("/"):
            p.add(("storage_uri",), f"{uri!r} names no bucket, volume or path after {scheme}://")


def resolve_request(
    raw: Mapping[str, Any], name: str, pool: GpuPool | None, p: Problems
) -> ServiceRequest | None:
    """The service's request on ``pool`` (``None`` when the pool is unknown or broken), checked."""
    before = p.count()
    low, high = check_service_shape(raw, name, p)
    gpus = raw.get("gpus", DEFAULT_SERVICE_GPUS)
    if pool is None:
        for key, reason in whole_number_problems(gpus):
            p.add((_FIELD[key],), reason)
        return None
    if pool.dra:  # DRA: no extended resources to request on these nodes
        p.add(
            ("pool",),
            f"pool '{pool.name}' has allocation 'dra': its GPUs are claimed through ResourceClaimTemplates, not "
            "requested as nvidia.com/* resources; build the predictor with gpu_platform.addons.dra.plan.predictor_claims "
            "(KServe Standard mode), or serve from a device-plugin pool",
        )
        return None
    resource, problems = gpu_resource(pool, raw.get("mig_profile"))
    problems += gpu_units_problems(gpus, pool, resource)
    for key, reason in problems:
        p.add((_FIELD[key],), reason)
    if pool.max_nodes == 0:
        p.add(("pool",), f"pool '{pool.name}' has {{{{max_nodes}}}} 0: the service could never run")
    gpu_memory = resolve_gpu_memory(raw, pool, p)
    gpu_memory_mib = isolated_slice(raw.get("gpu_memory_mib"), pool, p)
    if p.count() != before or resource is None:
        return None
    return ServiceRequest(
        name=name,
        namespace=raw.get("namespace", DEFAULT_SERVICE_NAMESPACE),
        pool=pool,
        resource=resource,
        units=int(gpus),
        min_replicas=low,
        max_replicas=high,
        cpu=raw.get("cpu", DEFAULT_SERVICE_CPU),
        memory=raw.get("memory", DEFAULT_SERVICE_MEMORY),
        queue=raw.get("queue"),
        priority_class=raw.get("priority_class"),
        gpu_memory=gpu_memory,
        gpu_memory_mib=gpu_memory_mib,
    )


def resolve_service_args(name: str, args: Any) -> tuple[ServiceRequest, Mapping[str, Any], str]:
    """``GpuInferenceService``'s arguments checked: the request, the model settings and the deployment mode;
    ``ArgumentsError`` lists every problem."""
    p = Problems()
    checked = check_arguments(GpuInferenceServiceArgs, args, p)
    if checked is None:
        p.raise_for_arguments()
    assert checked is not None
    resolved = resolve_pool_list(checked["cloud"], [checked["pool"]], None, lambda _: p.at("pool"))
    pool = resolved.pools[0] if resolved.pools else None
    request = resolve_request(checked, checked.get("name", name), pool, p)
    if checked.get("priority_class") is not None and checked.get("queue") is None:
        # Kueue reads the priority only of workloads it admits, i.e. those labelled with a LocalQueue; the
        # component cannot see which LocalQueues the namespace has (the stack file defaults a team's).
        p.add(
            ("priority_class",),
            "needs {{queue}}: without a LocalQueue the predictor bypasses Kueue and the priority means nothing; "
            "name the namespace's LocalQueue",
        )
    if request is not None:
        fits_any_neighbours(request, p)
    p.raise_for_arguments()
    assert request is not None
    return request, checked, checked.get("deployment_mode", DEFAULT_DEPLOYMENT_MODE)


def fits_any_neighbours(request: ServiceRequest, p: Problems) -> None:
    """A component cannot see the other services on its pool: any pods on one GPU may take its fraction."""
    replicas = shared_replicas(request.pool)
    m = request.gpu_memory
    if replicas is None or m.fraction is None or m.source == "default":
        return
    if worst := over_budget([m.fraction] * replicas, replicas):
        key = "gpu_memory_utilization" if m.source == "setting" else "args"
        p.add((key,), budget_reason(request.pool, worst, "its pods and any others on the pool"))


def isolated_memory_problems(placed: Sequence[tuple[Problems, ServiceRequest]]) -> None:
    """The stack's services on one isolated pool: their memory slices at ``max_replicas`` fit in the pool's
    cards at ``max_nodes`` (what Kueue's ``nvidia.com/total-gpumem`` quota counts), else each service is told."""
    by_pool: dict[str, list[tuple[Problems, ServiceRequest]]] = {}
    for here, request in placed:
        if request.pool.sharing.mode == "isolated":
            by_pool.setdefault(request.pool.name, []).append((here, request))
    for entries in by_pool.values():
        pool = entries[0][1].pool
        card = card_memory_mib(pool)
        held = pool.max_nodes * pool.gpus_per_node * card
        asked = sum(r.max_replicas * r.units * (r.gpu_memory_mib or card) for _, r in entries)
        if asked <= held:
            continue
        names = ", ".join(r.name for _, r in entries)
        for here, _ in entries:
            here.add(
                ("gpu_memory_mib",),
                f"the services on pool '{pool.name}' ({names}) ask for {asked} MiB at their max replicas, more "
                f"than its {pool.max_nodes} x {pool.gpus_per_node} {pool.gpu.display} hold ({held} MiB): "
                "lower their slices or replicas, or raise max_nodes",
            )


def shared_memory_problems(placed: Sequence[tuple[Problems, ServiceRequest]]) -> None:
    """The stack's services on one shared pool: the pods one GPU can hold (each service's replicas and rollout
    surge) stay within its memory, else each service that set its own fraction is told."""
    by_pool: dict[str, list[tuple[Problems, ServiceRequest]]] = {}
    for here, request in placed:
        if shared_replicas(request.pool) is not None and request.gpu_memory.fraction is not None:
            by_pool.setdefault(request.pool.name, []).append((here, request))
    for entries in by_pool.values():
        pool = entries[0][1].pool
        replicas = shared_replicas(pool) or 1
        fractions = [
            r.gpu_memory.fraction or 0.0 for _, r in entries for _ in range(pods_at_most(r.max_replicas))
        ]
        worst = over_budget(fractions, replicas)
        if worst is None:
            continue
        names = ", ".join(r.name for _, r in entries)
        for here, r in entries:
            if r.gpu_memory.source in ("setting", "args"):
                key = "gpu_memory_utilization" if r.gpu_memory.source == "setting" else "args"
                here.add((key,), budget_reason(pool, worst, f"its services ({names}) with their rollouts"))


@dataclass(frozen=True)
class KServeSpec:
    """The ``kserve`` section: settings for the charts and one checked request per service."""

    settings: Mapping[str, Any]
    install_cert_manager: bool
    services: tuple[tuple[Mapping[str, Any], ServiceRequest], ...] = ()
    """``(service config, request)`` per ``kserve.services`` entry."""
