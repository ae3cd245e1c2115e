"""README's two commands on a fresh machine: `make plan` installs what the stack's plan needs (its cloud's SDK, not
the 1.6 GB `[dev]` extra) and says so; `make setup` (behind `make test`) says what it installs and shows pip's
progress.

The Makefile runs in a copy of the checkout whose ``.venv/bin`` holds stand-ins that record their arguments, so
nothing is installed and no network is used.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO

STAND_IN = '#!/bin/sh\necho "$(basename "$0") $*" >> "$(dirname "$0")/../calls"\n'


def checkout(tmp_path: Path, stack_cloud: str | None = None) -> Path:
    """The Makefile, pyproject.toml and stack files in ``tmp_path``, a virtualenv of stand-ins in ``.venv``."""
    assert shutil.which("make"), "make is needed to run the README's commands"
    root = tmp_path / "checkout"
    (root / "stacks").mkdir(parents=True)
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(REPO / name, root / name)
    for stack in REPO.glob("stacks/Pulumi.*.yaml"):
        shutil.copy(stack, root / "stacks" / stack.name)
    if stack_cloud:
        (root / "stacks" / "Pulumi.onprem.yaml").write_text(f"config:\n  gpu-platform:cloud: {stack_cloud}\n")
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for tool in ("python", "gpu-platform"):
        (bin_dir / tool).write_text(STAND_IN)
        (bin_dir / tool).chmod(0o755)
    return root


def make(root: Path, *args: str) -> tuple[str, list[str]]:
    """Run make; its output and the stand-ins' calls."""
    done = subprocess.run(
        ["make", "--no-print-directory", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "MAKEFLAGS": ""},
        check=True,
    )
    calls = root / ".venv" / "calls"
    return done.stdout, calls.read_text().splitlines() if calls.exists() else []


def installs(calls: list[str]) -> list[str]:
    return [c.removeprefix("python -m pip install ") for c in calls if c.startswith("python -m pip install ")]


@pytest.mark.parametrize(
    ("stack", "extra"), [("dev", ".[gke]"), ("prod", ".[eks]"), ("staging", ".[aks]"), ("onprem", ".")]
)
def test_make_plan_installs_only_the_stacks_cloud_sdk(tmp_path: Path, stack: str, extra: str) -> None:
    root = checkout(tmp_path, stack_cloud="existing")
    out, calls = make(root, "plan", f"STACK={stack}")
    assert installs(calls) == ["--quiet --upgrade pip", f"--progress-bar on -e {extra}"]
    assert calls[-1] == f"gpu-platform plan --stack {stack}"
    assert f"make plan: installing gpu-platform{extra.removeprefix('.')} into .venv" in out
    assert "[dev]" not in " ".join(calls)
    # Planned again: nothing more to install.
    (root / ".venv" / "calls").unlink()
    _, calls = make(root, "plan", f"STACK={stack}")
    assert calls == [f"gpu-platform plan --stack {stack}"]


def test_make_setup_says_what_it_installs_and_shows_progress(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    out, calls = make(root, "setup")
    assert installs(calls) == ["--quiet --upgrade pip", "--progress-bar on -e .[dev]"]
    assert "installing gpu-platform[dev]" in out and "about 1.6 GB" in out
    # After `make setup`, `make plan` installs nothing: [dev] holds every cloud's SDK.
    (root / ".venv" / "calls").unlink()
    _, calls = make(root, "plan")
    assert calls == ["gpu-platform plan --stack dev"]
