"""What a live cluster should hold for a stack: derived from the stack's spec and its offline plan.

The pools' labels, taints and per-node resources come from the functions the node pools themselves use
(``scheduling.pool_labels``, ``pool_taints``, ``sharing.node_resources``); the Kueue objects and the Helm
releases are read from the plan's registrations, so the expectation is the plan, never a second copy of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.addons.observability.plan import DCGM_EXPORTER_APP
from gpu_platform.addons.platform_spec import PlatformSpec
from gpu_platform.catalog.gpudirect import GpuDirect
from gpu_platform.mirror import Mirror
from gpu_platform.offline.output import HELM_RELEASE
from gpu_platform.pools import GpuPool
from gpu_platform.releases import GPU_OPERATOR, chart_name
from gpu_platform.scheduling import pool_labels, pool_taints, pool_tolerations, selector_labels
from gpu_platform.sharing import DRA_QUOTA_PREFIX, node_resources
from gpu_platform.versions import CUDA_SAMPLE_IMAGE, NCCL_SMOKE_IMAGE

KUEUE_TYPE = "kubernetes:kueue.x-k8s.io/"
VALIDATOR_APP = "nvidia-operator-validator"
"""The ``app`` label of the GPU Operator's validator pods (NVIDIA/gpu-operator v26.7.0
``assets/state-operator-validation/0500_daemonset.yaml``)."""


@dataclass(frozen=True)
class ExpectedPool:
    """One GPU pool: what each of its nodes carries and advertises."""

    name: str
    labels: Mapping[str, str]
    taints: tuple[str, ...]
    """``key=value:Effect``."""
    allocatable: Mapping[str, int]
    """Extended resources one node advertises (huge pages in MiB): ``sharing.node_resources``."""
    min_nodes: int
    selector: Mapping[str, str] = field(default_factory=dict)
    """The labels that identify the pool's nodes (Kueue flavors and the smoke jobs select on them)."""
    tolerations: tuple[Mapping[str, str], ...] = ()
    max_nodes: int = 0
    gpus_per_node: int = 0
    """The GPUs one node has (the machine's), whatever its sharing makes of them in ``allocatable``."""
    sharing: str = "none"
    """``sharing.mode``: only ``none`` advertises each ``nvidia.com/gpu`` as one whole GPU."""
    gpudirect: GpuDirect | None = None
    """GKE GPUDirect (TCPX, TCPXO, RDMA): what a pod that uses every GPU of a node attaches for NCCL."""


@dataclass(frozen=True)
class ExpectedQueue:
    name: str
    quotas: Mapping[tuple[str, str], Any]
    """``(flavor, resource)`` -> nominal quota, as planned."""


@dataclass(frozen=True)
class ExpectedLocalQueue:
    namespace: str
    name: str
    cluster_queue: str


@dataclass(frozen=True)
class ExpectedFlavor:
    name: str
    node_labels: Mapping[str, str]


@dataclass(frozen=True)
class ExpectedRelease:
    name: str
    namespace: str
    chart: str
    """The chart's name (last path segment), as Helm records it."""
    version: str


@dataclass(frozen=True)
class ExpectedOperands:
    """The GPU Operator's pods that must run on every GPU node: ``app`` label values, in its namespace."""

    namespace: str
    apps: tuple[str, ...]


@dataclass(frozen=True)
class Expected:
    stack: str
    pools: tuple[ExpectedPool, ...] = ()
    cluster_queues: tuple[ExpectedQueue, ...] = ()
    local_queues: tuple[ExpectedLocalQueue, ...] = ()
    flavors: tuple[ExpectedFlavor, ...] = ()
    releases: tuple[ExpectedRelease, ...] = ()
    operands: ExpectedOperands | None = None
    smoke_image: str = CUDA_SAMPLE_IMAGE
    """The CUDA sample ``--smoke`` runs, from the stack's image mirror when it has one."""
    nccl_image: str = NCCL_SMOKE_IMAGE
    """The PyTorch image ``--smoke`` runs its NCCL all-reduce in, from the stack's image mirror when it has one."""
    mirror: Mirror | None = None
    """The stack's mirror, for the images of the smoke pods' GKE GPUDirect sidecars."""


def expected_pool(pool: GpuPool, spec: PlatformSpec) -> ExpectedPool:
    """A pool as its nodes carry it; DRA pools advertise no GPU extended resources (the DRA driver publishes them)."""
    resources = {k: v for k, v in node_resources(pool).items() if not k.startswith(DRA_QUOTA_PREFIX)}
    return ExpectedPool(
        name=pool.name,
        labels=pool_labels(pool, spec.driver),
        taints=tuple(f"{t.key}={t.value}:{t.effect}" for t in pool_taints(pool)),
        allocatable=resources,
        min_nodes=pool.min_nodes,
        selector=selector_labels(pool),
        tolerations=tuple(pool_tolerations(pool)),
        max_nodes=pool.max_nodes,
        gpus_per_node=pool.gpus_per_node,
        sharing=pool.sharing.mode,
        gpudirect=pool.gpudirect,
    )


def _kind(registration: Any, kind: str) -> bool:
    return bool(registration.type.startswith(KUEUE_TYPE) and registration.type.endswith(f":{kind}"))


def quotas_of(spec: Mapping[str, Any]) -> dict[tuple[str, str], Any]:
    """A ClusterQueue spec's nominal quotas, ``(flavor, resource)`` -> quantity (planned and live alike)."""
    return {
        (flavor["name"], resource["name"]): resource.get("nominalQuota")
        for group in spec.get("resourceGroups") or []
        for flavor in group.get("flavors") or []
        for resource in flavor.get("resources") or []
    }


def kueue_objects(
    resources: Iterable[Any],
) -> tuple[tuple[ExpectedQueue, ...], tuple[ExpectedLocalQueue, ...], tuple[ExpectedFlavor, ...]]:
    """The plan's ClusterQueues (with quotas), LocalQueues and ResourceFlavors (with node labels)."""
    resources = list(resources)
    queues = tuple(
        ExpectedQueue(r.inputs["metadata"]["name"], quotas_of(r.inputs.get("spec") or {}))
        for r in resources
        if _kind(r, "ClusterQueue")
    )
    local = tuple(
        ExpectedLocalQueue(
            r.inputs["metadata"].get("namespace", "default"),
            r.inputs["metadata"]["name"],
            (r.inputs.get("spec") or {}).get("clusterQueue", ""),
        )
        for r in resources
        if _kind(r, "LocalQueue")
    )
    flavors = tuple(
        ExpectedFlavor(
            r.inputs["metadata"]["name"], dict((r.inputs.get("spec") or {}).get("nodeLabels") or {})
        )
        for r in resources
        if _kind(r, "ResourceFlavor")
    )
    return queues, local, flavors


def helm_releases(resources: Iterable[Any]) -> tuple[ExpectedRelease, ...]:
    """Every Helm release of the plan at its pinned chart version."""
    return tuple(
        ExpectedRelease(
            str(r.inputs.get("name") or r.name),
            str(r.inputs.get("namespace") or "default"),
            chart_name(str(r.inputs.get("chart"))),
            str(r.inputs.get("version")),
        )
        for r in resources
        if r.type == HELM_RELEASE
    )


def operator_operands(resources: Iterable[Any]) -> ExpectedOperands | None:
    """The GPU Operator's validator, and its DCGM exporter unless the planned values switch it off."""
    operator_chart = chart_name(GPU_OPERATOR.pin.chart)
    for r in resources:
        if r.type == HELM_RELEASE and chart_name(str(r.inputs.get("chart"))) == operator_chart:
            values = r.inputs.get("values") or {}
            dcgm = (values.get("dcgmExporter") or {}).get("enabled", True) is not False
            apps = (VALIDATOR_APP, DCGM_EXPORTER_APP) if dcgm else (VALIDATOR_APP,)
            return ExpectedOperands(str(r.inputs.get("namespace") or "gpu-operator"), apps)
    return None


def expected_state(spec: PlatformSpec, stack: str, resources: Iterable[Any]) -> Expected:
    """The expectation for ``stack``: its spec's pools and the plan's registrations (``Plan.resources``)."""
    resources = list(resources)
    queues, local, flavors = kueue_objects(resources)
    return Expected(
        stack=stack,
        pools=tuple(expected_pool(p, spec) for p in spec.pools),
        cluster_queues=queues,
        local_queues=local,
        flavors=flavors,
        releases=helm_releases(resources),
        operands=operator_operands(resources),
        smoke_image=spec.mirror.image(CUDA_SAMPLE_IMAGE) if spec.mirror else CUDA_SAMPLE_IMAGE,
        nccl_image=spec.mirror.image(NCCL_SMOKE_IMAGE) if spec.mirror else NCCL_SMOKE_IMAGE,
        mirror=spec.mirror,
    )
