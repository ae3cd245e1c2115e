"""Docker's published ports, ``[IP:][HOST:]CONTAINER[/PROTOCOL]``, read as Docker reads them
(docker/go-connections ``nat.ParsePortSpec``): the last two colon-separated fields are the host and container port
(or ranges ``start-end``), anything before them the host IP (IPv6 in brackets); the protocol is ``tcp``, ``udp`` or
``sctp``. A host range must be as long as the container range, unless the container side is one port (Docker then
picks a free host port of the range). Ports run from 1 to 65535.
"""

from __future__ import annotations

import ipaddress

PROTOCOLS = ("tcp", "udp", "sctp")


def _range(text: str, side: str) -> tuple[int, int] | str:
    start, sep, end = text.partition("-")
    if not (start.isascii() and start.isdigit()) or (sep and not (end.isascii() and end.isdigit())):
        return f"'{text}' is not a port or a range of ports (start-end) on the {side} side"
    low, high = int(start), int(end) if sep else int(start)
    if not (1 <= low <= 65535 and 1 <= high <= 65535):
        return f"the {side} port {text} is out of range: ports run from 1 to 65535"
    if high < low:
        return f"the {side} range {text} ends before it starts"
    return low, high


def _host_ip(text: str) -> str | None:
    ip = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    try:
        ipaddress.ip_address(ip)
    except ValueError:
        return f"'{text}' is not an IP address to publish on"
    return None


def port_problem(spec: object) -> str | None:
    """Why ``spec`` is not a port Docker publishes (``None``: it is one)."""
    if not isinstance(spec, str) or not spec.strip():
        return f"{spec!r} is not a port: give [IP:][HOST:]CONTAINER[/PROTOCOL], such as '8000:8000'"
    body, _, protocol = spec.partition("/")
    if protocol and protocol.lower() not in PROTOCOLS:
        return f"'{protocol}' is not a protocol Docker publishes: tcp, udp or sctp"
    parts = body.split(":")
    ip = ":".join(parts[:-2]) if len(parts) > 2 else ""
    host = parts[-2] if len(parts) > 1 else ""
    if ip and (reason := _host_ip(ip)):
        return reason
    container = _range(parts[-1], "container")
    if isinstance(container, str):
        return container
    if not host:
        return None
    published = _range(host, "host")
    if isinstance(published, str):
        return published
    if container[0] != container[1] and published[1] - published[0] != container[1] - container[0]:
        return f"'{spec}': a host range and a container range must be the same length"
    return None
