"""The driver decision for a cluster's pools and every check that depends on it, written once.

The cloud profile's ``driver`` decides per pool who installs the driver, toolkit and device
plugin; here the pools must agree (nothing installed twice), the driver that will run must be new
enough for each pool's CUDA, and sharing must be deliverable by whoever runs the device plugin.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpu_platform.args.common import DEFAULT_DRIVER_OWNER
from gpu_platform.catalog.drivers import DriverVersion, min_driver_for_cuda
from gpu_platform.cloud_facts import clouds_where, profile_of
from gpu_platform.cloud_facts.profile import PoolProblems
from gpu_platform.driver import DriverPlan, DriverPlanError
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool
from gpu_platform.scheduling import device_plugin_pools
from gpu_platform.sharing import cluster_mig_strategy


@dataclass(frozen=True)
class DriverLocations:
    """Where driver problems are filed: the driver settings, pool ``i``, the pool list, the default CUDA."""

    driver: Problems
    pool: PoolProblems
    pools: Problems
    cuda: Problems
    fix: str = "{{driver.version}} (operator driver) or {{driver.host_version}} (cloud image driver)"
    driver_path: str = "driver"
    """Where the driver settings are, as messages name them (``gpu_operator.driver`` in the stack file)."""

    def spelled(self, reason: str) -> str:
        """``reason`` with every ``{{driver.<key>}}`` at ``driver_path``, where this audience writes the driver."""
        return reason.replace("{{driver.", "{{" + self.driver_path + ".")


def _version_problems(driver: Mapping[str, Any], p: Problems) -> bool:
    ok = True
    for key in ("version", "host_version", "installer_version"):
        if driver.get(key) is None:
            continue
        try:
            DriverVersion.parse(driver[key])
        except ValueError as exc:
            p.add((key,), str(exc))
            ok = False
    return ok


def _per_pool(
    cloud: str,
    pools: Sequence[GpuPool],
    driver: Mapping[str, Any],
    operator_version: str,
    at: DriverLocations,
) -> dict[int, DriverPlan]:
    plans: dict[int, DriverPlan] = {}
    for pool in pools:
        try:
            plans[pool.index] = profile_of(cloud).driver(
                pool.image,
                driver.get("owner", DEFAULT_DRIVER_OWNER),
                operator_version,
                driver.get("version"),
                driver.get("host_version"),
            )
        except DriverPlanError as exc:
            # A platform's message names ``{{driver.<key>}}``: spelled where this audience writes the driver.
            reason = at.spelled(str(exc))
            at.driver.add((exc.key,), reason if len(pools) == 1 else f"{reason} (pool '{pool.name}')")
    return plans


def _check_cuda(pools: Sequence[GpuPool], plan: DriverPlan, at: DriverLocations) -> None:
    for pool in pools:
        if pool.cuda_version is None:
            continue
        need = min_driver_for_cuda(pool.cuda_version)
        if plan.driver_version >= need:
            continue
        source = "GPU Operator" if plan.driver == "operator" else "cloud image"
        where = at.pool(pool.index).at("cuda_version") if pool.cuda_declared else at.cuda
        where.add(
            (),
            f"CUDA {pool.cuda_version} needs driver >= {need}, but pool '{pool.name}' runs "
            f"{plan.driver_version} ({source} driver); raise {at.fix}, or build the images for an older CUDA",
        )


def _check_gpu_support(
    pools: Sequence[GpuPool], plan: DriverPlan, driver: Mapping[str, Any], at: DriverLocations
) -> None:
    """A driver that cannot run a pool's GPU: the operator's (explicit or the chart's default), or one the user
    says the cloud installs (``host_version``, GKE ``installer_version``). A cloud's own default is left alone:
    the cloud installs a driver its GPU machines run."""
    stated = [
        (key, DriverVersion.parse(driver[key]))
        for key in ("host_version", "installer_version")
        if plan.driver == "cloud" and driver.get(key)
    ]
    if plan.driver == "operator":
        stated = [("version", plan.driver_version)]
    for key, version in stated:
        short = [p for p in pools if p.gpu.min_driver and version < DriverVersion.parse(p.gpu.min_driver)]
        if not short:
            continue
        need = max(DriverVersion.parse(p.gpu.min_driver or "") for p in short)
        gpus = " and ".join(sorted({p.gpu.display for p in short}))
        given = "" if driver.get(key) else " (the GPU Operator's default)"
        at.driver.add(
            (key,),
            f"{version}{given} cannot run the {gpus} GPUs of pool(s) {', '.join(repr(p.name) for p in short)}: "
            f"NVIDIA documents driver >= {need} for them",
        )


def _check_sharing(pools: Sequence[GpuPool], plan: DriverPlan, at: DriverLocations) -> None:
    served = device_plugin_pools(pools, plan)
    names = {p.name for p in served}
    for pool in pools:
        s = pool.sharing
        profile = profile_of(pool.cloud)
        if s.mode == "isolated" and plan.device_plugin != "operator":
            at.pool(pool.index).add(
                ("sharing", "mode"),
                f"'isolated' replaces the nodes' device plugin with HAMi's, but {pool.image or 'the node image'} "
                f"ships its own, which nothing turns off; use {profile.operator_device_plugin_images()} or another "
                "mode",
            )
        elif s.mode not in ("none", "isolated") and s.managed_by == "operator" and pool.name not in names:
            at.pool(pool.index).add(
                ("sharing", "mode"),
                f"'{s.mode}' is configured through the GPU Operator's device plugin, but {pool.image or 'the node image'} "
                f"ships its own device plugin; use {profile.operator_device_plugin_images()} or mode 'none'",
            )
        if (
            profile.cloud_mig_needs_cloud_driver
            and s.mode == "mig"
            and s.managed_by == "cloud"
            and plan.driver != "cloud"
        ):
            at.driver.add(
                ("owner",),
                f"pool '{pool.name}': {profile.display} partitions GPUs ({profile.cloud_mig_setting}) with the driver "
                "it installs: use owner 'cloud', or let the GPU Operator's MIG manager do MIG "
                "({{sharing.managed_by}}: operator)",
            )
    strategy = cluster_mig_strategy(served)
    for pool in served:
        if pool.sharing.mode == "mig" and pool.sharing.mig_strategy != strategy:
            first = next(p for p in served if p.sharing.mode == "mig" and p.sharing.mig_strategy == strategy)
            at.pool(pool.index).add(
                ("sharing", "mig", "strategy"),
                f"'{pool.sharing.mig_strategy}' conflicts with '{strategy}' of pool '{first.name}'; the GPU "
                "Operator's device plugin has one MIG strategy per cluster",
            )


def _check_auto_pools(cloud: str, pools: Sequence[GpuPool], plan: DriverPlan, at: DriverLocations) -> None:
    """Pools with a fallback chain are created by the cloud's auto-provisioner: the driver plan must suit it."""
    reason = profile_of(cloud).auto_pool_driver_problem(plan)
    chained = [p.name for p in pools if p.chain]
    if reason and chained:
        at.driver.add(
            ("owner",), f"pool(s) {', '.join(chained)} have a fallback chain (auto-provisioned): {reason}"
        )


def resolve_driver(
    cloud: str,
    pools: Sequence[GpuPool],
    driver: Mapping[str, Any],
    operator_version: str,
    at: DriverLocations,
) -> DriverPlan | None:
    """The one driver plan for the cluster, after every driver-dependent check; ``None`` when no plan can be
    made (bad driver settings, pools that disagree)."""
    if not _version_problems(driver, at.driver) or not pools:
        return None
    plans = _per_pool(cloud, pools, driver, operator_version, at)
    if len({(p.driver, p.toolkit, p.device_plugin) for p in plans.values()}) > 1:
        at.pools.add(
            (),
            "pools disagree on who owns the driver/toolkit/device plugin (e.g. Bottlerocket next to AL2023); "
            "keep one node image per cluster so nothing is installed twice",
        )
    if not plans or len(plans) != len(pools):
        return None
    plan = next(iter(plans.values()))
    if driver.get("version") and plan.driver != "operator":
        at.driver.add(
            ("version",),
            at.spelled(
                "the cloud installs the driver here, so this is never used; give the image's version as "
                "{{driver.host_version}}"
            ),
        )
    if driver.get("host_version") and plan.driver == "operator":
        at.driver.add(
            ("host_version",),
            at.spelled("the GPU Operator installs the driver here ({{driver.version}}); remove it"),
        )
    if driver.get("installer_version") and not plan.cloud_installer:
        where = " or ".join(
            str(q.driver_installer_nodes) for q in clouds_where(lambda q: q.driver_installer_nodes)
        )
        at.driver.add(("installer_version",), f"only for {where}")
    _check_auto_pools(cloud, pools, plan, at)
    _check_cuda(pools, plan, at)
    _check_gpu_support(pools, plan, driver, at)
    _check_sharing(pools, plan, at)
    # The plan stands even when a pool's CUDA or sharing does not fit it (those are reported, and every
    # caller raises on them): later checks that need the driver (DRA's version floor) still run, so one run
    # reports every problem.
    return plan
