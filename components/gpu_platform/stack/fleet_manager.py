"""A manager stack: a stack file whose only key is ``gpu-platform:fleet`` makes a ``GpuFleet`` of worker stacks.

Each worker is a stack of this library (any cloud) with its Kueue off; its stack program exports
``kubeconfig`` (a secret) and ``fleetWorker`` (``addons.fleet.members.worker_export``: cloud, GPU pools, GPU
Operator settings, system pool, job controllers). The manager stack reads both with a ``pulumi.StackReference``
per worker and builds the fleet from them and the queues and teams of its own file.

The section is checked before anything is registered (``check_manager_stack``). The workers' outputs exist only
once their stacks are up, so the fleet is checked and created when they are read (an ``apply`` on the stack
references: ``pulumi preview`` reads them too, so a preview shows every resource); a problem then is a
``ConfigError`` naming ``gpu-platform:fleet.<path>`` like any other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi

from gpu_platform.addons.fleet.checks import resolve_fleet_args
from gpu_platform.addons.fleet.component import GpuFleet
from gpu_platform.addons.fleet.members import FLEET_WORKER_OUTPUT, KUBECONFIG_OUTPUT, worker_of_export
from gpu_platform.addons.fleet.plan import fleet_plan
from gpu_platform.addons.fleet.settings import FleetStackArgs
from gpu_platform.args.cluster import DEFAULT_KUBECONFIG_OUTPUT
from gpu_platform.args.validate import parse_partial
from gpu_platform.errors import Problems

SECTION = "fleet"
FLEET_NAME = "fleet"
"""The ``GpuFleet``'s resource name in a manager stack."""


def is_manager_stack(raw: Any) -> bool:
    """The stack file sets ``gpu-platform:fleet``: a manager stack."""
    return isinstance(raw, Mapping) and SECTION in raw


def check_manager_stack(raw: Mapping[str, Any], secret_sections: frozenset[str] | None) -> dict[str, Any]:
    """The ``fleet`` section parsed (snake_case), or ``ConfigError`` listing every problem of what the file alone
    says: other keys, the section's shape, the manager's kubeconfig (one way, and a secret), worker names."""
    p = Problems()
    for key in raw:
        if key != SECTION:
            p.add(
                (key,),
                "a fleet manager stack holds only gpu-platform:fleet (the manager cluster is made elsewhere, "
                "its kubeconfig in {{fleet.manager.kubeconfig}}; each worker is a stack of its own)",
            )
    at = p.at(SECTION)
    parsed, _ = parse_partial(FleetStackArgs, raw[SECTION], at, camel=True)
    if parsed is None:
        p.raise_for_config()
    assert parsed is not None
    manager = parsed.get("manager", {})
    given = [k for k in ("kubeconfig", "kubeconfig_stack_reference") if k in manager]
    if len(given) != 1:
        at.add(
            ("manager",),
            "give the manager cluster's kubeconfig one way: {{fleet.manager.kubeconfig}} (a secure: value) or "
            "{{fleet.manager.kubeconfig_stack_reference}}",
        )
    if "kubeconfig" in manager and secret_sections is not None and SECTION not in secret_sections:
        at.add(
            ("manager", "kubeconfig"),
            "is plain text in the stack file (and would be in the state): set it as a secret with "
            "`pulumi config set --secret --path 'gpu-platform:fleet.manager.kubeconfig' \"$(cat kubeconfig)\"`",
        )
    names = [w["name"] for w in parsed.get("workers", [])]
    stacks = [w["stack"] for w in parsed.get("workers", [])]
    for i, (name, stack) in enumerate(zip(names, stacks, strict=True)):
        if names.index(name) != i:
            at.add(("workers", i, "name"), f"worker {name!r} is named twice")
        if stacks.index(stack) != i:
            at.add(
                ("workers", i, "stack"), f"stack {stack!r} is already worker {names[stacks.index(stack)]!r}"
            )
    if not names:
        at.add(("workers",), "a list of at least one worker stack")
    p.raise_for_config()
    return parsed


def _manager_kubeconfig(manager: Mapping[str, Any]) -> pulumi.Output[str]:
    ref = manager.get("kubeconfig_stack_reference")
    if ref is None:
        return pulumi.Output.secret(str(manager["kubeconfig"]))
    stack = pulumi.StackReference(f"{FLEET_NAME}-manager", stack_name=ref["stack"])
    output = ref.get("output", DEFAULT_KUBECONFIG_OUTPUT)
    return pulumi.Output.secret(stack.require_output(output).apply(str))


def fleet_args(
    section: Mapping[str, Any],
    exports: Sequence[Any],
    kubeconfigs: Sequence[Any],
    manager_kubeconfig: Any,
    p: Problems,
) -> dict[str, Any] | None:
    """``GpuFleetArgs`` from the section and each worker stack's ``fleetWorker`` output (in ``workers`` order);
    ``None`` when an output cannot be one (problems filed under ``gpu-platform:fleet.workers[i]``)."""
    workers = []
    for i, (worker, export, kubeconfig) in enumerate(
        zip(section["workers"], exports, kubeconfigs, strict=True)
    ):
        where = f"stack {worker['stack']!r}"
        args = worker_of_export(worker["name"], export, kubeconfig, p.at(SECTION, "workers", i), where)
        if args is not None:
            workers.append(args)
    if p:
        return None
    manager = {k: v for k, v in section["manager"].items() if k in ("kueue_version", "controllers")}
    queues = {k: v for k, v in section.items() if k not in ("manager", "workers")}
    return {**queues, "manager": {**manager, "kubeconfig": manager_kubeconfig}, "workers": workers}


def deploy_manager(section: Mapping[str, Any]) -> dict[str, Any]:
    """The fleet of a checked ``fleet`` section (``check_manager_stack``); returns the stack outputs."""
    refs = [
        pulumi.StackReference(f"{FLEET_NAME}-worker-{w['name']}", stack_name=w["stack"])
        for w in section["workers"]
    ]
    kubeconfigs: list[pulumi.Output[str]] = [
        pulumi.Output.secret(r.require_output(KUBECONFIG_OUTPUT).apply(str)) for r in refs
    ]
    manager_kubeconfig = _manager_kubeconfig(section["manager"])

    def build(exports: list[Any]) -> pulumi.Output[list[Any]]:
        p = Problems()
        args = fleet_args(section, exports, kubeconfigs, manager_kubeconfig, p)
        p.raise_for_config()
        assert args is not None
        spec = resolve_fleet_args(args, p.at(SECTION))  # type: ignore[arg-type]
        fleet = GpuFleet.from_plan(FLEET_NAME, fleet_plan(spec))
        return pulumi.Output.all(fleet.cluster_queue_names, fleet.local_queues, fleet.workers)

    made: pulumi.Output[list[Any]] = pulumi.Output.all(
        *[r.get_output(FLEET_WORKER_OUTPUT) for r in refs]
    ).apply(build)
    return {
        "clusterQueues": made.apply(lambda m: m[0]),
        "localQueues": made.apply(lambda m: m[1]),
        "workers": made.apply(lambda m: m[2]),
    }
