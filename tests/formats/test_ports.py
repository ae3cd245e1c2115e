"""Docker's published ports (docker/go-connections ``nat.ParsePortSpec``)."""

from __future__ import annotations

import pytest

from gpu_platform.formats.ports import port_problem


@pytest.mark.parametrize(
    "spec",
    ["80", "8000:80", "127.0.0.1:8000:80", "[::1]:53:53/udp", "9000-9009:9000-9009", "9000-9009:80/sctp"],
)
def test_docker_port_forms(spec: str) -> None:
    assert port_problem(spec) is None


@pytest.mark.parametrize("spec", ["65536", "0", "10-5", "1-3:1-2", "80/xyz", "a:80", "256.0.0.1:80:80", 80])
def test_what_docker_refuses(spec: object) -> None:
    assert port_problem(spec) is not None
