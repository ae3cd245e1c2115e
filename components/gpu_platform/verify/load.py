"""The expectation of a project's stack: its stack file read as the stack program reads it, then planned offline.

The spec is loaded from the same ``gpu-platform:`` settings the program receives (``load_platform``), and the
plan is the one ``gpu-platform plan`` makes (``run_plan``), so verify compares the cluster with exactly that.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpu_platform.errors import NAMESPACE
from gpu_platform.offline.errors import PlanInputError
from gpu_platform.offline.runner import load_project, run_plan, stack_config
from gpu_platform.stack.spec import load_platform
from gpu_platform.verify.expected import Expected, expected_state


def stack_settings(config: dict[str, str]) -> dict[str, Any]:
    """The ``gpu-platform:`` keys of engine config (``ns:key`` -> text), objects parsed, as the program reads them."""
    raw: dict[str, Any] = {}
    for key, text in config.items():
        if not key.startswith(f"{NAMESPACE}:"):
            continue
        try:
            value = json.loads(text)
        except ValueError:
            value = text
        raw[key.split(":", 1)[1]] = value if isinstance(value, (dict, list)) else text
    return raw


def load_expected(
    project: str | Path, stack: str, config_file: str | Path | None = None, use_env_config: bool = False
) -> Expected:
    """Plan ``stack`` offline and derive what its cluster should hold. ``PlanInputError``/``ConfigError`` on bad
    input, as ``gpu-platform plan`` raises them."""
    config, _ = stack_config(load_project(project), stack, config_file, use_env_config)
    raw = stack_settings(config)
    if "cloud" not in raw:
        raise PlanInputError(
            f"stack {stack!r} sets no {NAMESPACE}:cloud: verify reads a stack file's {NAMESPACE}: settings "
            "(a program that builds its components in code has none)"
        )
    spec = load_platform(raw)
    plan = run_plan(project, stack, config_file=config_file, use_env_config=use_env_config)
    return expected_state(spec, stack, plan.resources)
