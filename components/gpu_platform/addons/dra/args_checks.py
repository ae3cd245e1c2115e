"""``DraDriver``'s arguments checked and resolved like the stack file's ``dra`` section.

Apart from ``addons.dra.checks`` because it resolves the pools, and the pool checks use ``addons.dra.checks``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_platform import versions
from gpu_platform.addons.dra.checks import (
    DraSpec,
    ResolvedDra,
    check_dra_settings,
    declares_dra,
    dra_driver_problems,
    kubernetes_version_problem,
)
from gpu_platform.addons.dra.settings import DraDriverArgs
from gpu_platform.args.validate import check_arguments
from gpu_platform.errors import Problems
from gpu_platform.resolve.cluster_pools import resolve_cluster_pools
from gpu_platform.resolve.driver import DriverLocations, resolve_driver
from gpu_platform.resolve.kubernetes import namespace_problem
from gpu_platform.resolve.mirror import resolve_mirror
from gpu_platform.resolve.pools import check_cuda_default


def _namespace(checked: Mapping[str, Any], p: Problems) -> str:
    namespace: str = checked.get("namespace", versions.DRA_DRIVER.namespace)
    if reason := namespace_problem(namespace):
        p.add(("namespace",), reason)
    elif namespace == "default":
        p.add(("namespace",), "the chart refuses the 'default' namespace (templates/validation.yaml)")
    return namespace


def resolve_dra_driver(args: DraDriverArgs) -> ResolvedDra:
    """``ArgumentsError`` lists every problem with its argument path."""
    p = Problems()
    checked = check_arguments(DraDriverArgs, args, p)
    if checked is None:
        p.raise_for_arguments()
    assert checked is not None
    settings = DraSpec.from_settings(checked)
    check_dra_settings(settings, p)
    check_cuda_default(checked.get("cuda_version"), p.at("cuda_version"))
    if reason := kubernetes_version_problem(checked["kubernetes_version"]):
        p.add(("kubernetes_version",), reason)
    namespace = _namespace(checked, p)
    cloud = checked["cloud"]
    at = lambda i: p.at("pools", i)  # noqa: E731
    resolved = resolve_cluster_pools(cloud, checked["pools"], checked.get("cuda_version"), at)
    if not checked["pools"]:
        p.add(("pools",), "at least one GPU pool is required")
    if checked["pools"] and not declares_dra(checked["pools"]):
        p.add(("pools",), "no pool has allocation 'dra': the DRA driver would own no GPUs")
    driver = None
    if not p and len(resolved.pools) == len(checked["pools"]):
        where = DriverLocations(p.at("driver"), at, p.at("pools"), p.at("cuda_version"))
        operator_version = checked.get("operator_version", versions.GPU_OPERATOR.version)
        driver = resolve_driver(cloud, resolved.pools, checked.get("driver", {}), operator_version, where)
        if driver is not None:
            dra_driver_problems(resolved.pools, driver, settings.compute_domains, at, p.at("driver"))
    mirror = resolve_mirror(checked.get("mirror"), p.at("mirror"))
    p.raise_for_arguments()
    assert driver is not None
    version = checked["kubernetes_version"]
    return ResolvedDra(cloud, tuple(resolved.pools), driver, version, settings, namespace, mirror)
