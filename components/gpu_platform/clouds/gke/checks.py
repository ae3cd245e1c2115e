"""Checks of GKE components' own arguments, beside the checks every path runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_platform.args.validate import check_arguments, is_unknown
from gpu_platform.catalog.drivers import DriverVersion, min_driver_for_cuda
from gpu_platform.cloud_facts.gke.autoprovisioning import compute_class_pool_problems
from gpu_platform.cloud_facts.gke.profile import HOST_DRIVER_FLOOR, PROFILE, auto_pool_nvlink_domain_problems
from gpu_platform.clouds.gke.args import GkeClusterArgs, GkeGpuComputeClassArgs, GkeGpuNodePoolArgs
from gpu_platform.driver import DriverPlan
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cluster import SystemPool, resolve_cluster_args
from gpu_platform.resolve.node_pool_args import resolve_node_pool_args
from gpu_platform.resolve.pools import check_cuda_default, resolve_pool_list
from gpu_platform.resolve.zones import offered_zone_problems


def cluster_args(args: GkeClusterArgs) -> tuple[SystemPool, dict[str, Any]]:
    """``GkeCluster``'s arguments checked: its system pool and settings; ``ArgumentsError`` lists every problem."""
    p, checked, system = resolve_cluster_args("gke", GkeClusterArgs, args, "network_cidr")
    p.raise_for_arguments()
    assert checked is not None and system is not None
    return system, checked


def compute_class_driver(pool: GpuPool, driver: Mapping[str, Any], p: Problems) -> DriverVersion | None:
    """GKE installs the driver on auto-created pools: only owner ``auto``/``cloud``; the CUDA check runs
    against ``host_version`` or the catalog's floor for GKE's default driver."""
    owner = driver.get("owner", "auto")
    if owner == "operator":
        p.add(
            ("driver", "owner"),
            "auto-created GKE node pools install GKE's driver (ComputeClass gpu.driverVersion: default or latest); "
            "the GPU Operator cannot own it there: use 'auto' or 'cloud'",
        )
    for key in ("version", "installer_version"):
        if driver.get(key) is not None:
            p.add(("driver", key), "GKE installs the driver on auto-created node pools; remove it")
    try:
        host = DriverVersion.parse(driver.get("host_version") or HOST_DRIVER_FLOOR)
    except ValueError as exc:
        p.add(("driver", "host_version"), str(exc))
        return None
    if pool.cuda_version is not None and host < (need := min_driver_for_cuda(pool.cuda_version)):
        where = ("pool", "cuda_version") if pool.cuda_declared else ("cuda_version",)
        p.add(
            where,
            f"CUDA {pool.cuda_version} needs driver >= {need}, but GKE's driver is taken to be {host}; declare "
            "{{driver.host_version}} if the nodes run a newer one, or build the images for an older CUDA",
        )
    return host


def node_pool_args(args: GkeGpuNodePoolArgs) -> tuple[GpuPool, DriverPlan, Mapping[str, Any]]:
    """The node pool component's arguments checked and resolved; ``ArgumentsError`` lists every problem."""
    return resolve_node_pool_args("gke", GkeGpuNodePoolArgs, args, node_network_problems)


def node_network_problems(checked: Mapping[str, Any], pool: GpuPool | None, p: Problems) -> None:
    """A GPUDirect pool attaches one network per extra NIC of its machine; other pools attach none."""
    given = checked.get("additional_node_networks")
    if pool is None or is_unknown(given):  # an Output's length is known only at deploy time
        return
    if pool.gpudirect is None:
        if given:
            p.add(("additional_node_networks",), "only GPUDirect pools (pool.gpudirect) attach extra NICs")
        return
    want = len(pool.gpudirect.nics)
    if given is None or len(given) != want:
        names = ", ".join(n.network for n in pool.gpudirect.nics)
        p.add(
            ("additional_node_networks",),
            f"{pool.gpudirect.display} on {pool.machine.name if pool.machine else 'this machine'} needs {want} "
            f"networks, one per extra NIC in order ({names}): pass GkeGpuDirect.node_networks['{pool.name}'] "
            f"(got {len(given or [])})",
        )


def compute_class_args(
    args: GkeGpuComputeClassArgs,
) -> tuple[GpuPool, Mapping[str, Any], DriverVersion | None]:
    """``GkeGpuComputeClass``'s arguments checked and resolved: the pool, the settings and the driver the CUDA
    check runs against; ``ArgumentsError`` lists every problem."""
    p = Problems()
    checked = check_arguments(GkeGpuComputeClassArgs, args, p)
    pool = host = None
    if checked is not None:
        check_cuda_default(checked.get("cuda_version"), p.at("cuda_version"))
        resolved = resolve_pool_list(
            "gke", [checked["pool"]], checked.get("cuda_version"), lambda _: p.at("pool")
        )
        if resolved.pools:
            pool = resolved.pools[0]
            PROFILE.pool_problems(pool, p.at("pool"))
            auto_pool_nvlink_domain_problems(pool, p.at("pool"))
            compute_class_pool_problems(pool, p.at("pool"))
            offered_zone_problems(pool, p.at("pool"))
            host = compute_class_driver(pool, checked.get("driver", {}), p)
    p.raise_for_arguments()
    assert checked is not None and pool is not None
    return pool, checked, host
