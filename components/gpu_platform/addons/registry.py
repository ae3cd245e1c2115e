"""Every add-on, in the order the stack deploys them: the one list of add-ons.

An entry names the add-on's folder (``gpu_platform/addons/<name>/``), the Helm releases it installs (their
pins and names are facts in ``gpu_platform.releases``), the add-ons it builds on (the only ones its modules
may import: ``tests/test_architecture.py`` checks the import graph against ``uses``), the add-ons it is
deployed after, and its wiring: when the spec turns it on, what it contributes to other add-ons' plans, and
how it is deployed. ``stack.program`` loops over ``ADDONS``; ``docs/adding-an-addon.md`` shows a new entry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gpu_platform import releases
from gpu_platform.addons.cert_manager import diff_rules as cert_manager_rules
from gpu_platform.addons.cert_manager import wiring as cert_manager
from gpu_platform.addons.docker_host import diff_rules as docker_host_rules
from gpu_platform.addons.dra import diff_rules as dra_rules
from gpu_platform.addons.dra import wiring as dra
from gpu_platform.addons.fleet import diff_rules as fleet_rules
from gpu_platform.addons.gpu_operator import diff_rules as gpu_operator_rules
from gpu_platform.addons.gpu_operator import wiring as gpu_operator
from gpu_platform.addons.hami import diff_rules as hami_rules
from gpu_platform.addons.hami import wiring as hami
from gpu_platform.addons.kserve import diff_rules as kserve_rules
from gpu_platform.addons.kserve import wiring as kserve
from gpu_platform.addons.kueue import diff_rules as kueue_rules
from gpu_platform.addons.kueue import wiring as kueue
from gpu_platform.addons.observability import diff_rules as observability_rules
from gpu_platform.addons.observability import wiring as observability
from gpu_platform.addons.requirement import CheckedSections, Requirement, Sections
from gpu_platform.addons.serving import diff_rules as serving_rules
from gpu_platform.addons.serving import wiring as serving
from gpu_platform.addons.slurm import diff_rules as slurm_rules
from gpu_platform.addons.slurm import wiring as slurm
from gpu_platform.addons.volcano import diff_rules as volcano_rules
from gpu_platform.addons.volcano import wiring as volcano
from gpu_platform.addons.workloads import diff_rules as workloads_rules
from gpu_platform.addons.workloads import wiring as workloads
from gpu_platform.diff_rule import DiffRule

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
    diff_rules: tuple[DiffRule, ...] = field(kw_only=True)
    """What ``gpu-platform diff`` flags in what it creates (its folder's ``diff_rules.py``): required, even when
    empty, so no add-on is added without saying what of it costs running work or data (docs/day2.md)."""


ADDONS: tuple[Addon, ...] = (
    Addon(
        "observability",
        (releases.PROMETHEUS_OPERATOR_CRDS, releases.KUBE_PROMETHEUS_STACK, releases.NODE_PROBLEM_DETECTOR),
        observability.enabled,
        observability.deploy,
        uses=("gpu_operator", "hami", "kueue"),
        contributes=observability.contributions,
        requires=observability.REQUIRES,
        diff_rules=observability_rules.DIFF_RULES,
    ),
    Addon(
        "gpu_operator",
        (releases.GPU_OPERATOR,),
        gpu_operator.enabled,
        gpu_operator.deploy,
        uses=("dra",),
        requires=gpu_operator.REQUIRES,
        diff_rules=gpu_operator_rules.DIFF_RULES,
    ),
    Addon(
        "hami",
        (releases.HAMI,),
        hami.enabled,
        hami.deploy,
        after=("observability", "gpu_operator"),
        requires=hami.REQUIRES,
        diff_rules=hami_rules.DIFF_RULES,
    ),
    Addon(
        "volcano",
        (releases.VOLCANO,),
        volcano.enabled,
        volcano.deploy,
        uses=("kueue", "workloads"),
        diff_rules=volcano_rules.DIFF_RULES,
    ),
    Addon(
        "workloads",
        (releases.JOBSET, releases.LEADER_WORKER_SET, releases.TRAINER, releases.KUBERAY),
        workloads.enabled,
        workloads.deploy,
        uses=("kueue",),
        after=("volcano",),
        diff_rules=workloads_rules.DIFF_RULES,
    ),
    Addon(
        "kueue",
        (releases.KUEUE,),
        kueue.enabled,
        kueue.deploy,
        uses=("dra", "gpu_operator"),
        after=("observability", "workloads"),
        requires=kueue.REQUIRES,
        diff_rules=kueue_rules.DIFF_RULES,
    ),
    Addon(
        "dra",
        (releases.DRA_DRIVER,),
        dra.enabled,
        dra.deploy,
        after=("gpu_operator", "kueue"),
        requires=dra.REQUIRES,
        diff_rules=dra_rules.DIFF_RULES,
    ),
    Addon(
        "cert_manager",
        (releases.CERT_MANAGER,),
        cert_manager.enabled,
        cert_manager.deploy,
        diff_rules=cert_manager_rules.DIFF_RULES,
    ),
    Addon(
        "slurm",
        (releases.SLURM_OPERATOR_CRDS, releases.SLURM_OPERATOR, releases.SLURM),
        slurm.enabled,
        slurm.deploy,
        uses=("cert_manager", "workloads"),
        after=("cert_manager", "gpu_operator"),
        diff_rules=slurm_rules.DIFF_RULES,
    ),
    Addon(
        "kserve",
        (releases.KSERVE_CRD, releases.KSERVE_RESOURCES, releases.KSERVE_RUNTIME_CONFIGS),
        kserve.enabled,
        kserve.deploy,
        uses=("cert_manager", "kueue"),
        after=("gpu_operator", "kueue", "cert_manager"),
        diff_rules=kserve_rules.DIFF_RULES,
    ),
    Addon(
        "serving",
        (
            releases.KSERVE_LLMISVC_CRD,
            releases.KSERVE_LLMISVC_RESOURCES,
            releases.ENVOY_GATEWAY_CRDS,
            releases.ENVOY_GATEWAY,
            releases.ENVOY_AI_GATEWAY_CRDS,
            releases.ENVOY_AI_GATEWAY,
            releases.KEDA,
        ),
        serving.enabled,
        serving.deploy,
        uses=("kserve", "kueue", "workloads"),
        after=("observability", "gpu_operator", "kserve"),
        requires=serving.REQUIRES,
        diff_rules=serving_rules.DIFF_RULES,
    ),
    Addon("docker_host", (), None, diff_rules=docker_host_rules.DIFF_RULES),
    # A component of several clusters (``GpuFleet``): no stack of one cluster deploys it.
    Addon("fleet", (), None, uses=("kueue",), diff_rules=fleet_rules.DIFF_RULES),
)
"""In dependency order: each entry comes after every add-on in its ``after`` (a test checks)."""


def requirement_problems(sections: Sections, pools: Sequence[GpuPool], at: PoolProblems, p: Problems) -> None:
    """Every add-on's declared requirements against the stack file: one problem where a setting is on and what it
    needs is not, at the needing setting."""
    sections = CheckedSections(sections)
    for entry in ADDONS:
        for req in entry.requires:
            if not req.per_pool:
                met = (
                    any(req.met(sections, pool) for pool in pools)
                    if req.any_pool
                    else req.met(sections, None)
                )
                if req.applies(sections, None) and not met:
                    p.add(req.setting, req.reason(sections, None))
                continue
            for pool in pools:
                if req.applies(sections, pool) and not req.met(sections, pool):
                    at(pool.index).add(req.setting, req.reason(sections, pool))


def addon(name: str) -> Addon:
    """The entry of a registered add-on (``StopIteration`` otherwise)."""
    return next(a for a in ADDONS if a.name == name)
