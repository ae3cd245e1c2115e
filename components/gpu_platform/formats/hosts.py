"""Host names and addresses where a URL does not belong (a database host): a DNS name (RFC 1123 labels: letters,
digits and hyphens, at most 63 each and 253 in all) or an IP address; a URL, credentials or a port inside the
value are refused saying where each belongs instead."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

_LABEL = re.compile(r"^[A-Za-z0-9](?:[-A-Za-z0-9]{0,61}[A-Za-z0-9])?$")


def host_problem(text: str, port_key: str, secret_key: str) -> str | None:
    """Why ``text`` is not a bare host (``None``: it is one). ``port_key`` and ``secret_key`` name the settings
    a port and a password belong in."""
    host = text.strip()
    if "://" in host:
        parts = urlsplit(host)
        if parts.username is not None or parts.password is not None:
            return (
                f"is a URL with credentials ({parts.scheme}://<user>:<password>@...): give the host alone "
                f"({parts.hostname or 'db.example.internal'}) and keep the password in a Kubernetes Secret "
                f"({secret_key}); a password here would sit in the stack file and the state in clear"
            )
        return f"is a URL; give the host name or address alone ({parts.hostname or 'db.example.internal'})"
    if "@" in host:
        return f"holds credentials ('user@host'): give the host alone, the password in {secret_key}"
    try:
        ipaddress.ip_address(host.strip("[]"))
        return None
    except ValueError:
        pass
    _, colon, port = host.rpartition(":")
    if colon and port.isdigit():
        return f"holds a port (':{port}'): give the host alone and the port as {port_key}"
    if not host or len(host) > 253 or not all(_LABEL.match(label) for label in host.rstrip(".").split(".")):
        return f"{text!r} is not a host name or address"
    return None
