"""Run a Pulumi Python project offline under mocks with one stack's config: the plan.

This is the same program ``pulumi up`` runs; only the engine is replaced. Config comes from
``<stackConfigDir>/Pulumi.<stack>.yaml``; ``secure:`` values become a placeholder kept secret.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gpu_platform.plan.recorder import Registration, close_mock_runtime, run_under_mocks, start_mock_runtime

SECURE_PLACEHOLDER = "offline-placeholder-secret"


@dataclass
class Plan:
    project: str
    stack: str
    resources: list[Registration]

    def by_type(self, type_prefix: str) -> list[Registration]:
        return [r for r in self.resources if r.type.startswith(type_prefix)]

    def one(self, type_prefix: str, name: str | None = None) -> Registration:
        found = [r for r in self.by_type(type_prefix) if name is None or r.name == name]
        if len(found) != 1:
            names = [r.name for r in self.by_type(type_prefix)]
            raise LookupError(f"expected one {type_prefix} named {name!r}, found {len(found)} among {names}")
        return found[0]

    def children_of(self, urn: str) -> list[Registration]:
        return [r for r in self.resources if r.parent == urn]


@dataclass
class Project:
    directory: Path
    name: str
    main: Path
    config_dir: Path

    def stack_file(self, stack: str) -> Path:
        return self.config_dir / f"Pulumi.{stack}.yaml"


def load_project(directory: str | Path) -> Project:
    directory = Path(directory).resolve()
    spec = yaml.safe_load((directory / "Pulumi.yaml").read_text())
    main = directory / spec.get("main", ".")
    if main.is_dir():
        main = main / "__main__.py"
    config_dir = directory / spec.get("stackConfigDir", ".")
    return Project(directory, spec["name"], main, config_dir)


def stack_config(project: Project, stack: str) -> tuple[dict[str, str], list[str]]:
    """Pulumi config as the engine passes it: ``ns:key`` -> string (JSON for objects), secret keys."""
    path = project.stack_file(stack)
    if not path.exists():
        raise FileNotFoundError(f"no stack config {path}")
    doc = yaml.safe_load(path.read_text()) or {}
    config: dict[str, str] = {}
    secrets: list[str] = []

    def scrub(value: Any, key: str) -> Any:
        if isinstance(value, dict) and set(value) == {"secure"}:
            secrets.append(key)
            return SECURE_PLACEHOLDER
        if isinstance(value, dict):
            return {k: scrub(v, key) for k, v in value.items()}
        if isinstance(value, list):
            return [scrub(v, key) for v in value]
        return value

    for raw_key, value in (doc.get("config") or {}).items():
        key = raw_key if ":" in raw_key else f"{project.name}:{raw_key}"
        value = scrub(value, key)
        config[key] = value if isinstance(value, str) else json.dumps(value)
    return config, sorted(set(secrets))


def run_plan(project_dir: str | Path, stack: str, config_override: dict[str, Any] | None = None) -> Plan:
    """Run the project's program for ``stack`` under mocks and return every registration."""
    project = load_project(project_dir)
    config, secrets = (
        stack_config(project, stack) if config_override is None else _override(project, config_override)
    )
    monitor = start_mock_runtime(project.name, stack, config, secrets)
    main_dir = str(project.main.parent)
    old_cwd, old_path = os.getcwd(), list(sys.path)
    os.chdir(project.directory)
    sys.path.insert(0, main_dir)
    try:
        run_under_mocks(lambda: runpy.run_path(str(project.main), run_name="__main__"))
    finally:
        os.chdir(old_cwd)
        sys.path[:] = old_path
        close_mock_runtime()
    return Plan(project.name, stack, sorted(monitor.registrations, key=lambda r: r.urn))


def _override(project: Project, values: dict[str, Any]) -> tuple[dict[str, str], list[str]]:
    config = {}
    for k, v in values.items():
        key = k if ":" in k else f"{project.name}:{k}"
        config[key] = v if isinstance(v, str) else json.dumps(v)
    return config, []


def run_program(
    program: Any, config: dict[str, Any] | None = None, project: str = "test", stack: str = "test"
) -> Plan:
    """Run a Python callable as a Pulumi program under mocks (tests build one component this way)."""
    cfg = {k: (v if isinstance(v, str) else json.dumps(v)) for k, v in (config or {}).items()}
    monitor = start_mock_runtime(project, stack, cfg, [])
    try:
        run_under_mocks(program)
    finally:
        close_mock_runtime()
    return Plan(project, stack, sorted(monitor.registrations, key=lambda r: r.urn))
