"""Plan pairs: a project's stack (or a component) planned offline before and after an edit, and the diff of the two
plans, as ``gpu-platform diff`` computes it."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from gpu_platform.offline import plan_document, run_plan, run_program
from gpu_platform.offline.diff import Change, PlanDiff, diff_plans
from tests.conftest import REPO

Edit = Callable[[dict[str, Any]], None]
"""Changes the stack file's ``gpu-platform:`` keys in place (``raw["gpuPools"][0]["topology"] = False``)."""


def stack_file(project: Path, stack: str) -> dict[str, Any]:
    """The whole ``config`` of a stack file: ``stacks/Pulumi.<stack>.yaml`` in the repository, ``Pulumi.<stack>.yaml``
    in an example project."""
    path = project / "stacks" / f"Pulumi.{stack}.yaml"
    if not path.exists():
        path = project / f"Pulumi.{stack}.yaml"
    config: dict[str, Any] = yaml.safe_load(path.read_text())["config"]
    return config


def plan_of(project: Path, stack: str, config: dict[str, Any]) -> dict[str, Any]:
    return plan_document(run_plan(project, stack, config_override=config))


def edited(config: dict[str, Any], edit: Edit) -> dict[str, Any]:
    """``config`` with its ``gpu-platform:`` keys changed by ``edit`` (the other keys as they are)."""
    raw = {k.split(":", 1)[1]: copy.deepcopy(v) for k, v in config.items() if k.startswith("gpu-platform:")}
    edit(raw)
    others = {k: v for k, v in config.items() if not k.startswith("gpu-platform:")}
    return {**others, **{f"gpu-platform:{k}": v for k, v in raw.items()}}


def diff_edit(edit: Edit, stack: str = "dev", project: Path = REPO) -> PlanDiff:
    """The diff of a project's stack planned as its stack file says, then with ``edit`` applied."""
    config = stack_file(project, stack)
    return diff_plans(plan_of(project, stack, config), plan_of(project, stack, edited(config, edit)))


def diff_programs(before: Callable[[], object], after: Callable[[], object]) -> PlanDiff:
    """The diff of two programs (components built under mocks), as two plans of one stack."""
    return diff_plans(
        plan_document(run_program(before, project="p", stack="s")),
        plan_document(run_program(after, project="p", stack="s")),
    )


def named(d: PlanDiff, name: str) -> Change:
    """The change of the resource named ``name`` (fails when it did not change)."""
    found = [c for c in d.changes if c.name == name]
    assert found, f"{name} did not change: {[c.name for c in d.changes]}"
    return found[0]
