"""GPU node pools per cloud: ``GkeGpuNodePool``, ``EksGpuNodePool``, ``AksGpuNodePool``.

All three resolve their pool the way the stack config does (``config.stack.resolve_pools``), ask
``driver.plan_driver`` who owns the driver exactly as the GPU Operator will, and take labels and
taints from ``scheduling`` only. This module holds what they share; each cloud module imports its
SDK only when a pool is built, so ``import gpu_platform.nodepools`` loads no cloud SDK.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpu_platform import scheduling
from gpu_platform.catalog.drivers import min_driver_for_cuda
from gpu_platform.config.errors import ConfigError
from gpu_platform.driver import DriverPlan, DriverPlanError, plan_driver
from gpu_platform.pools import GPU_TAINT, GpuPool, Taint
from gpu_platform.versions import GPU_OPERATOR

if TYPE_CHECKING:
    from gpu_platform.nodepools.aks import AksGpuNodePool, AksGpuNodePoolArgs
    from gpu_platform.nodepools.eks import EksGpuNodePool, EksGpuNodePoolArgs
    from gpu_platform.nodepools.gke import GkeGpuNodePool, GkeGpuNodePoolArgs

__all__ = [
    "CLOUD_TAINT_EFFECT",
    "DRIVER_OWNERS",
    "AksGpuNodePool",
    "AksGpuNodePoolArgs",
    "EksGpuNodePool",
    "EksGpuNodePoolArgs",
    "GkeGpuNodePool",
    "GkeGpuNodePoolArgs",
    "PoolPlan",
    "check_stack_pools",
    "ensure_gpu_taint",
    "resolve_pool_plan",
    "stack_config_error",
    "stack_pool_args",
]

_LAZY = {
    "GkeGpuNodePool": "gke",
    "GkeGpuNodePoolArgs": "gke",
    "EksGpuNodePool": "eks",
    "EksGpuNodePoolArgs": "eks",
    "AksGpuNodePool": "aks",
    "AksGpuNodePoolArgs": "aks",
}


def __getattr__(name: str) -> Any:
    """``from gpu_platform.nodepools import GkeGpuNodePool`` without importing the other clouds."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"gpu_platform.nodepools.{_LAZY[name]}"), name)
    raise AttributeError(name)


CLOUD_TAINT_EFFECT = {
    "NoSchedule": "NO_SCHEDULE",
    "PreferNoSchedule": "PREFER_NO_SCHEDULE",
    "NoExecute": "NO_EXECUTE",
}
"""Kubernetes taint effect -> the GKE/EKS API spelling (AKS keeps Kubernetes' spelling in strings)."""

DRIVER_OWNERS = ("auto", "operator", "cloud")


@dataclass(frozen=True)
class PoolPlan:
    """One pool with everything the cloud resource needs, decided before any child is registered."""

    pool: GpuPool
    driver: DriverPlan
    labels: dict[str, str]
    taints: tuple[Taint, ...]
    """Kubernetes shape, GPU taint first (``scheduling.pool_taints``)."""


def _single_pool_path(path: str) -> str:
    """``resolve_pools`` reports ``pool[0].x``; a component has one pool, so say ``pool.x``."""
    return re.sub(r"^pool\[0\]", "pool", path)


def ensure_gpu_taint(taints: list[Taint] | tuple[Taint, ...]) -> None:
    """Last line of defence: refuse to build a GPU pool whose taints lack ``nvidia.com/gpu:NoSchedule``."""
    if not any(t == GPU_TAINT for t in taints):
        gpu = f"{GPU_TAINT.key}={GPU_TAINT.value}:{GPU_TAINT.effect}"
        raise RuntimeError(f"refusing to create a GPU node pool without the {gpu} taint")


def resolve_pool_plan(cloud: str, args: dict[str, Any] | Any) -> PoolPlan:
    """Resolve a component's ``pool`` and driver arguments; raise ``ConfigError`` naming the argument."""
    from gpu_platform.args import pool_args_to_config
    from gpu_platform.config.stack import resolve_pools

    if "pool" not in args:
        raise ConfigError([("pool", "required argument is missing")])
    try:
        [pool] = resolve_pools(cloud, [pool_args_to_config(args["pool"])], path="pool")
    except ConfigError as err:
        raise ConfigError([(_single_pool_path(p), r) for p, r in err.problems]) from None
    owner = args.get("driver_owner", "auto")
    if owner not in DRIVER_OWNERS:
        raise ConfigError([("driver_owner", f"{owner!r} is not valid; valid: {', '.join(DRIVER_OWNERS)}")])
    try:
        driver = plan_driver(
            cloud,
            pool.image,
            owner,
            args.get("operator_version", GPU_OPERATOR.version),
            args.get("driver_version"),
            args.get("host_driver_version"),
        )
    except DriverPlanError as exc:
        raise ConfigError([("driver_owner", str(exc))]) from None
    if pool.cuda_version is not None and driver.driver_version < min_driver_for_cuda(pool.cuda_version):
        raise ConfigError(
            [
                (
                    "pool.cuda_version",
                    f"CUDA {pool.cuda_version} needs driver >= {min_driver_for_cuda(pool.cuda_version)}, "
                    f"but the nodes run {driver.driver_version}; raise driver_version/host_driver_version or "
                    "build for an older CUDA",
                )
            ]
        )
    # Through the module so the guard below also covers a patched or future scheduling.pool_taints.
    taints = tuple(scheduling.pool_taints(pool))
    ensure_gpu_taint(taints)
    return PoolPlan(pool, driver, scheduling.pool_labels(pool, driver), taints)


def _camel(segment: str) -> str:
    head, _, tail = segment.partition("[")
    parts = head.split("_")
    name = parts[0] + "".join(p.title() for p in parts[1:])
    return name + (f"[{tail}" if tail else "")


def stack_config_error(err: ConfigError, pool_index: int, prefix: str = "gpu-platform:") -> ConfigError:
    """A pool component's ``ConfigError`` re-addressed to the stack config (``gpuPools[i].spotMaxPrice``)."""
    out = []
    for path, reason in err.problems:
        if path == "pool" or path.startswith(("pool.", "pool[")):
            rest = path[len("pool") :]
            rest = ".".join(_camel(s) for s in rest.split(".")) if rest else ""
            out.append((f"{prefix}gpuPools[{pool_index}]{rest}", reason))
        elif path == "driver_owner":
            out.append((f"{prefix}gpuOperator.driver.owner", f"{reason} (gpuPools[{pool_index}])"))
        else:
            out.append((f"{prefix}gpuPools[{pool_index}] ({path})", reason))
    return ConfigError(out)


def stack_pool_args(spec: Any) -> list[dict[str, Any]]:
    """Component args for each ``gpuPools`` entry of a ``PlatformSpec`` (same order as ``spec.pools``),
    with the stack's driver settings so pools and the GPU Operator make the same driver decision."""
    from gpu_platform.args import pool_config_to_args

    cfg = spec.config
    driver = cfg.gpu_operator.driver
    out = []
    for cfg_pool in cfg.gpu_pools:
        pool = dict(pool_config_to_args(cfg_pool))
        if cfg.cuda_version and not pool.get("cuda_version"):
            pool["cuda_version"] = cfg.cuda_version
        args: dict[str, Any] = {
            "pool": pool,
            "driver_owner": driver.owner,
            "operator_version": cfg.gpu_operator.version,
        }
        if driver.version:
            args["driver_version"] = driver.version
        if driver.host_version:
            args["host_driver_version"] = driver.host_version
        out.append(args)
    return out


def check_stack_pools(check: Any, pool_args: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """Run a cloud's pool check on every pool; problems addressed to the stack config."""
    problems: list[tuple[str, str]] = []
    for i, args in enumerate(pool_args):
        try:
            check(args)
        except ConfigError as err:
            problems += stack_config_error(err, i).problems
    return problems
