"""A mirror of the library's charts and images, for clusters that cannot reach the upstream registries.

One chart location and one image registry, applied to every Helm release and every image the library deploys:

- charts: ``oci://registry.acme/helm`` -> every chart is ``oci://registry.acme/helm/<chart name>`` (no
  repository); ``https://charts.acme/gpu`` -> every chart is ``<chart name>`` from that one Helm repository;
- images: ``registry.acme/mirror`` -> an image's registry host is replaced and the rest kept
  (``nvcr.io/nvidia/gpu-operator:v26.7.0`` -> ``registry.acme/mirror/nvidia/gpu-operator:v26.7.0``).

Image references are read as the container runtimes read them (distribution/reference ``normalize.go``): the
first path component is a registry host only if it has a ``.`` or a ``:`` or is ``localhost``; otherwise the
registry is Docker Hub, whose one-component names live under ``library/`` (``busybox`` ->
``docker.io/library/busybox``, mirrored as ``registry.acme/mirror/library/busybox``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DOCKER_HUB = "docker.io"
_DOCKER_HUB_ALIASES = ("docker.io", "index.docker.io", "registry-1.docker.io")
_DIGEST = re.compile(r"@[A-Za-z][A-Za-z0-9]*(?:[+._-][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$")
_TAG = re.compile(r":[\w][\w.-]{0,127}$")


def is_registry_host(component: str) -> bool:
    """A reference's first component names a registry (not a Docker Hub namespace)."""
    return "." in component or ":" in component or component == "localhost"


@dataclass(frozen=True)
class ImageReference:
    """An image reference split as the runtimes read it."""

    registry: str
    """``nvcr.io``; ``docker.io`` for Docker Hub names."""
    path: str
    """The repository inside the registry: ``nvidia/gpu-operator``, ``library/busybox``."""
    suffix: str = ""
    """``:tag``, ``@digest``, both, or nothing."""

    def __str__(self) -> str:
        return f"{self.registry}/{self.path}{self.suffix}"


def parse_reference(reference: str) -> ImageReference:
    """``nvcr.io/nvidia/driver:595.91.07`` -> (``nvcr.io``, ``nvidia/driver``, ``:595.91.07``)."""
    rest, suffix = reference, ""
    if digest := _DIGEST.search(rest):
        rest, suffix = rest[: digest.start()], digest.group(0)
    if tag := _TAG.search(rest):
        rest, suffix = rest[: tag.start()], tag.group(0) + suffix
    first, _, remainder = rest.partition("/")
    if remainder and is_registry_host(first):
        registry, path = first, remainder
    else:
        registry, path = DOCKER_HUB, rest
    if registry in _DOCKER_HUB_ALIASES:
        registry = DOCKER_HUB
        if "/" not in path:
            path = f"library/{path}"
    return ImageReference(registry, path, suffix)


@dataclass(frozen=True)
class Mirror:
    """Where the charts and images come from instead of upstream (each ``None``: upstream)."""

    charts: str | None = None
    """``oci://<host>[/<path>]`` (one OCI repository per chart under it) or ``http(s)://...`` (one Helm
    repository holding every chart), without a trailing ``/``."""
    images: str | None = None
    """``<host>[:<port>][/<path>]``: the registry (and path) every image's registry host is replaced by."""

    @property
    def oci_charts(self) -> bool:
        return self.charts is not None and self.charts.startswith("oci://")

    def chart(self, chart: str, repo: str | None) -> tuple[str, str | None]:
        """``(chart, repository)`` of a release of ``chart`` (a name with ``repo``, or a full ``oci://``
        reference): the mirror's, else unchanged."""
        if self.charts is None:
            return chart, repo
        name = chart.rstrip("/").rsplit("/", 1)[-1]
        if self.oci_charts:
            return f"{self.charts}/{name}", None
        return name, self.charts

    def owns(self, reference: str) -> bool:
        """``reference`` is already in the image mirror."""
        return self.images is not None and reference.startswith(f"{self.images}/")

    def image(self, reference: str) -> str:
        """The mirrored image reference (also for a repository without tag): the registry host replaced by
        ``images``, the repository path, tag and digest kept. A reference already in the mirror, an empty one,
        or any reference without an image mirror, is returned as it is."""
        if self.images is None or not reference or self.owns(reference):
            return reference
        parsed = parse_reference(reference)
        return f"{self.images}/{parsed.path}{parsed.suffix}"

    def __bool__(self) -> bool:
        return self.charts is not None or self.images is not None


NO_MIRROR = Mirror()
"""Upstream charts and images: what every plan uses unless a mirror is set."""
