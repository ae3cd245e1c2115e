"""How a chart's values name its images: the slot type and the builders each release entry's ``images`` uses.

The slots themselves are on the release entries (``releases.Addon.images``, read from each chart's ``values.yaml``
and ``Chart.yaml`` ``appVersion`` at the version pinned in ``versions``), and ``releases.CHART_IMAGES`` is derived
from them. ``tests/test_chart_images.py`` checks every slot against the vendored chart, and
``tests/stack/test_mirror.py`` renders every release with a mirror set, so an image left out fails. The mirror
(``plans.mirror``) rewrites the repository (and registry) keys a slot names; the ``gpu-platform mirror`` listing
reads the images from the same slots.
"""

from __future__ import annotations

from dataclasses import dataclass

Path = tuple[str, ...]
Condition = tuple[Path, bool]
"""A values path that must be true for the chart to run an image, and the chart's default for it."""


@dataclass(frozen=True)
class ImageSlot:
    """One image a chart's values name."""

    at: Path
    """The values mapping that names the image; ``*`` stands for every key of a map (Slurm's NodeSets)."""
    source: str
    """The image when the values leave it to the chart, written as the chart composes it
    (``<registry>/<path>:<tag>``; the registry first when ``registry`` is set)."""
    repository: str = "repository"
    """Key of the repository, or with ``name`` the prefix the name is appended to (``nvcr.io/nvidia``); with
    ``registry``, the path inside the registry; with ``whole``, the whole reference, tag included."""
    tag: str | None = "tag"
    registry: str | None = None
    """Key of a registry the chart puts before the repository (``quay.io``)."""
    name: str | None = None
    """Key of an image name the chart appends to the repository (the GPU Operator's ``image``)."""
    digest: str | None = None
    whole: bool = False
    when: tuple[Condition, ...] = ()
    """Values that must all be true for the chart to run the image (the listing leaves it out otherwise)."""
    note: str = ""
    """What a mirror must hold besides the tag shown (tags the operator derives per node)."""


def nvidia(at: Path, source: str, *when: Condition, note: str = "") -> ImageSlot:
    """NVIDIA's operator charts: ``repository`` (registry and path) + ``image`` (name) + ``version`` (tag)."""
    return ImageSlot(at, source, name="image", tag="version", when=when, note=note)


def split(at: Path, source: str, *when: Condition, note: str = "") -> ImageSlot:
    """``registry`` + ``repository`` (path) + ``tag`` (kube-prometheus-stack and its subcharts, Trainer)."""
    return ImageSlot(at, source, registry="registry", when=when, note=note)


def repo(at: Path, source: str, *when: Condition, key: str = "repository", digest: bool = False) -> ImageSlot:
    """``repository`` (registry and path) + ``tag``."""
    return ImageSlot(at, source, repository=key, digest="digest" if digest else None, when=when)


def on(*path: str, default: bool = True) -> Condition:
    """The chart runs the image only when the values at ``path`` are true (``default``: the chart's own value)."""
    return (tuple(path), default)
