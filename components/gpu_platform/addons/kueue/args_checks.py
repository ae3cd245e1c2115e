"""The ``Kueue`` component's arguments, checked and resolved like the stack file's ``kueue`` section: its pools
(with every cloud check), the GPU Operator it will run beside (for the operands each node loses to DaemonSets)
and the Kueue settings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from gpu_platform import versions
from gpu_platform.addons.gpu_operator.checks import GpuOperatorSpec, check_operator_settings
from gpu_platform.addons.kueue.checks import GpuOperatorFacts, KueueSpec, resolve_kueue
from gpu_platform.addons.kueue.settings import KueueArgs
from gpu_platform.args.common import DriverOwner
from gpu_platform.args.validate import check_arguments
from gpu_platform.cloud_facts import profile_of
from gpu_platform.cloud_facts.profile import PoolProblems
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cluster import system_pool_problems
from gpu_platform.resolve.cluster_pools import resolve_cluster_pools
from gpu_platform.resolve.driver import DriverLocations, resolve_driver
from gpu_platform.resolve.mirror import resolve_mirror
from gpu_platform.resolve.pools import check_cuda_default


def _operator_facts(
    cloud: str, settings: Mapping[str, Any], pools: Sequence[GpuPool], at: PoolProblems, p: Problems
) -> GpuOperatorFacts | None:
    """The GPU Operator as ``GpuOperator`` would run it with ``settings`` (``None``: switched off)."""
    operator = GpuOperatorSpec.from_settings(settings)
    if not operator.enabled:
        return None
    here = p.at("gpu_operator")
    before = p.count()
    check_operator_settings(settings, here)
    if p.count() != before or not pools:
        return None
    driver = dict(settings.get("driver", {}))
    if not profile_of(cloud).creates_nodes:
        # Unknown nodes: assume the operator's driver containers, the larger set of operands.
        driver.setdefault("owner", DriverOwner.OPERATOR.value)
    where = DriverLocations(here.at("driver"), at, p.at("pools"), p.at("cuda_version"))
    plan = resolve_driver(cloud, pools, driver, operator.version, where)
    if plan is None:
        return None
    return GpuOperatorFacts(plan, operator.dcgm_exporter)


def resolve_kueue_args(args: KueueArgs) -> tuple[list[GpuPool], KueueSpec, str]:
    """The pools, the Kueue settings and the namespace; ``ArgumentsError`` lists every problem with its path."""
    p = Problems()
    checked = check_arguments(KueueArgs, args, p)
    if checked is None:
        p.raise_for_arguments()
    assert checked is not None
    cloud = checked["cloud"]
    check_cuda_default(checked.get("cuda_version"), p.at("cuda_version"))
    at = lambda i: p.at("pools", i)  # noqa: E731
    resolved = resolve_cluster_pools(cloud, checked["pools"], checked.get("cuda_version"), at)
    system = None
    if "system_pool" in checked and not profile_of(cloud).creates_nodes:
        p.add(
            ("system_pool",),
            "an existing cluster has no system pool made by the library: describe its CPU nodes with "
            "{{system_flavor.node_labels}}, {{system_flavor.cpus}} and {{system_flavor.memory_gib}}",
        )
    elif "system_pool" in checked:
        system = system_pool_problems(cloud, checked["system_pool"], p.at("system_pool"))
    facts = None
    if len(resolved.pools) == len(checked["pools"]):
        facts = _operator_facts(cloud, checked.get("gpu_operator", {}), resolved.pools, at, p)
    spec = resolve_kueue(cloud, checked, resolved, at, p, system, facts)
    mirror = resolve_mirror(checked.get("mirror"), p.at("mirror"))
    p.raise_for_arguments()
    assert spec is not None
    spec = replace(spec, gpu_health_checks=bool(checked.get("gpu_health_checks", False)), mirror=mirror)
    return resolved.pools, spec, checked.get("namespace", versions.KUEUE.namespace)
