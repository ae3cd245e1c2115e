"""The chart image table (``gpu_platform.chart_images``) against the vendored charts at their pins: every release's
chart has an entry, and each slot's image is what the chart's own ``values.yaml`` names (a test renders every
release with a mirror in ``tests/stack/test_mirror.py``, which is what shows no image is missing)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_platform.chart_images import CHART_IMAGES, ImageSlot
from gpu_platform.mirror import Mirror
from gpu_platform.offline.render import chart_dir
from gpu_platform.plans.mirror import slot_reference
from gpu_platform.releases import ADDONS, chart_name
from tests.conftest import UPSTREAM

CHARTS = UPSTREAM / "charts"


def test_every_release_chart_has_its_images_and_each_name_is_one_chart() -> None:
    names = [a.chart_name for a in ADDONS]
    assert sorted(CHART_IMAGES) == sorted(names)
    # A mirror holds every chart by its name alone (oci://<mirror>/<chart>, or one Helm repository).
    assert len(set(names)) == len(names)


def _chart(chart: str) -> Path:
    (pin,) = [a.pin for a in ADDONS if a.chart_name == chart]
    return chart_dir(CHARTS, {"chart": pin.chart, "version": pin.version})


@functools.cache
def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


def _subchart(directory: Path, name: str) -> Path | None:
    """A dependency of the chart: under its charts/, else vendored beside it (``<name>-<version>``)."""
    if (directory / "charts" / name).is_dir():
        return directory / "charts" / name
    meta = _yaml(directory / "Chart.yaml")
    for dep in meta.get("dependencies") or []:
        if dep["name"] == name and (CHARTS / f"{name}-{dep['version']}").is_dir():
            return CHARTS / f"{name}-{dep['version']}"
    return None


def _at(values: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        values = values.get(part) if isinstance(values, dict) else None
    return values


def _defaults(directory: Path, path: tuple[str, ...]) -> Any:
    """The chart's default values at ``path``, a subchart's under what the parent sets for it."""
    values: Any = _yaml(directory / "values.yaml")
    if path and (sub := _subchart(directory, path[0])) is not None:
        return {**(_defaults(sub, path[1:]) or {}), **(_at(values, path) or {})}
    return _at(values, path)


CASES = [
    (chart, i, slot)
    for chart, slots in sorted(CHART_IMAGES.items())
    for i, slot in enumerate(slots)
    if "*" not in slot.at  # Slurm's NodeSets and LoginSets: their defaults are the *Defaults slots
]


@pytest.mark.parametrize(("chart", "i", "slot"), CASES, ids=[f"{c}[{i}]" for c, i, _ in CASES])
def test_each_image_is_the_one_the_chart_names_at_its_pin(chart: str, i: int, slot: ImageSlot) -> None:
    directory = _chart(chart)
    given = _defaults(directory, slot.at)
    assert isinstance(given, dict), f"{chart}: no values at {'.'.join(slot.at)}"
    # What the chart's values.yaml sets (repository, registry, name, tag, digest) must be the slot's image; the tag
    # a template derives (an appVersion) is checked where the chart renders (tests/stack/test_mirror.py).
    assert slot_reference(slot, given) == slot.source


def test_kserve_tags_default_to_the_charts_kserve_version() -> None:
    for chart in ("kserve-resources", "kserve-runtime-configs"):
        version = _defaults(_chart(chart), ("kserve",))["version"]
        for slot in CHART_IMAGES[chart]:
            given = _defaults(_chart(chart), slot.at)
            if slot.tag and not given.get(slot.tag):
                assert slot.source.endswith(f":{version}"), slot


def test_the_pinned_images_map_to_distinct_places_in_a_mirror() -> None:
    """Dropping the registry host must never make two different upstream images one mirrored image."""
    mirror = Mirror(images="registry.acme/mirror")
    sources = {slot.source for slots in CHART_IMAGES.values() for slot in slots}
    by_target: dict[str, set[str]] = {}
    for source in sources:
        by_target.setdefault(mirror.image(source), set()).add(source)
    assert {t: s for t, s in by_target.items() if len(s) > 1} == {}


def test_chart_names_are_the_last_path_segment() -> None:
    assert chart_name("oci://registry.acme/helm/kueue") == "kueue"
