"""A mirror applied to what the library deploys: chart values (``releases.CHART_IMAGES``) and objects.

``mirrored_values`` writes, for every image a chart's values name, its repository (and registry) key with the
mirrored repository, from the value the release already has (the user's or the library's) or the chart's
default, and mirrors the containers the values add to the chart's pods; tags and digests are never touched.
``mirrored_object`` rewrites the containers of a Kubernetes object the library creates itself, and the
``repository`` of NVIDIA's custom resources. ``chart_images`` and ``object_images`` list the images a release or an
object runs, for ``gpu-platform mirror`` and the policy. Without a mirror each rewrite returns its input itself,
so plans stay as they were.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from gpu_platform.chart_images import ImageSlot
from gpu_platform.chart_images import Path as ValuesPath
from gpu_platform.mirror import Mirror, parse_reference
from gpu_platform.plans.helm import deep_merge
from gpu_platform.releases import CHART_IMAGES

CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
"""Pod spec keys holding containers; chart values' ``extraContainers`` and the like (``*Containers``) too."""
PRELOADED = "Never"
"""``imagePullPolicy`` of an image the node already holds (GKE's COS driver installer): never pulled, so kept."""


def _get(values: Any, path: ValuesPath) -> Any:
    for part in path:
        if not isinstance(values, Mapping):
            return None
        values = values.get(part)
    return values


def _paths(values: Mapping[str, Any], at: ValuesPath) -> Iterator[ValuesPath]:
    """``at`` with each ``*`` replaced by every key present at that place in ``values``."""
    if "*" not in at:
        yield at
        return
    i = at.index("*")
    found = _get(values, at[:i])
    for key in found if isinstance(found, Mapping) else ():
        yield from _paths(values, (*at[:i], str(key), *at[i + 1 :]))


def _nested(path: ValuesPath, leaf: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = dict(leaf)
    for part in reversed(path):
        out = {part: out}
    return out


@dataclass(frozen=True)
class _Written:
    """How a slot's image is written at one place: the parts as the chart composes them."""

    slot: ImageSlot
    given: Mapping[str, Any]

    def _default(self) -> tuple[str, str, str, str]:
        """(registry, repository, name, tag) of the slot's source, split the way its keys hold them."""
        source, tag = self.slot.source, ""
        if "@" in source:
            source = source.split("@", 1)[0]
        head, _, last = source.rpartition("/")
        if ":" in last:
            last, tag = last.split(":", 1)
        source = f"{head}/{last}" if head else last
        if self.slot.name is not None:
            prefix, _, name = source.rpartition("/")
            return "", prefix, name, tag
        if self.slot.registry is not None:
            registry, _, path = source.partition("/")
            return registry, path, "", tag
        return "", source, "", tag

    def _value(self, key: str | None, default: str) -> str:
        value = self.given.get(key) if key is not None else None
        return value if isinstance(value, str) and value else default

    def repository(self) -> str:
        """The repository the chart will pull from (registry included), before any mirror."""
        if self.slot.whole:
            return self._value(self.slot.repository, self.slot.source)
        registry, repository, _, _ = self._default()
        repository = self._value(self.slot.repository, repository)
        if self.slot.registry is not None:
            return f"{self._value(self.slot.registry, registry)}/{repository}"
        return repository

    def reference(self) -> str:
        """The whole image reference the chart runs (name, tag and digest included)."""
        if self.slot.whole:
            return self.repository()
        _, _, name, tag = self._default()
        out = self.repository()
        if self.slot.name is not None:
            out += f"/{self._value(self.slot.name, name)}"
        out += f":{self._value(self.slot.tag, tag)}" if self._value(self.slot.tag, tag) else ""
        source_digest = self.slot.source.partition("@")[2]
        digest = self._value(self.slot.digest, source_digest) if self.slot.digest else source_digest
        return f"{out}@{digest}" if digest else out

    def mirrored(self, mirror: Mirror) -> dict[str, Any]:
        """The keys to write so the chart pulls from the mirror."""
        assert self.slot.repository is not None and mirror.images is not None
        current = self.repository()
        if self.slot.registry is None:
            return {self.slot.repository: mirror.image(current)}
        if mirror.owns(current):
            return {}
        return {self.slot.registry: mirror.images, self.slot.repository: parse_reference(current).path}


def slot_reference(slot: ImageSlot, given: Mapping[str, Any]) -> str:
    """The image ``slot`` names when its values mapping is ``given`` (the chart's default where it is unset)."""
    return _Written(slot, given).reference()


def _slots(chart: str, values: Mapping[str, Any]) -> Iterator[tuple[ValuesPath, _Written]]:
    for slot in CHART_IMAGES.get(chart, ()):
        for path in _paths(values, slot.at):
            given = _get(values, path)
            yield path, _Written(slot, given if isinstance(given, Mapping) else {})


def mirrored_values(chart: str, values: Mapping[str, Any], mirror: Mirror | None) -> Mapping[str, Any]:
    """``values`` with every image of ``chart`` pulled from the image mirror; ``values`` itself without one."""
    if mirror is None or mirror.images is None or not isinstance(values, Mapping):
        return values  # without an image mirror (or values known only at deployment), as they are
    overlay: dict[str, Any] = {}
    for path, written in _slots(chart, values):
        overlay = deep_merge(overlay, _nested(path, written.mirrored(mirror)))
    # Containers the values add to a chart's pods (node-problem-detector's ``extraContainers``) too.
    out: Mapping[str, Any] = mirrored_object(deep_merge(values, overlay), mirror)
    return out


def _runs(slot: ImageSlot, values: Mapping[str, Any]) -> bool:
    for path, default in slot.when:
        value = _get(values, path)
        if not (default if value is None else value is True or str(value).lower() == "true"):
            return False
    return True


@dataclass(frozen=True)
class ChartImage:
    """An image a release runs: where it comes from, and what else the mirror must hold for it."""

    reference: str
    note: str = ""


def chart_images(chart: str, values: Mapping[str, Any]) -> list[ChartImage]:
    """The images a release of ``chart`` with ``values`` runs (the components its values switch on), as the
    values name them (after a mirror, if one was applied)."""
    return [
        ChartImage(written.reference(), written.slot.note)
        for _, written in _slots(chart, values)
        if _runs(written.slot, values)
    ]


def _mirror_container(container: Any, mirror: Mirror) -> Any:
    if not isinstance(container, Mapping) or not isinstance(container.get("image"), str):
        return container
    if container.get("imagePullPolicy") == PRELOADED:
        return dict(container)
    return {**container, "image": mirror.image(container["image"])}


def mirrored_object(obj: Any, mirror: Mirror | None) -> Any:
    """A Kubernetes object (or any part of one) with every container image and every NVIDIA custom resource
    ``repository`` (``{repository, image, version}``) pulled from the image mirror. Images the node holds already
    (``imagePullPolicy: Never``) are kept. ``obj`` itself without a mirror."""
    if mirror is None or mirror.images is None:
        return obj
    if isinstance(obj, list):
        return [mirrored_object(v, mirror) for v in obj]
    if not isinstance(obj, Mapping):
        return obj
    out: dict[str, Any] = {}
    for key, value in obj.items():
        if _is_container_list(key, value):
            out[key] = [mirrored_object(_mirror_container(c, mirror), mirror) for c in value]
        else:
            out[key] = mirrored_object(value, mirror)
    if isinstance(out.get("repository"), str) and isinstance(out.get("image"), str):
        out["repository"] = mirror.image(out["repository"])
    return out


DRIVER_SUFFIXES = {
    "ofedDriver": "tag suffixed -<os><version>-<arch> by the Network Operator (-ubuntu22.04-amd64, -rhel9.6-arm64)",
    "driver": "tag suffixed with the node's OS (-ubuntu22.04, -ubuntu24.04, -rhel9.6, ...) by the operator",
}
"""NVIDIA custom resource sections whose operator adds the node's OS to the tag: the mirror needs those tags."""


def _is_container_list(key: Any, value: Any) -> bool:
    return (key in CONTAINER_LISTS or str(key).endswith("Containers")) and isinstance(value, (list, tuple))


def object_images(obj: Any, parent: str = "") -> Iterator[ChartImage]:
    """Every image ``obj`` (a Kubernetes object, any part of one, or chart values) makes a node pull: each
    container's (images the node holds already, ``imagePullPolicy: Never``, are left out) and each NVIDIA custom
    resource section's ``repository/image:version``."""
    if isinstance(obj, (list, tuple)):
        for value in obj:
            yield from object_images(value, parent)
        return
    if not isinstance(obj, Mapping):
        return
    for key, value in obj.items():
        if _is_container_list(key, value):
            for container in value:
                image = container.get("image") if isinstance(container, Mapping) else None
                if isinstance(image, str) and container.get("imagePullPolicy") != PRELOADED:
                    yield ChartImage(image)
        yield from object_images(value, str(key))
    repository, image, version = obj.get("repository"), obj.get("image"), obj.get("version")
    if isinstance(repository, str) and repository and isinstance(image, str):
        tag = f":{version}" if isinstance(version, str) and version else ""
        yield ChartImage(f"{repository}/{image}{tag}", DRIVER_SUFFIXES.get(parent, ""))
