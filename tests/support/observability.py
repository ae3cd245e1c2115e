"""The metrics path as the observability tests render it: kube-prometheus-stack with its vendored
subcharts, and the GPU Operator's values with the metrics path's DCGM exporter settings merged in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from gpu_platform.addons.gpu_operator.checks import resolve_gpu_operator
from gpu_platform.addons.gpu_operator.plan import gpu_operator_plan
from gpu_platform.addons.observability import plan as obs
from gpu_platform.addons.observability.checks import ObservabilitySpec
from gpu_platform.offline.render import with_dependencies
from tests.conftest import UPSTREAM, upstream

KPS = "kube-prometheus-stack-88.5.3"
SUBCHARTS = {
    "kube-state-metrics": "kube-state-metrics-8.4.0",
    "prometheus-node-exporter": "prometheus-node-exporter-4.56.1",
    "grafana": "grafana-12.11.1",
}
"""kube-prometheus-stack's dependencies, each vendored beside it at the version its Chart.yaml pins."""


def kube_prometheus_stack_chart(scratch: Path) -> Path:
    """kube-prometheus-stack with its dependencies under charts/, as ``helm dependency build`` leaves it
    (copied into ``scratch``); the ``kps_chart`` fixture of tests/conftest.py."""
    chart = yaml.safe_load(upstream("charts", KPS, "Chart.yaml").read_text())
    pinned = {dep["name"]: dep["version"] for dep in chart["dependencies"]}
    assert all(vendored == f"{name}-{pinned[name]}" for name, vendored in SUBCHARTS.items())
    built = with_dependencies(UPSTREAM / "charts" / KPS, UPSTREAM / "charts", scratch)
    assert {p.name for p in (built / "charts").iterdir()} >= set(SUBCHARTS)
    return built


def operator_values(spec: ObservabilitySpec) -> dict[str, Any]:
    """The GPU Operator's chart values on an EKS H100 pool with the metrics path's DCGM exporter settings."""
    from gpu_platform.plans.helm import deep_merge

    plan = gpu_operator_plan(
        resolve_gpu_operator(
            {"cloud": "eks", "pools": [{"name": "h100", "machine_type": "p5.48xlarge", "max_nodes": 2}]}
        )
    )
    return deep_merge(plan.values, obs.dcgm_exporter_values(spec))
