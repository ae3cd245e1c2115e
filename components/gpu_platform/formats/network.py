"""IPv4 networks: one validator for every network setting (a cluster's VPC, its GPU networks, the clients allowed
to reach an API server), so each refuses the same special ranges for the same reason.

Node, Pod and GPU networks come from the private ranges (RFC 1918) or the shared address space 100.64.0.0/10
(RFC 6598), which VPCs accept for their subnets ("Valid IPv4 ranges" of Google's VPC subnets; AWS's "VPC CIDR
blocks"). Python's ``is_private`` is not that test: it also holds for loopback, link-local, ``0.0.0.0/8`` and the
documentation ranges, none of which a VPC routes, and it is false for 100.64.0.0/10.
"""

from __future__ import annotations

import ipaddress

PRIVATE_RANGES = tuple(ipaddress.IPv4Network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))
"""RFC 1918."""
SHARED_ADDRESS_SPACE = ipaddress.IPv4Network("100.64.0.0/10")
"""RFC 6598: carrier-grade NAT space, which VPCs also accept for their subnets."""
USABLE = (
    "a private range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16) or the shared address space 100.64.0.0/10"
)
SPECIAL_RANGES: tuple[tuple[ipaddress.IPv4Network, str], ...] = tuple(
    (ipaddress.IPv4Network(net), what)
    for net, what in (
        ("0.0.0.0/8", "'this network' (0.0.0.0/8, RFC 1122), which no host is addressed in"),
        ("127.0.0.0/8", "loopback (127.0.0.0/8): every host answers it itself"),
        (
            "169.254.0.0/16",
            "link-local (169.254.0.0/16): never routed, and the clouds' metadata servers live there",
        ),
        ("192.0.0.0/24", "IETF protocol assignments (192.0.0.0/24)"),
        ("192.0.2.0/24", "documentation (TEST-NET-1, 192.0.2.0/24)"),
        ("198.51.100.0/24", "documentation (TEST-NET-2, 198.51.100.0/24)"),
        ("203.0.113.0/24", "documentation (TEST-NET-3, 203.0.113.0/24)"),
        ("198.18.0.0/15", "benchmarking (198.18.0.0/15)"),
        ("224.0.0.0/4", "multicast (224.0.0.0/4)"),
        ("240.0.0.0/4", "reserved (240.0.0.0/4)"),
    )
)
"""Ranges no network setting may use (IANA IPv4 Special-Purpose Address Registry), with what each is."""


def parse_network(text: object, example: str) -> ipaddress.IPv4Network | str:
    """``text`` as an IPv4 network in CIDR notation (host bits zero), or why it is not one."""
    if not isinstance(text, str):
        return f"{text!r} is not an IPv4 network like {example}"
    try:
        net = ipaddress.ip_network(text.strip(), strict=True)
    except ValueError as exc:
        return f"'{text}' is not an IPv4 network like {example} ({exc})"
    if net.version != 4 or "/" not in text:
        why = "it is IPv6" if net.version != 4 else "it has no prefix length"
        return f"'{text}' is not an IPv4 network like {example}: {why}"
    assert isinstance(net, ipaddress.IPv4Network)
    return net


def special_range(net: ipaddress.IPv4Network) -> str | None:
    """What special range ``net`` lies in (or overlaps), or ``None``."""
    for special, what in SPECIAL_RANGES:
        if net.overlaps(special) and net.prefixlen >= special.prefixlen:
            return what
    return None


def private_network_problem(text: object, example: str) -> str | None:
    """Why ``text`` cannot be a VPC, node, Pod or GPU network (``None``: it can): it must lie inside a private
    range or the shared address space, never in a special-purpose one."""
    net = parse_network(text, example)
    if isinstance(net, str):
        return net
    if what := special_range(net):
        return f"'{text}' is {what}; give {USABLE}"
    if not any(net.subnet_of(r) for r in (*PRIVATE_RANGES, SHARED_ADDRESS_SPACE)):
        return f"'{text}' is not {USABLE}"
    return None


UNREACHABLE = ("0.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16", "224.0.0.0/4", "240.0.0.0/4")
"""Special ranges no client reaches an endpoint from (the documentation ranges stay usable in examples)."""


def client_range_problem(text: object) -> str | None:
    """Why ``text`` cannot be a range of clients allowed to reach an endpoint (``None``: it can): any IPv4 network,
    public ones and ``0.0.0.0/0`` included, but none no client comes from (loopback, link-local, multicast)."""
    net = parse_network(text, "192.168.1.0/24")
    if isinstance(net, str):
        return net
    what = special_range(net) if net.prefixlen else None
    unreachable = any(net.subnet_of(ipaddress.IPv4Network(r)) for r in UNREACHABLE)
    if what and unreachable:
        return f"'{text}' is {what}: no client reaches the endpoint from there"
    return None
