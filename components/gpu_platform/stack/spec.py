"""The whole stack file, parsed, resolved and checked once: ``load_platform(raw) -> PlatformSpec``.

Each section is validated on its own and every resolver runs, so one run reports every problem of a
stack file, each once, as ``gpu-platform:<camelCase path>: <reason>``; a broken pool produces no
follow-on errors in the queues and services that name it. Nothing is registered until this passes.
The checks themselves live in ``resolve`` (``stack.resolve_sections`` for those across sections); this module only
runs them in order and assembles the spec.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gpu_platform.addons.dra.checks import DraSpec
from gpu_platform.addons.gpu_operator.checks import GpuOperatorSpec
from gpu_platform.addons.kserve.plan import check_kserve_settings
from gpu_platform.addons.kserve.service_checks import KServeSpec
from gpu_platform.addons.kueue.checks import KueueSpec, resolve_kueue, without_exclusive
from gpu_platform.addons.observability.checks import ObservabilitySpec, resolve_observability
from gpu_platform.addons.platform_spec import PlatformSpec
from gpu_platform.addons.registry import requirement_problems
from gpu_platform.addons.serving.checks import ServingCluster, resolve_serving
from gpu_platform.addons.slurm.checks import slurm_pool_names
from gpu_platform.args.common import Cloud
from gpu_platform.cloud_facts import profile_of
from gpu_platform.cloud_facts.profile import PoolProblems
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cluster import ClusterSpec, resolve_cluster
from gpu_platform.resolve.cluster_pools import resolve_cluster_pools
from gpu_platform.resolve.mirror import resolve_mirror
from gpu_platform.resolve.pools import ResolvedPools, check_cuda_default
from gpu_platform.resolve.zones import spread_over_gpu_zones
from gpu_platform.stack.platform_namespaces import platform_namespace_problems
from gpu_platform.stack.resolve_sections import (
    config_sections,
    given_keys,
    misspelled_namespace_problems,
    plain_kubeconfig_problem,
    resolve_kserve,
    resolve_stack_dra,
    resolve_stack_driver,
    resolve_stack_slurm,
    with_capacity_basis,
    with_serving_queues,
    workload_layer,
)
from gpu_platform.stack.secret_settings import secret_leaf_problems, without_follow_ons
from gpu_platform.stack.shared_pools import shared_pool_problems

__all__ = ["KServeSpec", "PlatformSpec", "load_platform"]


def load_platform(
    raw: Any, other_keys: Sequence[str] = (), secret_sections: frozenset[str] | None = None
) -> PlatformSpec:
    """Parse and check the whole stack config; raise one ``ConfigError`` listing every problem.

    ``other_keys`` are the stack's config keys outside the namespace (``aws:region``): one that is a typo
    of ``gpu-platform:`` is refused, since Pulumi would silently ignore it. ``secret_sections`` are the
    sections Pulumi holds as secrets (``None``: unknown, e.g. in tests); a kubeconfig outside one is refused."""
    p = Problems()
    misspelled_namespace_problems(list(other_keys), p)
    refused = secret_leaf_problems(raw, p)
    spec = resolve_platform(raw, p, secret_sections)
    without_follow_ons(p, refused)
    p.raise_for_config()
    assert spec is not None
    return spec


def _cluster(
    cloud: str, cfg: Mapping[str, Any], pools: list[GpuPool], at: PoolProblems, p: Problems
) -> ClusterSpec | None:
    """The cluster section resolved; then pools without zones span the zones of its region that have their GPU
    (``resolve.zones``), before anything reads their zones."""
    if "cluster" not in cfg:
        return None
    cluster = resolve_cluster(cloud, cfg["cluster"], pools, at, p.at("cluster"))
    if cluster is not None:
        spread_over_gpu_zones(cloud, cluster.region, pools)
    return cluster


def _domains(cfg: Mapping[str, Any]) -> bool:
    """DRA ComputeDomains are on: each DRA pool's channel is then one more resource Kueue's queues cover."""
    dra = DraSpec.from_settings(cfg.get("dra", {}))
    return dra.enabled and dra.compute_domains


def _kserve(
    raw: Any,
    cfg: Mapping[str, Any],
    pools: ResolvedPools,
    kueue: KueueSpec | None,
    kueue_on: bool,
    p: Problems,
    camel: bool,
) -> KServeSpec | None:
    """The ``kserve`` section checked and its services resolved; ``None`` when the stack file gives a ``kserve``
    section that ``config_sections`` left out of ``cfg``."""
    if "kserve" not in cfg and "kserve" in given_keys(raw):
        return None
    section = cfg.get("kserve", {})
    check_kserve_settings(section, p.at("kserve"))
    return resolve_kserve(section, cfg.get("kserve_services", []), pools, kueue, kueue_on, p, camel)


def _stack_wide_problems(
    cfg: Mapping[str, Any], secret_sections: frozenset[str] | None, p: Problems
) -> str | None:
    """Checks of settings across sections (a kubeconfig out of a secret, namespaces the platform owns); the cloud,
    or ``None`` when none is given."""
    plain_kubeconfig_problem(cfg, secret_sections, p)
    cloud: str | None = cfg.get("cloud")
    if cloud is not None:
        platform_namespace_problems(cloud, cfg, p)
    return cloud


def _serving_inputs(
    observability: ObservabilitySpec | None, cluster: ClusterSpec | None, cfg: Mapping[str, Any]
) -> tuple[tuple[str, str] | None, ServingCluster]:
    """What the serving section needs of the observability stack (its ``(backend, namespace)``, ``None`` when it
    is off) and of the cluster (of one with problems of its own, its settings as given)."""
    metrics = (observability.backend, observability.namespace) if observability is not None else None
    if cluster is not None:
        return metrics, ServingCluster(cluster.create, cluster.project, cluster.name, cluster.resource_group)
    given = cfg.get("cluster", {})
    return metrics, ServingCluster(given.get("create", True), given.get("project"))


def resolve_platform(
    raw: Any, p: Problems, secret_sections: frozenset[str] | None = None, camel: bool = True
) -> PlatformSpec | None:
    """Every check of the stack file on ``raw``, each problem added to ``p``; the spec, or ``None`` when
    there is a problem. ``load_platform`` (the stack file, ``camel``) and the ``GpuPlatform`` component
    (Python arguments, snake_case suggestions) both run exactly this."""
    cfg = config_sections(raw, p, camel)
    cloud = _stack_wide_problems(cfg, secret_sections, p)
    if cloud is None:
        return None
    at = lambda i: p.at("gpu_pools", i)  # noqa: E731
    check_cuda_default(cfg.get("cuda_version"), p.at("cuda_version"))
    raw_pools = cfg.get("gpu_pools", [])
    # Pools of clouds that make no nodes (existing, OpenShift, Yandex) only describe nodes made elsewhere.
    created = profile_of(cloud).creates_nodes
    pools = resolve_cluster_pools(cloud, raw_pools, cfg.get("cuda_version"), at, camel=camel, created=created)
    cluster = _cluster(cloud, cfg, pools.pools, at, p)
    kueue_section = cfg.get("kueue", {})
    kueue_on = kueue_section.get("enabled", True)
    system_pool = cluster.system_pool if cluster is not None and cluster.create else None
    # Slurm's pools are its own: Kueue's quotas and Volcano's queues are made over the others.
    scheduled = without_exclusive(pools, slurm_pool_names(cfg.get("slurm", {})))
    kueue = (
        resolve_kueue(cloud, kueue_section, scheduled, at, p.at("kueue"), system_pool, None, _domains(cfg))
        if kueue_on
        else None
    )
    workloads, volcano, kueue = workload_layer(cfg, scheduled, kueue, kueue_on, p)
    slurm = resolve_stack_slurm(cfg, pools, kueue_on, p)
    kserve = _kserve(raw, cfg, pools, kueue, kueue_on, p, camel)
    shared_pool_problems(pools.pools, kueue, kserve, at)  # no unisolated GPU shared across teams
    driver = resolve_stack_driver(cloud, cfg.get("gpu_operator", {}), pools, len(raw_pools), p)
    operator = GpuOperatorSpec.from_settings(cfg.get("gpu_operator", {}))
    requirement_problems(cfg, pools.pools, at, p)
    dra = resolve_stack_dra(cfg, pools, cluster, driver, at, p)
    observability = resolve_observability(cloud, cfg.get("observability", {}), p.at("observability"))
    mirror = resolve_mirror(cfg.get("mirror"), p.at("mirror"))
    metrics, on = _serving_inputs(observability, cluster, cfg)
    serving = resolve_serving(cloud, cfg.get("serving"), pools, p.at("serving"), mirror, metrics, on)
    serving = with_serving_queues(serving, kueue, kueue_on, scheduled.pools, p.at("serving"))
    if p or cluster is None or driver is None:
        return None
    kueue, volcano = with_capacity_basis(cloud, kueue, volcano, operator, driver, dra, observability)
    return PlatformSpec(
        cloud=Cloud(cloud).value,
        cluster=cluster,
        pools=tuple(pools.pools),
        driver=driver,
        cuda_version=cfg.get("cuda_version"),
        gpu_operator=operator if operator.enabled else None,
        kueue=kueue,
        kserve=kserve,
        dra=dra,
        config=cfg,
        secret_sections=secret_sections or frozenset(),
        workloads=workloads,
        volcano=volcano,
        slurm=slurm,
        observability=observability,
        mirror=mirror,
        serving=serving,
    )
