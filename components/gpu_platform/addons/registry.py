"""Every add-on, in the order the stack deploys them: the one list of add-ons.

An entry names the add-on's folder (``gpu_platform/addons/<name>/``), the Helm releases it installs (their
pins and names are facts in ``gpu_platform.releases``), the add-ons it builds on (the only ones its modules
may import: ``tests/test_architecture.py`` checks the import graph against ``uses``), the add-ons it is
deployed after, and its wiring: when the spec turns it on, what it contributes to other add-ons' plans, and
how it is deployed. ``stack.program`` loops over ``ADDONS``; ``docs/adding-an-addon.md`` shows a new entry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gpu_platform import releases
from gpu_platform.addons.cert_manager import wiring as cert_manager
from gpu_platform.addons.dra import wiring as dra
from gpu_platform.addons.gpu_operator import wiring as gpu_operator
from gpu_platform.addons.kserve import wiring as kserve
from gpu_platform.addons.kueue import wiring as kueue
from gpu_platform.addons.observability import wiring as observability
from gpu_platform.addons.requirement import Requirement, Sections
from gpu_platform.addons.slurm import wiring as slurm
from gpu_platform.addons.volcano import wiring as volcano
from gpu_platform.addons.workloads import wiring as workloads

if TYPE_CHECKING:
    from gpu_platform.addons.deployment import Deployment
    from gpu_platform.addons.platform_spec import PlatformSpec
    from gpu_platform.cloud_facts.profile import PoolProblems
    from gpu_platform.errors import Problems
    from gpu_platform.pools import GpuPool


@dataclass(frozen=True)
class Addon:
    """One add-on folder and how the stack deploys it."""

    name: str
    """Its folder under ``gpu_platform/addons`` (and, for those with one, its stack-file section, snake_case)."""
    releases: tuple[releases.Addon, ...]
    """The Helm releases it installs (the chart table, ``releases.ALL_CHARTS``, lists each once)."""
    enabled: Callable[[PlatformSpec], bool] | None
    """Whether the spec turns it on; ``None`` for a standalone component the stack does not deploy."""
    deploy: Callable[[Deployment], Mapping[str, Any]] | None = None
    """Creates it from its plan and records its component in ``Deployment.created``; returns stack outputs."""
    uses: tuple[str, ...] = ()
    """The add-ons it builds on (their settings, checks or plans): the only add-ons its modules import."""
    after: tuple[str, ...] = ()
    """The add-ons it waits for when they are on (their components are dependencies of its own)."""
    contributes: Callable[[PlatformSpec], Mapping[str, Any]] | None = None
    """Inputs of other add-ons' plans, by add-on name; each of those add-ons is in ``uses``."""
    requires: tuple[Requirement, ...] = ()
    """What its settings need from other add-ons or the pools, checked once (``requirement_problems``)."""


ADDONS: tuple[Addon, ...] = (
    Addon(
        "observability",
        (releases.PROMETHEUS_OPERATOR_CRDS, releases.KUBE_PROMETHEUS_STACK, releases.NODE_PROBLEM_DETECTOR),
        observability.enabled,
        observability.deploy,
        uses=("gpu_operator", "kueue"),
        contributes=observability.contributions,
    ),
    Addon(
        "gpu_operator",
        (releases.GPU_OPERATOR,),
        gpu_operator.enabled,
        gpu_operator.deploy,
        uses=("dra",),
        requires=gpu_operator.REQUIRES,
    ),
    Addon(
        "kueue",
        (releases.KUEUE,),
        kueue.enabled,
        kueue.deploy,
        uses=("dra", "gpu_operator"),
        after=("observability",),
        requires=kueue.REQUIRES,
    ),
    Addon("volcano", (releases.VOLCANO,), volcano.enabled, volcano.deploy, uses=("kueue", "workloads")),
    Addon(
        "workloads",
        (releases.JOBSET, releases.LEADER_WORKER_SET, releases.TRAINER, releases.KUBERAY),
        workloads.enabled,
        workloads.deploy,
        uses=("kueue",),
        after=("volcano",),
    ),
    Addon(
        "dra",
        (releases.DRA_DRIVER,),
        dra.enabled,
        dra.deploy,
        after=("gpu_operator", "kueue"),
        requires=dra.REQUIRES,
    ),
    Addon("cert_manager", (releases.CERT_MANAGER,), cert_manager.enabled, cert_manager.deploy),
    Addon(
        "slurm",
        (releases.SLURM_OPERATOR_CRDS, releases.SLURM_OPERATOR, releases.SLURM),
        slurm.enabled,
        slurm.deploy,
        uses=("cert_manager", "workloads"),
        after=("cert_manager", "gpu_operator"),
    ),
    Addon(
        "kserve",
        (releases.KSERVE_CRD, releases.KSERVE_RESOURCES, releases.KSERVE_RUNTIME_CONFIGS),
        kserve.enabled,
        kserve.deploy,
        uses=("cert_manager", "kueue"),
        after=("gpu_operator", "kueue", "cert_manager"),
    ),
    Addon("docker_host", (), None),
)
"""In dependency order: each entry comes after every add-on in its ``after`` (a test checks)."""


def requirement_problems(sections: Sections, pools: Sequence[GpuPool], at: PoolProblems, p: Problems) -> None:
    """Every add-on's declared requirements against the stack file: one problem where a setting is on and what it
    needs is not, at the needing setting."""
    for entry in ADDONS:
        for req in entry.requires:
            if req.met(sections):
                continue
            if not req.per_pool:
                if req.applies(sections, None):
                    p.add(req.setting, req.reason(None))
                continue
            for pool in pools:
                if req.applies(sections, pool):
                    at(pool.index).add(req.setting, req.reason(pool))


def addon(name: str) -> Addon:
    """The entry of a registered add-on (``StopIteration`` otherwise)."""
    return next(a for a in ADDONS if a.name == name)
