"""``OpenShiftGpuMachineSet``'s arguments checked: the platform, its GPU machine type against the pool's
declared GPUs (the platform's machine catalog), zones, and a provider spec to copy."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gpu_platform.cloud_facts import profile_of
from gpu_platform.cloud_facts.openshift.profile import PROFILE
from gpu_platform.clouds.openshift.args import OpenShiftGpuMachineSetArgs
from gpu_platform.clouds.openshift.machine_set_plan import (
    MAX_MACHINE_SET_NAME,
    PLATFORMS,
    machine_set_name,
)
from gpu_platform.driver import DriverPlan
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.node_pool_args import resolve_node_pool_args

ZONES = {
    "aws": (re.compile(r"^[a-z]{2}(-[a-z]+)+-\d[a-z]$"), "us-east-1a"),
    "azure": (re.compile(r"^[1-3]$"), "1"),
    "gcp": (re.compile(r"^[a-z]+-[a-z]+\d+-[a-z]$"), "us-central1-a"),
}
INFRASTRUCTURE_ID = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def _machine_set_checks(args: Mapping[str, Any], pool: GpuPool | None, p: Problems) -> None:
    platform = args["platform"]
    if platform not in PLATFORMS:
        p.add(("platform",), f"'{platform}' is not one of {', '.join(sorted(PLATFORMS))}")
        return
    infra = args["infrastructure_id"]
    if not INFRASTRUCTURE_ID.match(infra):
        p.add(("infrastructure_id",), f"'{infra}' is not an infrastructure name like ocp-gpu-x7k2p")
    zones = list(args["zones"])
    if not zones:
        p.add(("zones",), "needs at least one zone (one MachineSet per zone)")
    if len(set(zones)) != len(zones):
        p.add(("zones",), "lists a zone twice")
    shape, example = ZONES[platform]
    for i, zone in enumerate(zones):
        if not shape.match(zone):
            p.add(("zones", i), f"'{zone}' is not a zone name on {platform} (like {example})")
    for zone in args.get("zone_provider_specs", {}):
        if zone not in zones:
            p.add(("zone_provider_specs", zone), f"'{zone}' is not one of the zones ({', '.join(zones)})")
    if not args["provider_spec"]:
        p.add(("provider_spec",), "copy spec.template.spec.providerSpec.value from a worker MachineSet")
    catalog = profile_of(PLATFORMS[platform].catalog_cloud)
    machine = catalog.machine(args["instance_type"])
    if machine is None:
        p.add(
            ("instance_type",),
            f"'{args['instance_type']}' is not a GPU machine type of the {platform} catalog "
            f"(like {next(iter(catalog.machines))})",
        )
    elif pool is not None:
        counts = machine.allowed_gpu_counts or (machine.gpus,)
        if machine.gpu_key != pool.gpu.key or pool.gpus_per_node not in counts:
            p.add(
                ("instance_type",),
                f"{machine.name} has {machine.gpus} x {machine.gpu.display}; the pool declares "
                f"{pool.gpus_per_node} x {pool.gpu.display}",
            )
    if pool is None:
        return
    if zones and pool.max_nodes < len(zones):
        p.add(
            ("pool", "max_nodes"),
            f"{pool.max_nodes} is fewer than the {len(zones)} zones (one MachineSet each)",
        )
    if 0 < pool.min_nodes < len(zones) and (why := PROFILE.scale_from_zero_problem(pool)):
        p.add(
            ("pool", "min_nodes"),
            f"{pool.min_nodes} leaves a zone's MachineSet at 0, which never scales up: {why}. Use at least "
            f"{len(zones)} (one per zone) or fewer zones",
        )
    for zone in zones:
        name = machine_set_name(infra, pool, zone)
        if len(name) > MAX_MACHINE_SET_NAME:
            p.add(
                ("pool", "name"),
                f"MachineSet '{name}' is longer than {MAX_MACHINE_SET_NAME} characters (machine and node names "
                "add 6); use a shorter pool name",
            )
            break


def machine_set_args(args: OpenShiftGpuMachineSetArgs) -> tuple[GpuPool, DriverPlan, Mapping[str, Any]]:
    """The component's arguments checked and resolved; ``ArgumentsError`` lists every problem. The settings
    gain ``attached_gpu``: the accelerator to attach where the machine type takes GPUs separately (GCP N1)."""
    pool, driver, checked = resolve_node_pool_args(
        "openshift", OpenShiftGpuMachineSetArgs, args, _machine_set_checks
    )
    machine = profile_of(PLATFORMS[checked["platform"]].catalog_cloud).machine(checked["instance_type"])
    attached = machine.accelerator_type if machine is not None and machine.allowed_gpu_counts else None
    return pool, driver, {**checked, "attached_gpu": attached}
