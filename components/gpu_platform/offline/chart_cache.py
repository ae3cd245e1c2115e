"""Charts for ``plan --render`` outside a checkout: each release's chart at its pinned version, fetched once into a
user cache as ``<chart>-<version>/`` (the layout ``render.chart_dir`` reads).

A checkout renders with the charts vendored in ``tests/upstream/charts``; an installed wheel ships none. The
fetch uses the release's own source as the plan records it (``chart`` and ``version``, ``repositoryOpts.repo``
for an HTTP repository, an ``oci://`` reference otherwise), so a chart mirror set for the stack is where the
chart comes from too. Helm's own pull does the work (``helm_python.pull``, the ``[render]`` extra).
"""

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpu_platform.offline.output import HELM_RELEASE
from gpu_platform.offline.render import RenderError, chart_dir
from gpu_platform.offline.runner import Plan

CACHE_ENV = "GPU_PLATFORM_CHART_CACHE"
"""Overrides where fetched charts are kept."""

Pull = Callable[..., Any]
"""``helm_python.pull``: ``pull(ref, version=, repo_url=, destination=, untar=True, untar_dir=)``."""


def default_cache() -> Path:
    """``$GPU_PLATFORM_CHART_CACHE``, else ``$XDG_CACHE_HOME/gpu-platform/charts`` (``~/.cache`` by default)."""
    if given := os.environ.get(CACHE_ENV):
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpu-platform" / "charts"


def _source(inputs: dict[str, Any]) -> tuple[str, str, str | None]:
    """``(reference, version, repository URL)`` of a release's chart, as ``helm pull`` takes them."""
    repo = (inputs.get("repositoryOpts") or {}).get("repo")
    return str(inputs.get("chart", "")), str(inputs.get("version", "")), str(repo) if repo else None


def _how(ref: str, version: str, repo: str | None, target: Path) -> str:
    """The ``helm pull`` command that puts the chart where the render looks."""
    where = f" --repo {repo}" if repo else ""
    return f"helm pull {ref}{where} --version {version} --untar --untardir {target.parent} (then name it {target.name})"


def fetch_charts(plan: Plan, cache: Path, pull: Pull | None = None) -> list[str]:
    """Fetch into ``cache`` the chart of every release of ``plan`` not there yet; one line per chart fetched."""
    if pull is None:
        try:
            from helm_python import pull as helm_pull
        except ImportError:
            raise RenderError(
                "--render needs the [render] extra: pip install 'gpu-platform[render]' (helm-python-sdk)"
            ) from None
        pull = helm_pull
    lines: list[str] = []
    for release in sorted(plan.by_type(HELM_RELEASE), key=lambda r: r.urn):
        target = chart_dir(cache, release.inputs)
        if not target.is_dir():
            lines.append(_fetch(pull, release.inputs, target))
    return lines


def _fetch(pull: Pull, inputs: dict[str, Any], target: Path) -> str:
    ref, version, repo = _source(inputs)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gpu-platform-pull-", dir=target.parent) as scratch:
        try:
            pull(ref, version=version, repo_url=repo, destination=scratch, untar=True, untar_dir=scratch)
        except Exception as exc:  # helm_python.HelmError and its kinds: unreachable, unknown version, auth
            reason = " ".join(str(exc).split())
            raise RenderError(
                f"chart {target.name}: could not fetch {ref} {version}{f' from {repo}' if repo else ''} "
                f"({reason}); fetch it with `{_how(ref, version, repo, target)}`, or pass --charts DIR"
            ) from None
        unpacked = [d for d in Path(scratch).iterdir() if d.is_dir()]
        if len(unpacked) != 1:
            raise RenderError(f"chart {target.name}: helm pull of {ref} {version} unpacked no single chart")
        shutil.move(str(unpacked[0]), target)
    return f"fetched {ref} {version} -> {target}"
