"""The workload layer resolved: which controllers a stack installs, who gang-schedules them, and which Kueue
integrations that makes real. Every check of the ``workloads`` section, and of ``kueue.integrations``
against it, is written here once.

Kueue integration (framework) names are Kueue 0.19.2's (NEW_COMPONENTS_NOTES.md section 12).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gpu_platform.addons.kueue.checks import KueueSpec
from gpu_platform.addons.workloads.settings import (
    DEFAULT_GANG_SCHEDULER,
    DEFAULT_TRAINING_RUNTIMES,
    Controller,
    GangScheduler,
)
from gpu_platform.args.validate import check_arguments
from gpu_platform.errors import Key, Problems
from gpu_platform.mirror import Mirror
from gpu_platform.pools import GpuPool
from gpu_platform.releases import ADDONS, WORKLOAD_CONTROLLERS
from gpu_platform.resolve.cluster_pools import resolve_cluster_pools
from gpu_platform.resolve.kubernetes import label_problems
from gpu_platform.resolve.mirror import resolve_mirror
from gpu_platform.sharing import GPU_RESOURCE

INSTALLABLE: tuple[str, ...] = tuple(a.key for a in WORKLOAD_CONTROLLERS)
"""Controllers the library installs, in the order they are created (JobSet before Trainer)."""
SECTION_KEY: dict[str, str] = {a.key: a.section_key for a in WORKLOAD_CONTROLLERS if a.section_key}
"""Controller -> its key in the ``workloads`` section (snake_case; camelCase in the stack file)."""


@dataclass(frozen=True)
class ExternalController:
    """A controller Kueue can queue that the library does not install (``installed_elsewhere``)."""

    display: str
    kueue_frameworks: tuple[str, ...]


EXTERNAL_CONTROLLERS: dict[str, ExternalController] = {
    Controller.TRAINING_OPERATOR.value: ExternalController(
        "the Kubeflow Training Operator (v1)",
        (
            "kubeflow.org/pytorchjob",
            "kubeflow.org/tfjob",
            "kubeflow.org/paddlejob",
            "kubeflow.org/xgboostjob",
            "kubeflow.org/jaxjob",
        ),
    ),
    Controller.MPI_OPERATOR.value: ExternalController("the MPI Operator", ("kubeflow.org/mpijob",)),
    Controller.APPWRAPPER.value: ExternalController("AppWrapper", ("workload.codeflare.dev/appwrapper",)),
    Controller.SPARK_OPERATOR.value: ExternalController(
        "the Spark Operator", ("sparkoperator.k8s.io/sparkapplication",)
    ),
}
"""The add-ons of ``addons`` are the installable ones; these are only ever declared."""
DISPLAY: dict[str, str] = {
    **{a.key: a.display for a in WORKLOAD_CONTROLLERS},
    **{c: e.display for c, e in EXTERNAL_CONTROLLERS.items()},
}

BUILTIN_FRAMEWORKS: tuple[str, ...] = ("batch/job", "pod", "deployment")
"""Always enabled: plain Jobs, and Pods/Deployments (KServe predictors are Deployments)."""
PLAIN_FRAMEWORKS: frozenset[str] = frozenset({*BUILTIN_FRAMEWORKS, "statefulset"})
"""Kubernetes' own kinds: no controller needed."""
CONTROLLER_FRAMEWORKS: dict[str, tuple[str, ...]] = {
    **{a.key: a.kueue_frameworks for a in WORKLOAD_CONTROLLERS},
    **{c: e.kueue_frameworks for c, e in EXTERNAL_CONTROLLERS.items()},
}
"""Each controller's Kueue integrations (chart 0.19.2 ``integrations.frameworks`` names)."""
FRAMEWORK_CONTROLLER: dict[str, str] = {fw: c for c, fws in CONTROLLER_FRAMEWORKS.items() for fw in fws}

VOLCANO_CAPABLE: frozenset[str] = frozenset(a.key for a in WORKLOAD_CONTROLLERS if a.volcano_gang)
"""Controllers with a Volcano gang-scheduling integration (LWS ``gangSchedulingManagement``, Trainer
``podGroupPolicy.volcano``, KubeRay ``batchScheduler``). Each is a cluster-wide setting of the controller."""
GPU_TAINT_KEY = "nvidia.com/gpu"

TOLERATION_PATHS: dict[str, tuple[tuple[str, ...], ...]] = {
    a.key: a.toleration_paths for a in ADDONS if a.toleration_paths
}
"""Where each chart takes its controller pods' tolerations."""


@dataclass(frozen=True)
class WorkloadsSpec:
    """The ``workloads`` section with every default applied."""

    installed: tuple[str, ...] = ()
    """Controllers the stack installs, in ``INSTALLABLE`` order."""
    elsewhere: tuple[str, ...] = ()
    """Controllers declared as installed outside the stack."""
    values: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Per installed controller: its ``values`` escape hatch."""
    trainer_runtimes: tuple[str, ...] = DEFAULT_TRAINING_RUNTIMES
    node_selector: Mapping[str, str] | None = None
    """Where the controllers run; ``None``: the default for the cloud (``addons.workloads.plan``)."""
    gang_scheduler: str = DEFAULT_GANG_SCHEDULER
    """``volcano`` when the stack installs Volcano: it then gang-schedules every Volcano-capable controller
    the stack installs (LeaderWorkerSet, Trainer, KubeRay)."""

    def available(self) -> set[str]:
        return {*self.installed, *self.elsewhere}

    def gang_scheduler_of(self, controller: str) -> str:
        """Who gang-schedules ``controller``'s workloads: Volcano only for controllers this stack installs and
        configures; Kueue otherwise."""
        if controller in self.installed and controller in VOLCANO_CAPABLE:
            return self.gang_scheduler
        return GangScheduler.KUEUE.value


def kueue_frameworks(workloads: WorkloadsSpec) -> tuple[str, ...]:
    """Kueue's integrations when none are configured: the plain kinds plus every framework of a controller that
    is installed (here or elsewhere) and not gang-scheduled by Volcano."""
    out = list(BUILTIN_FRAMEWORKS)
    for controller in (*INSTALLABLE, *(c.value for c in Controller if c.value not in INSTALLABLE)):
        if controller in workloads.available() and workloads.gang_scheduler_of(controller) == "kueue":
            out += [fw for fw in CONTROLLER_FRAMEWORKS[controller] if fw not in out]
    return tuple(out)


def integration_problems(frameworks: Sequence[str], workloads: WorkloadsSpec, p: Problems) -> None:
    """Explicit ``kueue.integrations`` (``p`` is at that list) whose controller is neither installed nor declared,
    or whose controller Volcano gang-schedules."""
    for i, fw in enumerate(frameworks):
        controller = FRAMEWORK_CONTROLLER.get(fw)
        if controller is None:
            continue  # plain kinds, and unknown names (resolve.kueue reports those)
        name = DISPLAY[controller]
        if controller not in workloads.available():
            how = (
                f"enable {{{{workloads.{SECTION_KEY[controller]}.enabled}}}} or list '{controller}' in "
                "{{workloads.installed_elsewhere}}"
                if controller in SECTION_KEY
                else f"list '{controller}' in {{{{workloads.installed_elsewhere}}}} once it is installed"
            )
            p.add((i,), f"'{fw}' needs {name}, which this stack neither installs nor declares: {how}")
        elif workloads.gang_scheduler_of(controller) == GangScheduler.VOLCANO.value:
            p.add(
                (i,),
                f"'{fw}': {name} gang-schedules through Volcano ({{{{volcano.enabled}}}}), a cluster-wide setting; "
                "Kueue and Volcano must not both manage its workloads: remove it from the list",
            )


def values_toleration_problems(chart: str, values: Any, p: Problems) -> None:
    """A ``values`` escape hatch that would let a controller onto GPU nodes (``p`` is at ``values``)."""
    if not isinstance(values, Mapping):
        return
    for path in TOLERATION_PATHS.get(chart, ()):
        node: Any = values
        for part in path:
            node = node.get(part) if isinstance(node, Mapping) else None
        if not isinstance(node, list):
            continue
        for j, tol in enumerate(node):
            if not isinstance(tol, Mapping):
                continue
            key = tol.get("key")
            if key == GPU_TAINT_KEY or (not key and tol.get("operator") == "Exists"):
                p.add(
                    (*(Key(part) for part in path), j),
                    f"tolerates the {GPU_RESOURCE} taint: controllers run on the system pool, never on GPU nodes",
                )


def node_selector_problems(selector: Mapping[str, str], p: Problems) -> None:
    for key, value in selector.items():
        for what, reason in label_problems(str(key), str(value)):
            p.add((Key(str(key)),), reason if what == "key" else f"value {reason[0].lower()}{reason[1:]}")


def resolve_workloads(raw: Mapping[str, Any], volcano_on: bool, p: Problems) -> WorkloadsSpec:
    """The ``workloads`` section (``p`` is at it); ``volcano_on``: the stack installs Volcano."""
    installed = tuple(c for c in INSTALLABLE if raw.get(SECTION_KEY[c], {}).get("enabled", False))
    elsewhere: list[str] = []
    for i, controller in enumerate(raw.get("installed_elsewhere", ())):
        if controller in elsewhere:
            p.add(("installed_elsewhere", i), f"'{controller}' is listed twice")
        elif controller in installed:
            p.add(
                ("installed_elsewhere", i),
                f"'{controller}' is installed by this stack ({{{{workloads.{SECTION_KEY[controller]}.enabled}}}}); "
                "a controller runs once per cluster",
            )
        elsewhere.append(controller)
    trainer = raw.get("trainer", {})
    if Controller.TRAINER.value in installed and Controller.JOBSET.value not in {*installed, *elsewhere}:
        p.add(
            ("trainer", "enabled"),
            "Kubeflow Trainer runs each TrainJob as a JobSet: enable {{workloads.jobset.enabled}} or list 'jobset' "
            "in {{workloads.installed_elsewhere}}",
        )
    runtimes = tuple(trainer.get("runtimes", DEFAULT_TRAINING_RUNTIMES))
    for i, runtime in enumerate(runtimes):
        if runtime in runtimes[:i]:
            p.add(("trainer", "runtimes", i), f"'{runtime}' is listed twice")
    values: dict[str, Mapping[str, Any]] = {}
    for controller in INSTALLABLE:
        section = raw.get(SECTION_KEY[controller], {})
        if "values" in section:
            values_toleration_problems(controller, section["values"], p.at(SECTION_KEY[controller], "values"))
        if controller in installed:
            values[controller] = dict(section.get("values", {}))
    selector = raw.get("node_selector")
    if selector is not None:
        node_selector_problems(selector, p.at("node_selector"))
    return WorkloadsSpec(
        installed=installed,
        elsewhere=tuple(elsewhere),
        values=values,
        trainer_runtimes=runtimes,
        node_selector=None if selector is None else dict(selector),
        gang_scheduler=GangScheduler.VOLCANO.value if volcano_on else GangScheduler.KUEUE.value,
    )


def with_workload_integrations(
    kueue: KueueSpec | None, raw: Mapping[str, Any], workloads: WorkloadsSpec, p: Problems
) -> KueueSpec | None:
    """Kueue's integrations follow the controllers: explicit ``kueue.integrations`` are checked against them (``p``
    is at that list), and without them the list is derived (``kueue_frameworks``)."""
    if "integrations" in raw:
        integration_problems(raw["integrations"], workloads, p)
        return kueue
    return None if kueue is None else replace(kueue, integrations=kueue_frameworks(workloads))


@dataclass(frozen=True)
class ControllerSettings:
    """A workload controller component's arguments, checked (``resolve_controller_args``)."""

    controller: str
    node_selector: Mapping[str, str] = field(default_factory=dict)
    values: Mapping[str, Any] | None = None
    gang_scheduler: str = DEFAULT_GANG_SCHEDULER
    runtimes: tuple[str, ...] = DEFAULT_TRAINING_RUNTIMES
    install_jobset: bool = False
    mirror: Mirror | None = None


def resolve_controller_args(controller: str, args_type: Any, args: Any) -> ControllerSettings:
    """A controller component's arguments (``args_type``: its ``*Args``) checked like the stack file's
    ``workloads.<controller>``; ``ArgumentsError`` lists every problem with its argument path."""
    p = Problems()
    checked = check_arguments(args_type, args, p)
    if checked is not None:
        if "node_selector" in checked:
            node_selector_problems(checked["node_selector"], p.at("node_selector"))
        values_toleration_problems(controller, checked.get("values"), p.at("values"))
        runtimes = checked.get("runtimes", ())
        for i, runtime in enumerate(runtimes):
            if runtime in runtimes[:i]:
                p.add(("runtimes", i), f"'{runtime}' is listed twice")
    mirror = resolve_mirror((checked or {}).get("mirror"), p.at("mirror"))
    p.raise_for_arguments()
    assert checked is not None
    return ControllerSettings(
        controller,
        dict(checked.get("node_selector", {})),
        checked.get("values"),
        checked.get("gang_scheduler", DEFAULT_GANG_SCHEDULER),
        tuple(checked.get("runtimes", DEFAULT_TRAINING_RUNTIMES)),
        checked.get("install_jobset", False),
        mirror,
    )


def resolve_pool_args(
    cloud: str, pools: Sequence[Mapping[str, Any]], cuda_version: str | None = None
) -> tuple[GpuPool, ...]:
    """Pools given like the node pools' (``GpuPoolArgs``), resolved; ``ArgumentsError`` (``pools[i]...``)
    when one does not resolve."""
    p = Problems()
    resolved = resolve_cluster_pools(cloud, list(pools), cuda_version, lambda i: p.at("pools", i))
    p.raise_for_arguments()
    return tuple(resolved.pools)
