"""One validator for every network setting: private ranges and 100.64.0.0/10, never a special-purpose range."""

from __future__ import annotations

import pytest

from gpu_platform.formats.network import client_range_problem, private_network_problem


@pytest.mark.parametrize(
    "cidr", ["10.0.0.0/16", "172.16.0.0/12", "192.168.0.0/24", "100.64.0.0/10", "100.127.0.0/16"]
)
def test_private_and_shared_ranges_are_networks(cidr: str) -> None:
    assert private_network_problem(cidr, "10.0.0.0/16") is None


@pytest.mark.parametrize(
    ("cidr", "why"),
    [
        ("127.0.0.0/8", "loopback"),
        ("169.254.0.0/16", "link-local"),
        ("0.0.0.0/8", "this network"),
        ("224.0.0.0/4", "multicast"),
        ("192.0.2.0/24", "documentation"),
        ("8.8.8.0/24", "not a private range"),
        ("100.128.0.0/16", "not a private range"),
        ("10.0.0.1/16", "not an IPv4 network"),
        ("10.0.0.0", "no prefix length"),
        ("fd00::/8", "IPv6"),
        (5, "not an IPv4 network"),
    ],
)
def test_other_ranges_are_refused_saying_what_they_are(cidr: object, why: str) -> None:
    reason = private_network_problem(cidr, "10.0.0.0/16")
    assert reason is not None and why in reason


def test_client_ranges_may_be_public_or_any_but_never_special() -> None:
    assert client_range_problem("0.0.0.0/0") is None and client_range_problem("203.0.114.0/24") is None
    assert "loopback" in (client_range_problem("127.0.0.1/32") or "")
