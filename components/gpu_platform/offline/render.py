"""``gpu-platform plan --render``: every Helm release of a plan rendered offline, object by object.

Each ``kubernetes:helm.sh/v3:Release`` is rendered with its pinned chart from a local directory of
unpacked charts named ``<chart>-<version>`` (the basename of the release's ``chart`` input, e.g.
``oci://ghcr.io/kserve/charts/kserve-crd`` + ``v0.20.0`` -> ``kserve-crd-v0.20.0``) with the values,
release name and namespace in the plan, through Helm's own engine in-process (PyPI
``helm-python-sdk``, the optional ``[render]`` extra). No cluster and no network: ``lookup``
returns nothing. Objects are written to ``<out>/rendered/<release>/<Kind>-<namespace>-<name>.yaml``;
CRDs a chart ships in ``crds/`` are written too unless the release sets ``skipCrds``.
"""

import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import yaml

from gpu_platform.offline.output import HELM_RELEASE, mask
from gpu_platform.offline.runner import Plan

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
"""libyaml when PyYAML has it: charts whose CRDs are templates (Kubeflow Trainer, Volcano) render megabytes."""


class _ChartLoader(_LOADER):  # type: ignore[misc,valid-type]
    """A bare ``=`` is YAML 1.1's ``value`` tag, which PyYAML's safe loaders refuse; Kubernetes reads it as
    the string ``=`` (the Prometheus Operator CRDs list the label matcher operators ``=``, ``!=``, ``=~``)."""


_ChartLoader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))


class RenderError(RuntimeError):
    """A release cannot be rendered: no chart directory, the extra is missing, or Helm refused."""


def chart_dir(charts: Path, inputs: dict[str, Any]) -> Path:
    """``<chart>-<version>``, else the one ``<chart>-<provider>-<version>``: charts of the same name from two
    projects carry their provider (``karpenter-aws-1.14.1``, ``karpenter-crd-aws-1.14.1``; tests/upstream/README.md).
    """
    chart = str(inputs.get("chart", "")).rstrip("/").rsplit("/", 1)[-1]
    version = str(inputs.get("version", ""))
    named = charts / f"{chart}-{version}"
    if named.is_dir() or not charts.is_dir():
        return named
    pattern = re.compile(rf"^{re.escape(chart)}-[a-z0-9]+-{re.escape(version)}$")
    found = [d for d in sorted(charts.iterdir()) if d.is_dir() and pattern.match(d.name)]
    return found[0] if len(found) == 1 else named


def with_dependencies(directory: Path, charts: Path, scratch: Path) -> Path:
    """The chart as ``helm dependency build`` leaves it: each dependency it does not carry under ``charts/``
    is copied in from ``charts`` (``<name>-<version>``, vendored beside it); ``directory`` itself when nothing
    is missing. Helm drops the values of a subchart it does not have, and templates that read them fail."""
    chart_yaml = directory / "Chart.yaml"
    meta = (yaml.safe_load(chart_yaml.read_text()) or {}) if chart_yaml.is_file() else {}
    missing = [
        (dep["name"], charts / f"{dep['name']}-{dep['version']}")
        for dep in meta.get("dependencies") or []
        if not (directory / "charts" / dep["name"]).exists()
    ]
    found = [(name, source) for name, source in missing if source.is_dir()]
    if not found:
        return directory
    target = scratch / directory.name
    shutil.copytree(directory, target)
    for name, source in found:
        shutil.copytree(source, target / "charts" / name)
    return target


# How Helm splits a rendered template into documents (pkg/release/util/manifest.go SplitManifests):
# a `---` at a line start, whatever follows it on that line (charts emit `---# comment`).
_SEPARATOR = re.compile(r"(?:^|\s*\n)---\s*")


def _objects(texts: dict[str, str]) -> list[dict[str, Any]]:
    out = []
    for path in sorted(texts):
        if path.endswith("NOTES.txt") or not texts[path].strip():
            continue
        for part in _SEPARATOR.split(texts[path]):
            try:
                doc = yaml.load(part, Loader=_ChartLoader)
            except yaml.YAMLError as exc:
                raise RenderError(
                    f"{path}: rendered output is not YAML: {' '.join(str(exc).split())}"
                ) from None
            if isinstance(doc, dict) and doc.get("kind"):
                out.append(doc)
    return out


def _is_crd_file(parts: tuple[str, ...]) -> bool:
    """A file of a chart's own ``crds/`` or a subchart's ``charts/<name>/crds/`` (Helm installs those as
    they are); not the templates of a subchart that happens to be named ``crds``."""
    if parts[:1] == ("crds",):
        return True
    return len(parts) > 2 and parts[0] == "charts" and (parts[2] == "crds" or _is_crd_file(parts[2:]))


def _crds(directory: Path) -> dict[str, str]:
    return {
        str(p.relative_to(directory)): p.read_text()
        for p in sorted(directory.rglob("*"))
        if p.is_file() and p.suffix in (".yaml", ".yml") and _is_crd_file(p.relative_to(directory).parts)
    }


def _file_name(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    parts = [str(obj["kind"]), str(meta.get("namespace") or ""), str(meta.get("name") or "unnamed")]
    name = "-".join(p for p in parts if p)
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name) + ".yaml"


def render_releases(plan: Plan, charts: Path, out: Path) -> list[str]:
    """Render every Helm release of the plan into ``out/rendered/``; one summary line per release."""
    try:
        from helm_python import Chart, HelmError
    except ImportError:
        raise RenderError(
            "--render needs the [render] extra: pip install 'gpu-platform[render]' (helm-python-sdk)"
        ) from None
    if not charts.is_dir():
        raise RenderError(f"{charts}: no chart directory (pass --charts DIR with <chart>-<version>/ inside)")
    target = out / "rendered"
    shutil.rmtree(target, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix="gpu-platform-charts-") as scratch:
        return [
            _render_release(release, charts, target, Path(scratch) / str(i), Chart, HelmError)
            for i, release in enumerate(sorted(plan.by_type(HELM_RELEASE), key=lambda r: r.urn))
        ]


def _render_release(release: Any, charts: Path, target: Path, scratch: Path, chart: Any, error: Any) -> str:
    """One release rendered into ``target/<name>/``, one file per object; its summary line. ``chart`` and
    ``error`` are helm-python's ``Chart`` and ``HelmError`` (imported only with the extra)."""
    inputs = release.inputs
    name = str(inputs.get("name") or release.name)
    namespace = str(inputs.get("namespace") or "default")
    directory = chart_dir(charts, inputs)
    if not directory.is_dir():
        raise RenderError(f"release {name}: chart {directory.name} not found in {charts}")
    scratch.mkdir(parents=True)
    built = with_dependencies(directory, charts, scratch)
    try:
        # helm-python-sdk 0.2.2 mutates a loaded chart when rendering: a fresh one per render.
        texts = chart.load(built).render(
            values=inputs.get("values") or {}, name=name, namespace=namespace, is_install=True
        )
    except error as exc:
        raise RenderError(f"release {name}: helm could not render {directory.name}: {exc}") from None
    if not inputs.get("skipCrds"):
        texts = {**_crds(built), **texts}
    objects = _objects(texts)
    release_dir = target / name
    release_dir.mkdir(parents=True, exist_ok=True)
    for obj in objects:
        (release_dir / _file_name(obj)).write_text(
            yaml.dump(mask(obj), Dumper=_DUMPER, sort_keys=True, default_flow_style=False, width=120)
        )
    return f"{name}: {directory.name}, {len(objects)} objects -> {release_dir}"
