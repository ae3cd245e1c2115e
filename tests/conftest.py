"""Test harness: run a whole project or one component under Pulumi mocks and query what registered."""

from __future__ import annotations

import functools
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_platform.offline import Plan, run_plan, run_program
from tests.support.control_plane import control_plane  # noqa: F401  (the session's local control plane)

REPO = Path(__file__).resolve().parents[1]
UPSTREAM = REPO / "tests" / "upstream"
"""Upstream files (chart values, CRDs, configs, whole charts) vendored at pinned tags; see its README.md."""


LOOPBACK = {"localhost", "127.0.0.1", "::1", ""}


@pytest.fixture(autouse=True, scope="session")
def no_network() -> Iterator[None]:
    """The suite is self-contained (README): a test that reaches for the network fails instead of
    depending on it. Loopback and Unix sockets stay allowed."""
    real_connect, real_connect_ex, real_getaddrinfo = (
        socket.socket.connect,
        socket.socket.connect_ex,
        socket.getaddrinfo,
    )

    def refuse(address: Any) -> None:
        raise OSError(f"the test suite is self-contained and may not use the network (tried {address!r})")

    def remote(sock: socket.socket, address: Any) -> bool:
        return sock.family in (socket.AF_INET, socket.AF_INET6) and str(address[0]) not in LOOPBACK

    def connect(self: socket.socket, address: Any) -> None:
        if remote(self, address):
            refuse(address)
        real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        if remote(self, address):
            refuse(address)
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host is not None and str(host) not in LOOPBACK:
            refuse(host)
        return real_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect, socket.socket.connect_ex = connect, connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]
    try:
        yield
    finally:
        socket.socket.connect, socket.socket.connect_ex = real_connect, real_connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = real_getaddrinfo


@pytest.fixture
def plan_stack() -> Callable[..., Plan]:
    """``plan_stack(stack="dev", project=REPO, config=None)``: run a project's program for a stack."""

    def _run(stack: str = "dev", project: Path | str = REPO, config: dict[str, Any] | None = None) -> Plan:
        return run_plan(project, stack, config_override=config)

    return _run


@pytest.fixture
def run_component() -> Callable[..., Plan]:
    """``run_component(lambda: MyComponent(...))``: build components under mocks, return the plan."""
    return run_program


@functools.cache
def planned_stack(stack: str, project: Path = REPO) -> Plan:
    """The plan of a project's stack (the repository's ``stacks/Pulumi.<stack>.yaml`` unless ``project`` is
    another, such as an example), planned once per session: read it, never change it."""
    return run_plan(project, stack)


@pytest.fixture(scope="module")
def kps_chart(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """kube-prometheus-stack with its dependencies under charts/, as ``helm dependency build`` leaves it."""
    from tests.support.observability import kube_prometheus_stack_chart

    return kube_prometheus_stack_chart(tmp_path_factory.mktemp("charts"))


def upstream(*parts: str) -> Path:
    """A vendored upstream file under tests/upstream. A missing one fails the test: the suite never skips."""
    path = UPSTREAM.joinpath(*parts)
    if not path.is_file():
        pytest.fail(
            f"vendored upstream file missing: {path}. Run `python scripts/refresh_upstream.py --check` to list "
            "what is missing or changed, and `--from-raw` (or `--from-git DIR`) to restore it; "
            "see tests/upstream/README.md.",
            pytrace=False,
        )
    return path


def load_yaml_docs(path: Path) -> list[Any]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


def stack_file_config(stack: str, project: Path = REPO) -> dict[str, Any]:
    """The ``config`` of ``stacks/Pulumi.<stack>.yaml``, keys as written there (``gpu-platform:cloud``)."""
    doc = yaml.safe_load((project / "stacks" / f"Pulumi.{stack}.yaml").read_text())
    config: dict[str, Any] = doc["config"]
    return config


def stack_raw_config(stack: str, project: Path = REPO) -> dict[str, Any]:
    """The ``gpu-platform:`` keys of a stack file as a plain dict (for config-only tests)."""
    config = stack_file_config(stack, project)
    return {k.split(":", 1)[1]: v for k, v in config.items() if k.startswith("gpu-platform:")}
