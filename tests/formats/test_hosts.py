"""A bare host where a URL with credentials is a classic mistake."""

from __future__ import annotations

import pytest

from gpu_platform.formats.hosts import host_problem


@pytest.mark.parametrize("host", ["db", "db.example.internal", "10.0.0.5", "fd00::5", "[fd00::5]"])
def test_bare_hosts(host: str) -> None:
    assert host_problem(host, "port", "secret") is None


@pytest.mark.parametrize(
    ("host", "why"),
    [
        ("mysql://u:p@db:3306/x", "credentials"),
        ("https://db", "is a URL"),
        ("u@db", "credentials"),
        ("db:3306", "port"),
        ("db_1", "not a host name"),
        ("a" * 254, "not a host name"),
    ],
)
def test_what_is_not_a_bare_host(host: str, why: str) -> None:
    reason = host_problem(host, "port", "secret")
    assert reason is not None and why in reason
    assert ":p@" not in reason
