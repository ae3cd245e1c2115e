"""Run a Pulumi Python project offline under mocks with one stack's config: the plan.

This is the same program ``pulumi up`` runs; only the engine is replaced. Config comes from
``<stackConfigDir>/Pulumi.<stack>.yaml`` (see :mod:`gpu_platform.offline.stack_file`), optionally
overridden by ``--config-file`` and, only when asked, by ``PULUMI_CONFIG`` from the environment;
``secure:`` values become a placeholder kept secret.
"""

import json
import os
import runpy
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpu_platform.offline.errors import PlanInputError
from gpu_platform.offline.recorder import MockRuntime, Registration
from gpu_platform.offline.stack_file import (
    SECURE_PLACEHOLDER,
    config_environment,
    engine_config,
    environment_config,
    load_yaml,
    read_config_file,
)

__all__ = ["SECURE_PLACEHOLDER", "Plan", "Project", "load_project", "run_plan", "run_program", "stack_config"]


@dataclass
class Plan:
    project: str
    stack: str
    resources: list[Registration]
    outputs: dict[str, Any] = field(default_factory=dict)
    """The stack outputs the program exported as plain data (``nodeSetup``); not part of ``plan.json``."""

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
    path = directory / "Pulumi.yaml"
    if not path.exists():
        raise PlanInputError(f"{directory} is not a Pulumi project (no Pulumi.yaml); pass --project DIR")
    spec = load_yaml(path)
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
        raise PlanInputError(f"{path}: a Pulumi project file must be a mapping with a name:")
    main = directory / str(spec.get("main", "."))
    if main.is_dir():
        main = main / "__main__.py"
    if not main.exists():
        raise PlanInputError(f"{path}: the program {main} does not exist")
    config_dir = directory / str(spec.get("stackConfigDir", "."))
    return Project(directory, spec["name"], main, config_dir)


def stack_config(
    project: Project,
    stack: str,
    config_file: str | Path | None = None,
    use_env_config: bool = False,
) -> tuple[dict[str, str], list[str]]:
    """Pulumi config as the engine passes it: ``ns:key`` -> string (JSON for objects), secret keys.

    Later sources win: the stack file, then ``config_file``, then (``use_env_config``) ``PULUMI_CONFIG``.
    """
    path = project.stack_file(stack)
    if not path.exists():
        raise PlanInputError(f"no stack config {path} (stack {stack!r})")
    config, secrets = read_config_file(project.name, path, allow_environment=config_file is not None)
    if config_file is not None:
        extra, extra_secrets = read_config_file(project.name, Path(config_file))
        config.update(extra)
        secrets = [k for k in secrets if k not in extra] + extra_secrets
    if use_env_config:
        env, env_secrets = environment_config()
        config.update(env)
        secrets += env_secrets
    return config, sorted(set(secrets))


@contextmanager
def _in_project(project: Project) -> Iterator[None]:
    old_cwd, old_path = os.getcwd(), list(sys.path)
    os.chdir(project.directory)
    sys.path.insert(0, str(project.main.parent))
    try:
        yield
    finally:
        os.chdir(old_cwd)
        sys.path[:] = old_path


def run_plan(
    project_dir: str | Path,
    stack: str,
    config_override: dict[str, Any] | None = None,
    *,
    config_file: str | Path | None = None,
    use_env_config: bool = False,
    without: tuple[str, ...] = (),
) -> Plan:
    """Run the project's program for ``stack`` under mocks and return every registration.

    ``config_override`` replaces the stack file's config (tests); ``PULUMI_CONFIG*`` variables are
    hidden from the program unless ``use_env_config``, so the plan does not depend on the shell;
    ``without``: config keys (``ns:key``) left out (``gpu-platform mirror`` plans without the mirror).
    """
    project = load_project(project_dir)
    if config_override is None:
        config, secrets = stack_config(project, stack, config_file, use_env_config)
    else:
        config, secrets = _override(project, config_override)
    config = {k: v for k, v in config.items() if k not in without}
    with (
        config_environment(keep=use_env_config),
        _in_project(project),
        MockRuntime(project.name, stack, config, secrets) as runtime,
    ):
        registrations = runtime.run(lambda: runpy.run_path(str(project.main), run_name="__main__"))
    return Plan(project.name, stack, registrations, runtime.outputs)


def _override(project: Project, values: dict[str, Any]) -> tuple[dict[str, str], list[str]]:
    """A config mapping given in code, read like a stack file's ``config:`` (``secure:`` values included)."""
    return engine_config(project.name, values)


def run_program(
    program: Any,
    config: dict[str, Any] | None = None,
    project: str = "test",
    stack: str = "test",
    secret_keys: list[str] | None = None,
) -> Plan:
    """Run a Python callable as a Pulumi program under mocks (tests build one component this way)."""
    cfg = {k: (v if isinstance(v, str) else json.dumps(v)) for k, v in (config or {}).items()}
    with config_environment(keep=False), MockRuntime(project, stack, cfg, secret_keys or []) as runtime:
        registrations = runtime.run(program)
    return Plan(project, stack, registrations, runtime.outputs)
