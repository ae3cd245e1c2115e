"""Fleet members described by the platforms that build them: what a worker stack exports for a manager stack
(``fleetWorker``), and the ``FleetWorkerArgs`` / ``FleetManagerArgs`` of a ``GpuPlatform`` in the same program.

Both read the platform's resolved spec (``PlatformSpec``): its cloud and GPU pools exactly as given (the
flavors are their names, the GPU types their models), the GPU Operator settings that come off the quota, the
system pool of a cluster the library creates (the system flavor), the job controllers its ``workloads`` section
installs or declares, and whether it runs Kueue itself. A fleet installs Kueue on every member from one pin,
so a member whose platform installs its own is refused: both would create the same flavors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi

from gpu_platform import versions
from gpu_platform.addons.fleet.checks import CONTROLLER_FRAMEWORKS
from gpu_platform.addons.platform_spec import PlatformSpec
from gpu_platform.addons.requirement import exclusive_pools
from gpu_platform.errors import Problems

FLEET_WORKER_OUTPUT = "fleetWorker"
"""The stack output a worker stack exports for a manager stack (``worker_export``)."""
KUBECONFIG_OUTPUT = "kubeconfig"
"""The worker stack's kubeconfig output (a secret): how the manager stack's fleet reaches the worker."""
EXPORT_KEYS = {
    "cloud": "cloud",
    "pools": "pools",
    "cudaVersion": "cuda_version",
    "gpuOperator": "gpu_operator",
    "systemPool": "system_pool",
    "systemFlavor": "system_flavor",
    "controllers": "controllers",
}
"""``fleetWorker`` key -> the ``FleetWorkerArgs`` key it becomes; ``gpuTypes``, ``flavors`` and ``kueueVersion``
are read by the checks only."""


def _kueue_problem(where: str) -> str:
    return (
        f"{where} installs Kueue itself (its kueue section; enabled by default): the fleet installs Kueue on "
        "every member from one pin and creates the flavors, queues and teams there, which would collide with "
        "that Kueue's. Set kueue.enabled: false on that platform"
    )


def worker_export(spec: PlatformSpec) -> dict[str, Any]:
    """``fleetWorker``: what a manager stack reads of this stack to make it a worker (plain values; the
    kubeconfig is the stack's ``kubeconfig`` output, a secret)."""
    cfg = spec.config
    owned = set(exclusive_pools(cfg))  # Slurm's pools: never Kueue's
    pools = [dict(p) for p in cfg.get("gpu_pools", []) if p.get("name") not in owned]
    names = [str(p["name"]) for p in pools]
    out: dict[str, Any] = {
        "cloud": spec.cloud,
        "pools": pools,
        "gpuTypes": {p.name: p.gpu.key for p in spec.pools if p.name in names},
        "flavors": names,
        "controllers": controllers_of(spec),
    }
    if spec.cuda_version is not None:
        out["cudaVersion"] = spec.cuda_version
    if "gpu_operator" in cfg:
        out["gpuOperator"] = dict(cfg["gpu_operator"])
    pool = spec.cluster.system_pool if spec.cluster.create else None
    if pool is not None:
        out["systemPool"] = {
            "machineType": pool.machine_type,
            "minNodes": pool.min_nodes,
            "maxNodes": pool.max_nodes,
        }
    flavor = cfg.get("kueue", {}).get("system_flavor")
    if flavor is not None:
        out["systemFlavor"] = dict(flavor)
    if spec.kueue is not None:
        out["kueueVersion"] = (
            versions.KUEUE_IMAGE_TAG
        )  # its own Kueue: a fleet refuses it (``_kueue_problem``)
    return out


SECRET_SECTIONS = frozenset({"gpu_pools", "gpu_operator", "kueue", "cluster", "cuda_version"})
"""The sections ``worker_export`` reads: one held as a secret makes the whole output one."""


def worker_output(spec: PlatformSpec) -> Any:
    """``worker_export`` as a stack output: a Pulumi secret when a section it reads is one."""
    export = worker_export(spec)
    return pulumi.Output.secret(export) if spec.secret_sections & SECRET_SECTIONS else export


def controllers_of(spec: PlatformSpec) -> list[str]:
    """The job controllers the platform installs or declares installed (``workloads``), that a fleet knows."""
    available = spec.workloads.available() if spec.workloads is not None else set()
    return [c for c in CONTROLLER_FRAMEWORKS if c in available]


def worker_of_export(
    name: str, export: Any, kubeconfig: Any, p: Problems, where: str
) -> dict[str, Any] | None:
    """``FleetWorkerArgs`` from a worker stack's ``fleetWorker`` output (``where`` names that stack in
    problems, filed under ``p``); ``None`` on a problem."""
    if not isinstance(export, Mapping) or "pools" not in export or "cloud" not in export:
        p.add(
            (),
            f"{where} exports no {FLEET_WORKER_OUTPUT} output with its cloud and pools (the library's stack "
            "program exports it): is it a stack of this library, updated (pulumi up) since it exports it?",
        )
        return None
    if "kueueVersion" in export:
        p.add((), _kueue_problem(where))
        return None
    args: dict[str, Any] = {"name": name, "kubeconfig": kubeconfig}
    args.update({EXPORT_KEYS[k]: _whole(v) for k, v in export.items() if k in EXPORT_KEYS})
    return args


def _whole(value: Any) -> Any:
    """Numbers as the stack file had them: a stack output's numbers travel as doubles (protobuf ``Struct``), so
    ``maxNodes: 2`` comes back ``2.0``; a whole one is an integer again."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {k: _whole(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_whole(v) for v in value]
    return value


def is_platform(value: Any) -> bool:
    """A ``GpuPlatform`` (duck-typed: the component lives on a higher floor than the fleet)."""
    return isinstance(getattr(value, "_plan", None), PlatformSpec) and hasattr(value, "kubeconfig")


def worker_of_platform(name: str, platform: Any, p: Problems) -> dict[str, Any] | None:
    """``FleetWorkerArgs`` of a ``GpuPlatform`` in the same program: its spec as a worker stack would export
    it, and its ``kubeconfig`` output (a secret)."""
    spec: PlatformSpec = platform.plan
    export = worker_export(spec)
    if "kueueVersion" in export:
        p.add((), _kueue_problem(f"GpuPlatform {platform._name!r}"))
        return None
    args: dict[str, Any] = {"name": name, "kubeconfig": platform.kubeconfig}
    args.update({EXPORT_KEYS[k]: v for k, v in export.items() if k in EXPORT_KEYS})
    if "system_pool" in args:  # Python's spelling, as the platform's own arguments
        pool = spec.cluster.system_pool
        assert pool is not None
        args["system_pool"] = {
            "machine_type": pool.machine_type,
            "min_nodes": pool.min_nodes,
            "max_nodes": pool.max_nodes,
        }
    return args


def manager_of_platform(platform: Any, p: Problems) -> dict[str, Any] | None:
    """``FleetManagerArgs`` of a ``GpuPlatform``: its kubeconfig and controllers (its GPU pools stay its own)."""
    spec: PlatformSpec = platform.plan
    if spec.kueue is not None:
        p.add((), _kueue_problem(f"GpuPlatform {platform._name!r}"))
        return None
    return {"kubeconfig": platform.kubeconfig, "controllers": controllers_of(spec)}


def with_platforms(args: Any) -> Any:
    """``GpuFleetArgs`` whose ``manager`` or ``workers`` entries may be ``GpuPlatform`` objects (a worker then is
    named by its resource name), each replaced by the arguments it stands for. At most one: a program holds one
    ``GpuPlatform`` (its add-ons keep the stack's resource names, so a second one's URNs would collide)."""
    if not isinstance(args, Mapping):
        return args
    p = Problems()
    out = dict(args)
    found: list[tuple[str | int, ...]] = []
    if is_platform(args.get("manager")):
        found.append(("manager",))
        out["manager"] = manager_of_platform(args["manager"], p.at("manager")) or {}
    workers = args.get("workers")
    if isinstance(workers, Sequence) and not isinstance(workers, str):
        given = []
        for i, w in enumerate(workers):
            if is_platform(w):
                found.append(("workers", i))
                w = worker_of_platform(w._name, w, p.at("workers", i)) or {}
            given.append(w)
        out["workers"] = given
    for at in found[1:]:
        p.add(
            at,
            "a second GpuPlatform in one program: a program holds one (its add-ons keep the stack's resource "
            "names, gpu-operator, kueue, ..., so Pulumi would refuse the second's URNs); make the other "
            "members with the cluster components (GkeCluster, EksCluster, ...) or as stacks of their own, read "
            "by a manager stack (docs/multi-cluster.md)",
        )
    p.raise_for_arguments()
    return out
