"""``gpu-platform mirror``: every chart and image a stack installs, and where each goes in the mirror.

The stack is planned offline without its ``mirror`` setting, so each chart and image is read as it is upstream,
at the version and tag the plan pins (chart values, the library's own objects); its mirror location is the
same mapping the plan applies (``gpu_platform.mirror``), so the list and the plan cannot disagree.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpu_platform.addons.serving.preset_images import SCHEDULER_CONTAINERS, SERVER_CONTAINERS
from gpu_platform.errors import NAMESPACE, Problems
from gpu_platform.mirror import Mirror, parse_reference
from gpu_platform.offline.output import HELM_RELEASE
from gpu_platform.offline.runner import Plan, load_project, run_plan, stack_config
from gpu_platform.plans.mirror import ChartImage, chart_images, object_images
from gpu_platform.releases import chart_name
from gpu_platform.resolve.mirror import resolve_mirror

MIRROR_KEY = f"{NAMESPACE}:mirror"
LLM_INFERENCE_SERVICE = "LLMInferenceService"
PRESET_IMAGES = (*SERVER_CONTAINERS.values(), *SCHEDULER_CONTAINERS.values())
"""What an ``LLMInferenceService`` runs from KServe's presets: planned without a mirror, the service names none of
them (``addons.serving.preset_images``), yet each must be in the image mirror."""


@dataclass(frozen=True)
class ChartCopy:
    """A chart at its pinned version, upstream and in the mirror."""

    chart: str
    """``oci://...`` reference, or a name in ``repository``."""
    repository: str | None
    version: str
    target: tuple[str, str | None] | None
    """``(chart, repository)`` in the mirror; ``None`` without a chart mirror."""


@dataclass(frozen=True)
class ImageCopy:
    source: str
    target: str | None
    """``None`` without an image mirror."""
    note: str = ""


@dataclass(frozen=True)
class MirrorListing:
    mirror: Mirror
    charts: tuple[ChartCopy, ...]
    images: tuple[ImageCopy, ...]


def stack_mirror(project: str | Path, stack: str, config_file: str | Path | None, env: bool) -> Mirror:
    """The stack file's ``mirror`` (checked: a ``ConfigError`` names its key), or none."""
    config, _ = stack_config(load_project(project), stack, config_file, env)
    raw = json.loads(config[MIRROR_KEY]) if MIRROR_KEY in config else None
    p = Problems()
    mirror = resolve_mirror(raw if isinstance(raw, Mapping) else None, p.at("mirror"))
    p.raise_for_config()
    return mirror or Mirror()


def _releases(plan: Plan) -> list[Any]:
    return sorted(plan.by_type(HELM_RELEASE), key=lambda r: str(r.inputs.get("name") or r.name))


def chart_copies(plan: Plan, mirror: Mirror) -> list[ChartCopy]:
    out: dict[tuple[str, str | None, str], ChartCopy] = {}
    for release in _releases(plan):
        chart, version = str(release.inputs.get("chart")), str(release.inputs.get("version"))
        repo = (release.inputs.get("repositoryOpts") or {}).get("repo")
        target = mirror.chart(chart, repo) if mirror.charts else None
        out.setdefault((chart, repo, version), ChartCopy(chart, repo, version, target))
    return list(out.values())


def _images(plan: Plan) -> list[ChartImage]:
    found: list[ChartImage] = []
    for release in _releases(plan):
        values = release.inputs.get("values")
        if isinstance(values, Mapping):
            found += chart_images(chart_name(str(release.inputs.get("chart"))), values)
            found += object_images(values)
    for r in plan.resources:
        if r.type.startswith("kubernetes:") and r.type != HELM_RELEASE:
            found += object_images(r.inputs)
            if r.inputs.get("kind") == LLM_INFERENCE_SERVICE:
                found += [ChartImage(image) for image in PRESET_IMAGES]
    return found


def image_copies(plan: Plan, mirror: Mirror) -> list[ImageCopy]:
    out: dict[str, ImageCopy] = {}
    for image in sorted(_images(plan), key=lambda i: (i.reference, i.note == "")):
        target = mirror.image(image.reference) if mirror.images else None
        out.setdefault(image.reference, ImageCopy(image.reference, target, image.note))
    return list(out.values())


def mirror_listing(
    project: str | Path,
    stack: str,
    config_file: str | Path | None = None,
    use_env_config: bool = False,
    mirror: Mirror | None = None,
) -> MirrorListing:
    """What the stack installs and where each piece goes in ``mirror`` (default: the stack file's)."""
    if mirror is None:
        mirror = stack_mirror(project, stack, config_file, use_env_config)
    plan = run_plan(
        project, stack, config_file=config_file, use_env_config=use_env_config, without=(MIRROR_KEY,)
    )
    return MirrorListing(mirror, tuple(chart_copies(plan, mirror)), tuple(image_copies(plan, mirror)))


def _chart_source(c: ChartCopy) -> str:
    return f"{c.chart} {c.version}" if c.repository is None else f"{c.chart} {c.version} from {c.repository}"


def _chart_target(c: ChartCopy) -> str:
    assert c.target is not None
    chart, repo = c.target
    return f"{chart} {c.version}" if repo is None else f"{chart} {c.version} from {repo}"


def render_text(listing: MirrorListing) -> str:
    """One line per chart and per image: upstream, then ``->`` its place in the mirror when one is set."""
    lines = [f"charts ({len(listing.charts)}), mirror: {listing.mirror.charts or 'none set (upstream)'}"]
    for c in listing.charts:
        lines.append(f"  {_chart_source(c)}" + (f"  ->  {_chart_target(c)}" if c.target else ""))
    lines.append(f"images ({len(listing.images)}), mirror: {listing.mirror.images or 'none set (upstream)'}")
    for i in listing.images:
        note = f"  ({i.note})" if i.note else ""
        lines.append(f"  {i.source}" + (f"  ->  {i.target}" if i.target else "") + note)
    return "\n".join(lines)


def render_json(listing: MirrorListing) -> str:
    doc = {
        "mirror": {"charts": listing.mirror.charts, "images": listing.mirror.images},
        "charts": [
            {
                "chart": c.chart,
                "repository": c.repository,
                "version": c.version,
                "mirror": {"chart": c.target[0], "repository": c.target[1]} if c.target else None,
            }
            for c in listing.charts
        ],
        "images": [{"source": i.source, "mirror": i.target, "note": i.note} for i in listing.images],
    }
    return json.dumps(doc, indent=2)


def _pull(c: ChartCopy) -> str:
    repo = f" --repo {c.repository}" if c.repository else ""
    return f"helm pull {c.chart}{repo} --version {c.version}"


def _copy_target(image: ImageCopy) -> str:
    """Where ``crane copy`` writes: the tag when there is one (a copy keeps the digest, so pulls by digest find it;
    a tag-and-digest destination would lose the tag), else the digest."""
    source = parse_reference(image.source)
    target = image.target or f"<mirror>/{source.path}{source.suffix}"
    ref = parse_reference(target)
    tag, _, digest = ref.suffix.partition("@")
    return target.removesuffix(ref.suffix) + ((tag or f"@{digest}") if digest else ref.suffix)


def render_script(listing: MirrorListing) -> str:
    """Shell lines that fill the mirror: ``helm pull`` + ``helm push`` (OCI) per chart, ``crane copy`` per
    image; what needs a choice (an HTTP repository's upload, tags derived per node OS) is a comment."""
    mirror = listing.mirror
    lines = ["#!/bin/sh", "set -eu", "# charts"]
    for c in listing.charts:
        lines.append(_pull(c))
        archive = f"{chart_name(c.chart)}-{c.version}.tgz"
        if mirror.oci_charts:
            lines.append(f"helm push {archive} {mirror.charts}")
        else:
            where = mirror.charts or "your chart repository"
            lines.append(f"# upload {archive} to {where}, then re-index it (helm repo index)")
    lines.append("# images")
    for i in listing.images:
        copy = f"crane copy {i.source} {_copy_target(i)}"
        lines += [f"# {i.source}: {i.note}; copy the tags your nodes need", f"# {copy}"] if i.note else [copy]
    return "\n".join(lines)


RENDERERS = {"text": render_text, "json": render_json, "script": render_script}
