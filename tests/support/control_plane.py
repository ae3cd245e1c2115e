"""The local control plane (``scripts/control_plane.py``) as a session fixture: built once into the cache,
started on 127.0.0.1 for the whole run, stopped at its end. Skipped only where neither the Go toolchain nor
a cached build is there (CI has Go, so there it runs)."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.scripts import load_script

REPO = Path(__file__).resolve().parents[2]
control_plane_script: Any = load_script(
    REPO / "scripts" / "control_plane.py", "control_plane_script", register=True
)

ControlPlane = control_plane_script.ControlPlane
ApplyError = control_plane_script.ApplyError
ApiError = control_plane_script.ApiError


def missing_tools() -> str | None:
    """Why the control plane cannot run here, or ``None``."""
    built = all(path.exists() for path in control_plane_script.binaries().values())
    if not built and shutil.which("go") is None:
        return "the local control plane needs the Go toolchain (`go` on PATH) to build kube-apiserver, Kueue and kwok"
    if shutil.which("openssl") is None:
        return "the local control plane needs `openssl` for its certificates"
    return None


@pytest.fixture(scope="session")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A running control plane: ``.kubeconfig`` (a path), ``.apply(objects)`` (server-side apply with strict
    field validation: ``ControlPlane.check_fields``, ``apply_path``; raises ``ApplyError`` with every refusal),
    ``.try_apply``, ``.get(path)``, ``.request``, ``.delete``."""
    if reason := missing_tools():
        pytest.skip(reason)
    cp = control_plane_script.start(tmp_path_factory.mktemp("control-plane"))
    try:
        yield cp
    finally:
        cp.stop()


def wait_until(
    what: str,
    check: Callable[[], Any],
    timeout: float = 45,
    every: float = 0.25,
    why: Callable[[], str] | None = None,
) -> Any:
    """``check()``'s first truthy value (an ``ApiError`` counts as not yet); the test fails (never hangs) after
    ``timeout`` seconds, saying ``why()`` when given (the state that was waited on)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if value := check():
                return value
        except ApiError:
            pass
        time.sleep(every)
    pytest.fail(f"{what}: not within {timeout:.0f}s" + (f" ({why()})" if why is not None else ""))
