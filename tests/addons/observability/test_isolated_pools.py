"""Isolated (HAMi) pools in the metrics path: each container's GPU memory from HAMi's own metrics (their names and
labels read from HAMi's sources at the pin, vendored), GPU hours that count an isolated share as its fraction of the
card, nodes advertising ``nvidia.com/vgpu`` not taken for nodes without GPUs, and the objects that scrape HAMi on
every backend, each valid against its CRD. Without isolated pools nothing of it is there."""

from __future__ import annotations

import json
import re
from typing import Any

import promql_parser
import pytest
import yaml

from gpu_platform.addons.observability import dashboards as dash
from gpu_platform.addons.observability import plan as obs
from gpu_platform.addons.observability import rules as gr
from gpu_platform.addons.observability.checks import ObservabilitySpec
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cluster_pools import resolve_pools
from tests.addons.observability.test_rules import ksm_metrics, metric_names
from tests.conftest import upstream
from tests.support.crds import problems_of

CARDS = {"t4": 16384, "l4": 24576}
"""Pool -> one card's memory in MiB (the catalog's T4 16 GB and L4 24 GB)."""
GROUPS = gr.rule_groups("gpu-operator", {"a10": 2}, isolated=CARDS)
RULES = {r.name: r for g in GROUPS for r in g.rules}
POOL = gr.ksm_label("gpu-platform.io/pool")
RUNNING = 'max by (namespace, pod) (kube_pod_status_phase{phase="Running"}) == 1'
GMP = "gke-managed-prometheus"


def hami_metrics() -> dict[str, set[str]]:
    """Every ``hami_*`` series HAMi v2.10.0 defines -> its labels: the device plugin's monitor
    (``cmd/vGPUmonitor/metrics.go``) and the scheduler (``cmd/scheduler/metrics.go``)."""
    out: dict[str, set[str]] = {}
    for part in ("vGPUmonitor", "scheduler"):
        text = upstream("hami", "cmd", part, "metrics.go").read_text()
        for name, labels in re.findall(
            r'prometheus\.NewDesc\(\s*"(hami_[a-z_]+)",\s*(?:`[^`]*`|"[^"]*"),\s*\[\]string\{([^}]*)\}', text
        ):
            out[name] = set(re.findall(r'"([a-z_]+)"', labels))
    return out


def pools() -> list[GpuPool]:
    return resolve_pools(
        "aks",
        [
            {
                "name": "t4",
                "machine_type": "Standard_NC4as_T4_v3",
                "min_nodes": 1,
                "max_nodes": 2,
                "sharing": {"mode": "isolated", "replicas": 4},
            },
            {"name": "a100", "machine_type": "Standard_NC24ads_A100_v4", "max_nodes": 1},
        ],
    )


# --- HAMi's metrics, from its sources -------------------------------------------------------------------------


def test_hamis_metric_names_and_labels_are_read_from_its_sources_at_the_pin() -> None:
    metrics = hami_metrics()
    container = {"namespace", "pod", "container", "vdevice_index", "device_uuid"}
    assert metrics["hami_vgpu_memory_used_bytes"] == container
    assert metrics["hami_vgpu_memory_limit_bytes"] == container
    assert {"node", "device_uuid"} <= metrics["hami_gpu_memory_allocated_bytes"]
    assert {"node", "device_uuid"} <= metrics["hami_gpu_memory_limit_bytes"]
    # The legacy names (``vGPU_device_memory_usage_in_bytes``) only come with --legacy-metrics, which stays off.
    values = yaml.safe_load(upstream("charts", "hami-2.10.0", "values.yaml").read_text())
    assert values["legacyMetrics"] is False
    assert values["resourceMemPercentage"] == "nvidia.com/gpumem-percentage"
    assert gr.GPU_MEMORY_PERCENTAGE == "nvidia_com_gpumem_percentage"
    assert (gr.VGPU, gr.GPU_MEMORY, gr.GPU_CORES) == (
        "nvidia_com_vgpu",
        "nvidia_com_gpumem",
        "nvidia_com_gpucores",
    )


# --- dashboards ---------------------------------------------------------------------------------------------


def _exprs(panels: list[dict[str, Any]]) -> dict[str, list[str]]:
    return {p["title"]: [t["expr"] for t in p["targets"]] for p in panels}


def test_the_dashboard_shows_each_containers_gpu_memory_on_isolated_pools() -> None:
    panels = dash.platform_panels({"t4": 4})
    exprs = _exprs(panels)
    used = "sum by (namespace, pod, container) (hami_vgpu_memory_used_bytes)"
    limit = "sum by (namespace, pod, container) (hami_vgpu_memory_limit_bytes)"
    assert exprs["GPU memory per container on isolated pools: used and limit"] == [used, limit]
    assert exprs["GPU memory used of its limit per container (isolated pools)"] == [f"{used} / {limit}"]
    assert exprs["Isolated cards: memory handed out to containers"] == [
        "sum by (node, device_uuid) (hami_gpu_memory_allocated_bytes) / "
        "sum by (node, device_uuid) (hami_gpu_memory_limit_bytes)"
    ]
    units = {p["title"]: p["fieldConfig"]["defaults"]["unit"] for p in panels}
    assert units["GPU memory per container on isolated pools: used and limit"] == "bytes"
    ids = [p["id"] for p in panels]
    assert ids == list(range(1, len(panels) + 1))


def test_every_hami_series_a_panel_reads_is_exported_with_the_labels_it_groups_by() -> None:
    metrics = hami_metrics()
    board = dash.platform_dashboard({"t4": 4})
    found = 0
    for expr in dash.dashboard_queries(board):
        promql_parser.parse(expr)
        for labels, name in re.findall(r"by \(([^)]*)\) \((hami_[a-z_]+)\)", expr):
            found += 1
            # ``node`` on the device plugin monitor's series is its pod's node (the scrape's relabeling).
            exported = metrics[name] | ({"node"} if "node" not in metrics[name] else set())
            assert set(labels.split(", ")) <= exported, (name, labels)
        assert {m for m in metric_names(expr) if m.startswith("hami_")} <= set(metrics)
    assert found == 6


def test_the_pool_panel_counts_an_isolated_pools_cards() -> None:
    (capacity, _), *_ = (p["targets"] for p in dash.platform_panels({"t4": 4, "l4": 2}))
    expr = capacity["expr"]
    assert expr.startswith('sum by (label_gpu_platform_io_pool) (kube_node_status_allocatable{resource=~"')
    assert (
        ' or sum by (label_gpu_platform_io_pool) (kube_node_status_allocatable{resource="nvidia_com_vgpu"}'
        in expr
    )
    # nvidia.com/vgpu is replicas per card: a T4 split 4 ways counts 0.25 card per unit, an L4 split 2 ways 0.5.
    assert expr.endswith(
        '(label_replace(vector(0.5), "label_gpu_platform_io_pool", "l4", "", "") or '
        'label_replace(vector(0.25), "label_gpu_platform_io_pool", "t4", "", ""))'
    )
    promql_parser.parse(expr)


def test_without_isolated_pools_the_dashboard_has_nothing_of_hami() -> None:
    assert dash.platform_dashboard() == dash.platform_dashboard({})
    text = json.dumps(dash.platform_dashboard())
    assert "hami_" not in text and "nvidia_com_vgpu" not in text
    assert len(dash.platform_panels({"t4": 4})) == len(dash.platform_panels()) + 3


# --- rules --------------------------------------------------------------------------------------------------


def test_gpu_hours_count_an_isolated_share_as_its_fraction_of_the_card() -> None:
    card = RULES["gpu_platform:pod_card_memory:mib"].expr
    assert card.endswith(
        '(label_replace(vector(24576), "label_gpu_platform_io_pool", "l4", "", "") or '
        'label_replace(vector(16384), "label_gpu_platform_io_pool", "t4", "", ""))'
    )
    share = RULES["gpu_platform:container_vgpu_share:ratio"].expr
    requests = 'sum by (namespace, pod, container) (kube_pod_container_resource_requests{resource="%s"})'
    assert share.startswith("max by (namespace, pod, container) (")
    # The memory asked for over the card's (8192 of a 16384 MiB T4 is 0.5 of it) ...
    assert (
        f"label_replace(({requests % 'nvidia_com_gpumem'} / on (namespace, pod) group_left () "
        'max by (namespace, pod) (gpu_platform:pod_card_memory:mib)), "share", "memory", "", "")'
    ) in share
    # ... or the percentage of it (only without nvidia.com/gpumem, which HAMi prefers) ...
    assert (
        f"label_replace(({requests % 'nvidia_com_gpumem_percentage'} / 100 unless on (namespace, pod, container) "
        f'({requests % "nvidia_com_gpumem"})), "share", "memory-percentage", "", "")'
    ) in share
    # ... or the compute share when larger, and the whole card when no memory is asked for (HAMi's default).
    assert f'label_replace(({requests % "nvidia_com_gpucores"} / 100), "share", "cores", "", "")' in share
    assert (
        f"label_replace(({requests % 'nvidia_com_vgpu'} * 0 + 1 unless on (namespace, pod, container) "
        '(kube_pod_container_resource_requests{resource=~"nvidia_com_gpumem|nvidia_com_gpumem_percentage"})), '
        '"share", "card", "", "")'
    ) in share
    running = RULES["gpu_platform:pod_gpu_requests:running"].expr
    # Each unit of nvidia.com/vgpu counts its share, as resource nvidia_com_vgpu, for running pods only.
    assert running.endswith(
        f"or (label_replace(sum by (namespace, pod) ({requests % 'nvidia_com_vgpu'} * on (namespace, pod, container) "
        'gpu_platform:container_vgpu_share:ratio), "resource", "nvidia_com_vgpu", "", "") '
        f"* on (namespace, pod) group_left () ({RUNNING}))"
    )
    # The time-sliced pool keeps its 1/replicas.
    assert 'label_replace(vector(0.5), "label_gpu_platform_io_pool", "a10", "", "")' in (
        RULES["gpu_platform:pod_gpu_share:ratio"].expr
    )


def test_isolated_rules_parse_and_read_kube_state_metrics_or_series_recorded_before_them() -> None:
    names = list(RULES)
    for name in (
        "gpu_platform:pod_card_memory:mib",
        "gpu_platform:container_vgpu_share:ratio",
        "gpu_platform:pod_gpu_requests:running",
    ):
        promql_parser.parse(RULES[name].expr)
        read = metric_names(RULES[name].expr)
        earlier = set(names[: names.index(name)])
        assert read <= ksm_metrics() | earlier, name


def test_without_isolated_pools_the_rules_are_unchanged() -> None:
    plain = gr.rule_groups("gpu-operator", {"a10": 2})
    assert [g.as_object() for g in plain] == [
        g.as_object() for g in gr.rule_groups("gpu-operator", {"a10": 2}, isolated={})
    ]
    text = json.dumps([g.as_object() for g in plain])
    assert "vgpu" not in text and "gpumem" not in text


def test_an_isolated_node_advertising_vgpu_is_not_a_node_without_gpus() -> None:
    alert = {r.name: r.expr for r in gr.gpu_node_group("gpu-operator", isolated=True).rules}[
        "GpuNodeAdvertisesNoGpus"
    ]
    assert (
        'kube_node_status_allocatable{resource=~"nvidia_com_gpu|nvidia_com_gpu_shared|nvidia_com_mig_.+|nvidia_com_vgpu"}'
        in alert
    )
    plain = {r.name: r.expr for r in gr.gpu_node_group("gpu-operator").rules}["GpuNodeAdvertisesNoGpus"]
    assert "vgpu" not in plain
    # The regex is matched whole, as Prometheus does: a node with only nvidia.com/vgpu counts as advertising GPUs.
    regex = re.search(r'resource=~"([^"]+)"', alert)
    assert regex and re.fullmatch(regex.group(1), "nvidia_com_vgpu")


# --- the objects that scrape HAMi, per backend ------------------------------------------------------------------


def _plan_objects(backend: str, cloud: str) -> list[dict[str, Any]]:
    return list(obs.observability_plan(ObservabilitySpec(cloud, backend=backend), pools=pools()).objects)


def _named(objects: list[dict[str, Any]], *names: str) -> list[dict[str, Any]]:
    return [o for o in objects if o["metadata"]["name"] in names]


@pytest.mark.parametrize(
    ("backend", "cloud"),
    [
        ("kube-prometheus-stack", "aks"),
        ("prometheus-operator", "existing"),
        ("amazon-managed-prometheus", "eks"),
    ],
)
def test_prometheus_operator_backends_scrape_hami_with_the_workloads_labels(backend: str, cloud: str) -> None:
    objects = _plan_objects(backend, cloud)
    plugin, scheduler = _named(objects, "hami-device-plugin", "hami-scheduler")
    for monitor in (plugin, scheduler):
        assert monitor["apiVersion"] == "monitoring.coreos.com/v1" and monitor["kind"] == "ServiceMonitor"
        assert monitor["metadata"]["namespace"] == "monitoring"
        assert monitor["spec"]["namespaceSelector"] == {"matchNames": ["hami-system"]}
        assert problems_of(monitor) == []
    assert plugin["spec"]["selector"]["matchLabels"] == {
        "app.kubernetes.io/component": "hami-device-plugin",
        "app.kubernetes.io/name": "hami",
        "app.kubernetes.io/instance": "hami",
    }
    (endpoint,) = plugin["spec"]["endpoints"]
    assert endpoint == {
        "port": "monitorport",
        "path": "/metrics",
        "interval": "30s",
        "honorLabels": True,
        "relabelings": [
            {"action": "labeldrop", "regex": "(pod|namespace|container)"},
            {"sourceLabels": ["__meta_kubernetes_pod_node_name"], "targetLabel": "node", "action": "replace"},
        ],
    }
    (endpoint,) = scheduler["spec"]["endpoints"]
    assert endpoint["port"] == "monitor" and endpoint["honorLabels"] is True
    # The scheduler's series name their node; the scheduler pod's node would be wrong there.
    assert endpoint["relabelings"] == [{"action": "labeldrop", "regex": "(pod|namespace|container)"}]


def test_gke_managed_collection_scrapes_hamis_pods() -> None:
    objects = _plan_objects(GMP, "gke")
    plugin, scheduler = _named(objects, "hami-device-plugin", "hami-scheduler")
    for monitoring in (plugin, scheduler):
        assert monitoring["kind"] == "ClusterPodMonitoring" and problems_of(monitoring) == []
        assert monitoring["spec"]["endpoints"] == [{"port": "metrics", "interval": "30s"}]
    assert plugin["spec"]["targetLabels"] == {"metadata": ["node"]}
    assert scheduler["spec"]["targetLabels"] == {"metadata": []}
    # Only the elected scheduler's allocations are current (the label HAMi's chart Service selects too).
    assert scheduler["spec"]["selector"]["matchLabels"]["hami.io/scheduler-role"] == "leader"


def test_azure_monitor_scrapes_hami_through_its_own_servicemonitors() -> None:
    objects = _plan_objects("azure-managed-prometheus", "aks")
    monitors = _named(objects, "hami-device-plugin", "hami-scheduler")
    assert [m["apiVersion"] for m in monitors] == ["azmonitoring.coreos.com/v1"] * 2
    for monitor in monitors:
        assert monitor["metadata"]["namespace"] == "kube-system" and problems_of(monitor) == []
        assert monitor["spec"]["namespaceSelector"] == {"matchNames": ["hami-system"]}


@pytest.mark.parametrize(
    ("backend", "cloud"),
    [("kube-prometheus-stack", "aks"), (GMP, "gke"), ("azure-managed-prometheus", "aks")],
)
def test_without_isolated_pools_nothing_scrapes_hami(backend: str, cloud: str) -> None:
    whole = [p for p in pools() if p.sharing.mode != "isolated"]
    plan = obs.observability_plan(ObservabilitySpec(cloud, backend=backend), pools=whole)
    assert not [o for o in plan.objects if "hami" in o["metadata"]["name"]]
    assert "hami_" not in json.dumps([cm["data"] for cm in plan.config_maps])


def test_the_isolated_pools_rules_and_dashboard_reach_the_cluster() -> None:
    plan = obs.observability_plan(ObservabilitySpec("aks"), pools=pools())
    (rule,) = [o for o in plan.objects if o["kind"] == "PrometheusRule"]
    recorded = {r.get("record") for g in rule["spec"]["groups"] for r in g["rules"]}
    assert {"gpu_platform:pod_card_memory:mib", "gpu_platform:container_vgpu_share:ratio"} <= recorded
    card = next(
        r["expr"]
        for g in rule["spec"]["groups"]
        for r in g["rules"]
        if r.get("record") == "gpu_platform:pod_card_memory:mib"
    )
    assert 'label_replace(vector(16384), "label_gpu_platform_io_pool", "t4", "", "")' in card
    board = json.loads(
        next(cm for cm in plan.config_maps if "overview" in cm["metadata"]["name"])["data"][
            "gpu-platform-overview.json"
        ]
    )
    assert "hami_vgpu_memory_used_bytes" in json.dumps(board)
