"""Where a plan's charts and images come from, for the mirror tests: every image reference in chart values,
Kubernetes objects and objects rendered from the real charts, found by what Kubernetes and the charts read as
one (not by the library's own table, which the tests check)."""

from __future__ import annotations

import functools
import json
import re
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gpu_platform.mirror import Mirror
from gpu_platform.offline.render import _SEPARATOR, chart_dir, with_dependencies
from tests.support.helm import published_charts, render_texts

MIRROR = Mirror("oci://registry.acme/helm", "registry.acme/mirror")
RELEASE = "kubernetes:helm.sh/v3:Release"
_NOT_IMAGES = (
    "pullpolicy",
    "pullsecrets",
    "pullsecret",
    "pull_policy",
    "pull_secret",
    "version",
    "tag",
    "digest",
)
"""Keys naming an image's pull settings or tag, never where it comes from (``image_pull_policy``,
``defaultImageVersion``)."""
_FLAG_IMAGE = re.compile(r"=([a-z0-9.-]+\.[a-z]{2,}(?::\d+)?/[\w./-]+(?::[\w.-]+|@sha256:[0-9a-f]{64}))")
"""An image given on a command line (``--prometheus-config-reloader=quay.io/...:v0.93.1``)."""
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Reference:
    where: str
    value: str
    kind: str
    """``image`` (a reference, maybe without registry), ``repository`` (``<registry>/<path>``, no tag) or
    ``registry`` (a registry, with an optional path)."""


def _registry_key(key: str) -> bool:
    return key.lower().endswith("registry") and "pull" not in key.lower()


def _image_key(key: str) -> bool:
    low = key.lower()
    return "image" in low and not low.endswith(_NOT_IMAGES) and not low.endswith("registry")


def _strings(value: str, where: str) -> Iterator[Reference]:
    for m in _FLAG_IMAGE.finditer(value):
        yield Reference(where, m.group(1), "image")
    if value.lstrip().startswith(("{", "[")) and len(value) > 2:
        try:
            parsed = json.loads(value)
        except ValueError:
            return
        yield from references(parsed, f"{where}<json>")


def _mapping(obj: Mapping[str, Any], where: str) -> Iterator[Reference]:
    if obj.get("enabled") is False or obj.get("imagePullPolicy") == "Never":
        return  # a component switched off, or an image the node holds already: nothing is pulled
    registries = [k for k in obj if _registry_key(str(k)) and isinstance(obj[k], str)]
    for key in registries:
        yield Reference(f"{where}.{key}", obj[key], "registry")
    if isinstance(obj.get("repository"), str) and not registries:
        yield Reference(f"{where}.repository", obj["repository"], "repository")
    names_only = bool(registries) or isinstance(obj.get("repository"), str)
    for key, value in obj.items():
        here = f"{where}.{key}"
        if isinstance(value, str):
            if _image_key(str(key)) and not names_only:
                yield Reference(here, value, "image")
            else:
                yield from _strings(value, here)
        else:
            yield from references(value, here)


def references(obj: Any, where: str = "") -> Iterator[Reference]:
    """Every image reference, repository and registry in ``obj``."""
    if isinstance(obj, Mapping):
        yield from _mapping(obj, where)
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            if isinstance(value, str):
                yield from _strings(value, f"{where}[{i}]")
            else:
                yield from references(value, f"{where}[{i}]")


def outside(ref: Reference, mirror: Mirror = MIRROR) -> bool:
    """``ref`` names a place outside the image mirror (empty values name nothing)."""
    assert mirror.images is not None
    return bool(ref.value) and ref.value != mirror.images and not mirror.owns(ref.value)


@functools.cache
def _rendered(key: str) -> tuple[dict[str, Any], ...]:
    inputs = json.loads(key)
    directory = chart_dir(published_charts(), inputs)
    with tempfile.TemporaryDirectory(prefix="mirror-render-") as scratch:
        built = with_dependencies(directory, published_charts(), Path(scratch))
        texts = render_texts(built, inputs.get("values") or {}, inputs["name"], inputs["namespace"])
    out = []
    for path in sorted(texts):
        for part in _SEPARATOR.split(texts[path]):
            if "kind: CustomResourceDefinition" in part or path.endswith("NOTES.txt"):
                continue  # CRDs hold schemas, never images; skipping them keeps the render fast
            doc = yaml.load(part, Loader=_LOADER)
            if isinstance(doc, dict) and doc.get("kind"):
                out.append(doc)
    return tuple(out)


def rendered_objects(release: Any) -> tuple[dict[str, Any], ...]:
    """The objects the release's chart (vendored at its pin) renders with its planned values; each distinct
    release is rendered once per test session."""
    inputs = {k: release.inputs.get(k) for k in ("chart", "version", "values", "name", "namespace")}
    return _rendered(json.dumps(inputs, sort_keys=True, default=str))
