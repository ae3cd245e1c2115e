"""Render a vendored chart with Helm's own engine, offline (helm-python-sdk, a dev dependency).

``render_texts`` is the one Helm call of the suite; ``render_chart`` reads its output as ``gpu-platform plan
--render`` does, ``rendered_documents`` as PyYAML's safe loader does.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_platform.offline.render import _objects
from tests.conftest import UPSTREAM

CHARTS = UPSTREAM / "charts"
"""The vendored charts, one directory per ``<chart>-<version>``."""
GPU_OPERATOR_CHART = CHARTS / "gpu-operator-v26.7.0"

PUBLISHED_VALUES = {
    "gateway-helm-v1.8.1": {
        "${GatewayImage}": "docker.io/envoyproxy/gateway:v1.8.1",
        "${GatewayImagePullPolicy}": "IfNotPresent",
    },
}
"""Charts whose git tree holds ``values.tmpl.yaml`` and whose release writes ``values.yaml`` from it: the
substitutions the release makes (envoyproxy/gateway v1.8.1 ``tools/make/helm.mk``, ``helm-generate``: envsubst)."""


def published_values_text(chart: str) -> str:
    """``values.yaml`` of ``chart`` as its release publishes it (see ``PUBLISHED_VALUES``)."""
    text = (CHARTS / chart / "values.tmpl.yaml").read_text()
    for variable, value in PUBLISHED_VALUES[chart].items():
        text = text.replace(variable, value)
    return text


@functools.cache
def published_charts() -> Path:
    """The vendored charts as their releases publish them, for ``gpu-platform plan --render --charts``: every
    chart linked as it is, and those of ``PUBLISHED_VALUES`` copied with the ``values.yaml`` their release
    generates (one temporary directory per test process)."""
    root = Path(tempfile.mkdtemp(prefix="gpu-platform-charts-"))
    for chart in sorted(CHARTS.iterdir()):
        if not chart.is_dir():
            continue
        if chart.name in PUBLISHED_VALUES:
            shutil.copytree(chart, root / chart.name, symlinks=True)
            (root / chart.name / "values.yaml").write_text(published_values_text(chart.name))
        else:
            (root / chart.name).symlink_to(chart, target_is_directory=True)
    return root


def render_texts(
    chart: Path | str,
    values: Mapping[str, Any],
    name: str,
    namespace: str,
    *,
    skip_without_helm: bool = False,
) -> dict[str, str]:
    """The chart's rendered files (template path -> text) for an install of release ``name`` in ``namespace``.

    ``chart`` is a chart directory, or the name of one under ``tests/upstream/charts``. Each call loads the
    chart afresh: helm-python-sdk 0.2.2 mutates a loaded chart when rendering. ``skip_without_helm`` skips the
    test when helm-python-sdk is not installed (else the import fails it).
    """
    if skip_without_helm:
        helm = pytest.importorskip("helm_python")
    else:
        import helm_python as helm
    directory = published_charts() / chart if isinstance(chart, str) else chart
    texts: dict[str, str] = helm.Chart.load(directory).render(
        values=values, name=name, namespace=namespace, is_install=True
    )
    return texts


def render_chart(
    chart: Path | str,
    values: Mapping[str, Any],
    name: str,
    namespace: str,
    *,
    skip_without_helm: bool = False,
) -> list[dict[str, Any]]:
    """The objects the chart renders, read as ``gpu_platform.offline.render`` reads them (no NOTES.txt)."""
    return _objects(render_texts(chart, values, name, namespace, skip_without_helm=skip_without_helm))


def rendered_documents(
    chart: Path | str,
    values: Mapping[str, Any],
    name: str,
    namespace: str,
    *,
    skip_without_helm: bool = False,
    yaml_files_only: bool = False,
) -> list[dict[str, Any]]:
    """Every mapping with a ``kind`` among the rendered files' YAML documents (PyYAML's safe loader);
    ``yaml_files_only``: of the files named ``*.yaml`` only."""
    texts = render_texts(chart, values, name, namespace, skip_without_helm=skip_without_helm)
    return [
        doc
        for path, text in texts.items()
        if not yaml_files_only or path.endswith(".yaml")
        for doc in yaml.safe_load_all(text)
        if isinstance(doc, dict) and doc.get("kind")
    ]


def rendered_cluster_policy(values: Mapping[str, Any]) -> dict[str, Any]:
    """The ClusterPolicy the GPU Operator chart at its pin renders from ``values``."""
    texts = render_texts(
        GPU_OPERATOR_CHART, dict(values), "gpu-operator", "gpu-operator", skip_without_helm=True
    )
    for text in texts.values():
        for doc in yaml.safe_load_all(text):
            if isinstance(doc, dict) and doc.get("kind") == "ClusterPolicy":
                return doc
    raise AssertionError("the chart rendered no ClusterPolicy")


def of_kind(objects: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """The objects of one kind, in order."""
    return [o for o in objects if o["kind"] == kind]
