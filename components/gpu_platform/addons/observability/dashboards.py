"""Grafana dashboards as ConfigMaps for Grafana's dashboard sidecar (label ``grafana_dashboard: "1"``, the
kube-prometheus-stack default, searched in every namespace): NVIDIA's DCGM dashboard as upstream ships it,
and the platform dashboard built here from the same metrics and recorded series as the rules
(``addons.observability.rules``), so a renamed metric fails the same test. With isolated (HAMi) pools the
platform dashboard also counts their cards and shows each container's GPU memory from HAMi's metrics
(Project-HAMi/HAMi v2.10.0 ``cmd/vGPUmonitor/metrics.go``, ``cmd/scheduler/metrics.go``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

from gpu_platform import scheduling, versions
from gpu_platform.addons.observability.rules import GPU_RESOURCES, VGPU, ksm_label, pool_table

DASHBOARD_LABEL = {"grafana_dashboard": "1"}
PLATFORM_DASHBOARD_UID = "gpu-platform-overview"
_POOL = ksm_label(scheduling.POOL_LABEL)
_NODE_POOL = f'max by (node, {_POOL}) (kube_node_labels{{{_POOL}!=""}})'


def nvidia_dcgm_dashboard() -> str:
    """NVIDIA's dashboard JSON byte for byte (``versions.DCGM_EXPORTER_DASHBOARD``)."""
    return resources.files("gpu_platform").joinpath("data", versions.DCGM_EXPORTER_DASHBOARD.file).read_text()


def _panel(
    pid: int, title: str, exprs: dict[str, str], x: int, y: int, kind: str = "timeseries", unit: str = "short"
) -> dict[str, Any]:
    return {
        "id": pid,
        "type": kind,
        "title": title,
        "datasource": {"type": "prometheus", "uid": "${datasource}"},
        "gridPos": {"h": 8, "w": 12, "x": x, "y": y},
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "targets": [
            {"refId": chr(ord("A") + i), "expr": expr, "legendFormat": legend}
            for i, (legend, expr) in enumerate(exprs.items())
        ],
    }


_PanelSpec = tuple[str, dict[str, str], str, str]


def _pool_panel_specs(isolated: Mapping[str, int]) -> list[_PanelSpec]:
    """Per-pool GPU capacity and utilisation panels, kept apart so platform_panels stays short; an isolated pool's
    capacity is its ``nvidia.com/vgpu`` over its ``replicas`` (``isolated``: pool -> replicas), in cards."""
    on_pool = f"* on (node) group_left ({_POOL}) {_NODE_POOL}"
    pod_node = "* on (namespace, pod) group_left (node) max by (namespace, pod, node) (kube_pod_info)"
    capacity = f'sum by ({_POOL}) (kube_node_status_allocatable{{resource=~"{GPU_RESOURCES}"}} {on_pool})'
    if isolated:
        cards = pool_table({pool: f"{1 / replicas:g}" for pool, replicas in isolated.items()})
        capacity = (
            f'{capacity} or sum by ({_POOL}) (kube_node_status_allocatable{{resource="{VGPU}"}} {on_pool}) '
            f"* on ({_POOL}) group_left () ({cards})"
        )
    return [
        (
            "GPUs per pool: capacity and in use",
            {
                f"{{{{{_POOL}}}}} capacity": capacity,
                f"{{{{{_POOL}}}}} in use": f"sum by ({_POOL}) (gpu_platform:pod_gpu_requests:running {pod_node} {on_pool})",
            },
            "timeseries",
            "short",
        ),
        (
            "GPU utilisation per pool",
            {f"{{{{{_POOL}}}}}": f"avg by ({_POOL}) (DCGM_FI_DEV_GPU_UTIL {on_pool})"},
            "timeseries",
            "percent",
        ),
    ]


def _team_panel_specs() -> list[_PanelSpec]:
    """Per-team (namespace / LocalQueue) GPU panels, grouped so platform_panels stays short."""
    return [
        (
            "GPUs per team (namespace / LocalQueue)",
            {
                "{{namespace}} / {{queue}}": "sum by (namespace, queue) (gpu_platform:team_gpu_requests:running)"
            },
            "timeseries",
            "short",
        ),
        (
            "GPU hours per team, last 24h",
            {
                "{{namespace}} / {{queue}}": "sum by (namespace, queue) (sum_over_time(gpu_platform:team_gpu_requests:running[24h])) / 60"
            },
            "bargauge",
            "short",
        ),
        (
            "GPU utilisation per team",
            {"{{namespace}}": "gpu_platform:team_gpu_utilization:avg"},
            "timeseries",
            "percentunit",
        ),
    ]


def _capacity_panel_specs() -> list[_PanelSpec]:
    """MIG, idle-reservation, pending-work and MIG-failure panels, grouped so platform_panels stays short."""
    return [
        (
            "MIG slices: capacity and in use",
            {
                "{{resource}} capacity": 'sum by (resource) (kube_node_status_allocatable{resource=~"nvidia_com_mig_.+"})',
                "{{resource}} in use": 'sum by (resource) (gpu_platform:pod_gpu_requests:running{resource=~"nvidia_com_mig_.+"})',
            },
            "timeseries",
            "short",
        ),
        (
            "Reserved GPUs idle for the last hour",
            {
                "{{namespace}}/{{pod}} on {{node}}": 'max by (namespace, pod, node) (max_over_time(DCGM_FI_DEV_GPU_UTIL{namespace!=""}[1h])) == 0'
            },
            "table",
            "short",
        ),
        (
            "Pending workloads per ClusterQueue",
            {"{{cluster_queue}} {{status}}": "sum by (cluster_queue, status) (kueue_pending_workloads)"},
            "timeseries",
            "short",
        ),
        (
            "GPU nodes with a failed MIG reconfiguration",
            {
                "{{node}}": f'max by (node) (kube_node_labels{{{ksm_label("nvidia.com/mig.config.state")}="failed"}})'
            },
            "table",
            "short",
        ),
    ]


_CONTAINER = "namespace, pod, container"


def _isolated_panel_specs() -> list[_PanelSpec]:
    """Isolated pools, from HAMi's device plugin monitor (per container: the memory HAMi-core counts and the limit
    it enforces) and its scheduler (per card: the memory handed out to containers)."""
    used = f"sum by ({_CONTAINER}) (hami_vgpu_memory_used_bytes)"
    limit = f"sum by ({_CONTAINER}) (hami_vgpu_memory_limit_bytes)"
    return [
        (
            "GPU memory per container on isolated pools: used and limit",
            {
                "{{namespace}}/{{pod}}/{{container}} used": used,
                "{{namespace}}/{{pod}}/{{container}} limit": limit,
            },
            "timeseries",
            "bytes",
        ),
        (
            "GPU memory used of its limit per container (isolated pools)",
            {"{{namespace}}/{{pod}}/{{container}}": f"{used} / {limit}"},
            "bargauge",
            "percentunit",
        ),
        (
            "Isolated cards: memory handed out to containers",
            {
                "{{node}} {{device_uuid}}": "sum by (node, device_uuid) (hami_gpu_memory_allocated_bytes) / "
                "sum by (node, device_uuid) (hami_gpu_memory_limit_bytes)"
            },
            "timeseries",
            "percentunit",
        ),
    ]


def platform_panels(isolated: Mapping[str, int] | None = None) -> list[dict[str, Any]]:
    """GPU use per pool, per team (Kueue LocalQueue label), MIG slices, idle reserved GPUs, pending work; with
    ``isolated`` pools (pool -> replicas) their cards in the pool panel and HAMi's per-container GPU memory."""
    isolated = isolated or {}
    specs: list[_PanelSpec] = [*_pool_panel_specs(isolated), *_team_panel_specs(), *_capacity_panel_specs()]
    if isolated:
        specs += _isolated_panel_specs()
    return [
        _panel(i + 1, title, exprs, x=12 * (i % 2), y=8 * (i // 2), kind=kind, unit=unit)
        for i, (title, exprs, kind, unit) in enumerate(specs)
    ]


def platform_dashboard(isolated: Mapping[str, int] | None = None) -> dict[str, Any]:
    return {
        "uid": PLATFORM_DASHBOARD_UID,
        "title": "GPU platform",
        "tags": ["gpu-platform", "gpu"],
        "timezone": "utc",
        "schemaVersion": 39,
        "editable": False,
        "time": {"from": "now-24h", "to": "now"},
        "refresh": "1m",
        "templating": {
            "list": [
                {"name": "datasource", "type": "datasource", "query": "prometheus", "current": {}, "hide": 0}
            ]
        },
        "panels": platform_panels(isolated),
    }


def dashboard_config_maps(namespace: str, isolated: Mapping[str, int] | None = None) -> list[dict[str, Any]]:
    """One ConfigMap per dashboard, in ``namespace`` (the sidecar reads every namespace); ``isolated``: the
    HAMi-isolated pools, pool -> replicas."""
    boards = {
        "gpu-platform-overview": json.dumps(platform_dashboard(isolated), indent=1, sort_keys=True),
        "nvidia-dcgm-exporter": nvidia_dcgm_dashboard(),
    }
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": f"gpu-dashboard-{key}",
                "namespace": namespace,
                "labels": dict(DASHBOARD_LABEL),
            },
            "data": {f"{key}.json": text},
        }
        for key, text in boards.items()
    ]


def dashboard_queries(dashboard: dict[str, Any]) -> list[str]:
    """Every PromQL expression of a dashboard: panel targets (rows' nested panels too) and query variables."""
    out: list[str] = []

    def panels(items: list[dict[str, Any]]) -> None:
        for p in items:
            out.extend(t["expr"] for t in p.get("targets", ()) if t.get("expr"))
            panels(p.get("panels", []))

    panels(dashboard.get("panels", []))
    for var in dashboard.get("templating", {}).get("list", []):
        if var.get("type") == "query" and isinstance(var.get("query"), str):
            out.append(var["query"])
    return out
