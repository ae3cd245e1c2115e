"""The ``mirror`` setting checked once, for the stack file and every component that takes it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gpu_platform.errors import Problems
from gpu_platform.mirror import Mirror, is_registry_host

_HOST = r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]+)?"
_PATH = r"(/[a-z0-9]+([._-][a-z0-9]+)*)*"
_IMAGES = re.compile(rf"^{_HOST}{_PATH}$")
"""distribution/reference's domain and path components, lowercase, without tag or digest."""
_CHARTS = re.compile(r"^(oci|https?)://[^\s/]+(/[^\s]*)?$")


def _charts(value: str, p: Problems) -> str | None:
    value = value.rstrip("/")
    if not _CHARTS.match(value):
        p.add(
            ("charts",),
            f"'{value}' is not a chart mirror; valid: an OCI registry path (oci://registry.acme/helm, each chart "
            "at <charts>/<chart>) or an HTTP(S) Helm repository holding every chart (https://charts.acme/gpu)",
        )
        return None
    return value


def _images(value: str, p: Problems) -> str | None:
    value = value.rstrip("/")
    if "://" in value:
        p.add(("images",), f"'{value}' is a URL; give the registry without a scheme: registry.acme/mirror")
        return None
    if not _IMAGES.match(value) or not is_registry_host(value.split("/", 1)[0]):
        p.add(
            ("images",),
            f"'{value}' is not an image registry; valid: a registry host (with a '.' or a port, or localhost) "
            "and an optional lowercase path, without tag or digest: registry.acme/mirror",
        )
        return None
    return value


def resolve_mirror(raw: Mapping[str, Any] | None, p: Problems) -> Mirror | None:
    """``mirror`` checked (``p`` is at its key); ``None`` when it is unset or empty."""
    if not raw:
        return None
    charts = _charts(str(raw["charts"]), p) if raw.get("charts") is not None else None
    images = _images(str(raw["images"]), p) if raw.get("images") is not None else None
    mirror = Mirror(charts, images)
    return mirror or None
