"""GPU rules and dashboards: every expression parses as PromQL (promql-parser, the Rust parser behind
GreptimeDB), and every metric one names is exported by what runs at its pin: the DCGM exporter's counters
CSV the library ships (its upstream default file with documented fields switched on), kube-state-metrics
2.20.0 and Kueue 0.19.2 (their metric references, vendored), or a series the rules themselves record.
"""

from __future__ import annotations

import json
import re
from hashlib import sha256
from importlib import resources
from typing import Any

import promql_parser
import pytest
import yaml

from gpu_platform import scheduling, versions
from gpu_platform.addons.observability import dashboards as dash
from gpu_platform.addons.observability import rules as gr
from tests.conftest import upstream

GROUPS = gr.rule_groups("gpu-operator", {"l4": 4, "a10": 2}, dra=True)
"""Every rule the library can make: with a time-sliced pool and DRA pools, GPU hours have their extra rules."""
RULES = [r for g in GROUPS for r in g.rules]
RECORDED = {r.name for r in RULES if r.record}
ALERTS = {r.name for g in GROUPS for r in g.rules if not r.record}


def metric_names(expr: str) -> set[str]:
    names: set[str] = set()

    def visit(node: Any) -> None:
        if type(node).__name__ == "VectorSelector" and node.name:
            names.add(node.name)

    promql_parser.walk(promql_parser.parse(expr), visit)
    return names


def ksm_metrics() -> set[str]:
    text = upstream("kube-state-metrics", "docs", "node-metrics.md").read_text()
    text += upstream("kube-state-metrics", "docs", "pod-metrics.md").read_text()
    return set(re.findall(r"^\| (kube_[a-z_]+) +\|", text, re.MULTILINE))


def kueue_metrics() -> set[str]:
    return set(
        re.findall(
            r"^\| `(kueue_[a-z_]+)` \|", upstream("kueue-metrics", "metrics.md").read_text(), re.MULTILINE
        )
    )


def shipped_dcgm_fields() -> frozenset[str]:
    return gr.exported_dcgm_fields(gr.dcgm_metrics_csv())


def default_dcgm_fields() -> frozenset[str]:
    return gr.exported_dcgm_fields(upstream("dcgm-exporter", "default-counters.csv").read_text())


def exported() -> set[str]:
    return set(shipped_dcgm_fields()) | ksm_metrics() | kueue_metrics() | RECORDED


def grafana_exprs(board: dict[str, Any]) -> list[str]:
    """PromQL of a dashboard; ``label_values(metric, label)`` variables contribute their metric."""
    out = []
    for q in dash.dashboard_queries(board):
        m = re.fullmatch(r"label_values\((.+),\s*\w+\)", q.strip())
        out.append(m.group(1) if m else q)
    return out


# --- the vendored lists are what the checks read ----------------------------------------------------------


def test_the_reference_lists_are_not_empty_and_hold_what_the_rules_need() -> None:
    assert {"kube_node_labels", "kube_node_status_allocatable"} <= ksm_metrics()
    assert {
        "kube_pod_container_resource_requests",
        "kube_pod_status_phase",
        "kube_pod_labels",
    } <= ksm_metrics()
    assert "kueue_pending_workloads" in kueue_metrics()
    assert "DCGM_FI_DEV_XID_ERRORS" in default_dcgm_fields()
    assert "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL" not in default_dcgm_fields()  # commented out upstream


def test_package_data_is_upstream_byte_for_byte() -> None:
    for pin, name in (
        (versions.DCGM_EXPORTER_DEFAULT_COUNTERS, "default-counters.csv"),
        (versions.DCGM_EXPORTER_DASHBOARD, "dcgm-exporter-dashboard.json"),
    ):
        data = resources.files("gpu_platform").joinpath("data", pin.file).read_bytes()
        assert sha256(data).hexdigest() == pin.sha256
        assert data == upstream("dcgm-exporter", name).read_bytes()


# --- the counters CSV ---------------------------------------------------------------------------------------


def test_metrics_csv_only_switches_on_documented_upstream_lines() -> None:
    ours = gr.dcgm_metrics_csv().splitlines()
    theirs = upstream("dcgm-exporter", "default-counters.csv").read_text().splitlines()
    assert len(ours) == len(theirs)
    changed = [(a, b) for a, b in zip(theirs, ours, strict=True) if a != b]
    assert {b.split(",")[0] for _, b in changed} == set(gr.DCGM_EXTRA_FIELDS)
    for a, b in changed:
        assert a.startswith("#") and a.lstrip("#").strip() == b
    assert shipped_dcgm_fields() == default_dcgm_fields() | set(gr.DCGM_EXTRA_FIELDS)


def test_a_field_the_exporter_does_not_document_is_refused() -> None:
    with pytest.raises(ValueError, match="DCGM_FI_DEV_NOT_A_FIELD"):
        gr.dcgm_metrics_csv(("DCGM_FI_DEV_NOT_A_FIELD",))


# --- rules ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name)
def test_every_rule_expression_parses(rule: gr.Rule) -> None:
    parsed = promql_parser.parse(rule.expr)  # raises ValueError on what Prometheus would refuse
    assert parsed is not None and metric_names(rule.expr), rule.name


def test_the_parser_rejects_what_prometheus_would() -> None:
    # The checker can fail: an unclosed group and an unknown function are errors, as in promtool.
    for bad in ("sum by (node (DCGM_FI_DEV_XID_ERRORS)", "rated(DCGM_FI_DEV_XID_ERRORS[5m])"):
        with pytest.raises(ValueError):
            promql_parser.parse(bad)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name)
def test_every_metric_a_rule_names_is_exported(rule: gr.Rule) -> None:
    assert metric_names(rule.expr) - exported() == set()


def test_a_misspelt_metric_would_be_caught() -> None:
    assert metric_names("rate(DCGM_FI_DEV_XID_ERROR[5m])") - exported() == {"DCGM_FI_DEV_XID_ERROR"}


def test_recorded_series_are_recorded_before_they_are_read() -> None:
    seen: set[str] = set()
    for group in GROUPS:
        for rule in group.rules:
            assert metric_names(rule.expr) & RECORDED <= seen, rule.name
            if rule.record:
                assert re.fullmatch(r"gpu_platform:[a-z_]+:[a-z0-9_]+", rule.name)  # level:metric:operations
                seen.add(rule.name)


def test_node_and_pod_labels_are_the_allowlisted_ones() -> None:
    allowed = {gr.ksm_label(label) for label in (*gr.KSM_NODE_LABELS, *gr.KSM_POD_LABELS)}
    used = {m for r in RULES for m in re.findall(r"\blabel_[a-z0-9_]+\b(?!\()", r.expr)} - {"label_replace"}
    assert used and used <= allowed
    assert gr.ksm_label(scheduling.POOL_LABEL) == "label_gpu_platform_io_pool"
    assert gr.ksm_label("nvidia.com/mig.config.state") == "label_nvidia_com_mig_config_state"


def test_the_alerts_cover_the_gpu_failures() -> None:
    alerts = {r.name: r for r in RULES if not r.record}
    assert set(alerts) == {
        "GpuXidCritical",
        "GpuXidError",
        "GpuDoubleBitEccErrors",
        "GpuRowRemapFailure",
        "GpuUncorrectableRowsRemapped",
        "GpuThermalThrottling",
        "GpuPowerThrottling",
        "GpuNvlinkErrors",
        "GpuNodeAdvertisesNoGpus",
        "GpuMigConfigFailed",
        "GpuOperatorValidatorFailing",
        "GpuNodeTakenOutOfService",
        "GpusIdleWhileQueueWaits",
        "GpuAllocatedButIdle",
    }
    assert 'xid=~"48|63|64|74|79|' in alerts["GpuXidCritical"].expr
    assert 'label_nvidia_com_mig_config_state="failed"' in alerts["GpuMigConfigFailed"].expr
    assert 'namespace="gpu-operator"' in alerts["GpuOperatorValidatorFailing"].expr
    assert 'label_gpu_platform_io_allocation!="dra"' in alerts["GpuNodeAdvertisesNoGpus"].expr
    # The health checks' taint, by the key the library's one Taint spells.
    assert (
        'key="status-taint.cluster-autoscaler.kubernetes.io/gpu-unhealthy"'
        in alerts["GpuNodeTakenOutOfService"].expr
    )
    for alert in alerts.values():
        assert alert.severity in {"critical", "warning", "info"} and alert.summary


def test_gpu_hours_per_team_come_from_kueue_labels_and_running_pods() -> None:
    rules = {r.name: r.expr for r in RULES if r.record}
    team = rules["gpu_platform:team_gpu_requests:running"]
    assert "label_kueue_x_k8s_io_queue_name" in team and "sum by (namespace, queue, resource)" in team
    assert rules["gpu_platform:team_gpu_hours:1h"] == (
        "sum_over_time(gpu_platform:team_gpu_requests:running[1h:1m]) / 60"
    )
    (accounting,) = [g for g in GROUPS if g.name == "gpu-platform.gpu-accounting"]
    assert accounting.interval == "1m"  # the /60 above counts one sample a minute


def test_the_rule_file_is_every_group_as_prometheus_reads_it() -> None:
    doc = yaml.safe_load(gr.rule_file(GROUPS))
    assert doc == {"groups": [g.as_object() for g in GROUPS]}
    for group in doc["groups"]:
        for rule in group["rules"]:
            promql_parser.parse(rule["expr"])  # raises on what the workspace's ruler would refuse
    assert {r["alert"] for g in doc["groups"] for r in g["rules"] if "alert" in r} == ALERTS


# --- dashboards -----------------------------------------------------------------------------------------


def test_every_query_of_both_dashboards_parses_and_names_exported_metrics() -> None:
    boards = {"platform": dash.platform_dashboard(), "nvidia": json.loads(dash.nvidia_dcgm_dashboard())}
    for key, board in boards.items():
        exprs = grafana_exprs(board)
        assert exprs, key
        for expr in exprs:
            assert metric_names(expr) - exported() == set(), (key, expr)
    # NVIDIA's dashboard needs nothing beyond the exporter's defaults (it works with any counters file).
    nvidia = {m for e in grafana_exprs(boards["nvidia"]) for m in metric_names(e)}
    assert nvidia and nvidia <= default_dcgm_fields()


def test_platform_dashboard_shows_pools_teams_mig_idle_and_pending() -> None:
    titles = " | ".join(p["title"] for p in dash.platform_panels())
    for needle in ("per pool", "per team", "MIG slices", "idle", "Pending workloads"):
        assert needle in titles
    ids = [p["id"] for p in dash.platform_panels()]
    assert len(ids) == len(set(ids))


def test_dashboard_config_maps_carry_the_sidecars_label() -> None:
    import yaml

    values = yaml.safe_load(upstream("charts", "kube-prometheus-stack-88.5.3", "values.yaml").read_text())
    sidecar = values["grafana"]["sidecar"]["dashboards"]
    maps = dash.dashboard_config_maps("monitoring")
    assert len(maps) == 2
    for cm in maps:
        assert cm["metadata"]["labels"] == {sidecar["label"]: sidecar["labelValue"]}
        (text,) = cm["data"].values()
        assert json.loads(text)["uid"]
        assert len(text.encode()) < 1024 * 1024  # a ConfigMap's limit
    assert sidecar["searchNamespace"] == "ALL"


def _fires(expr: str, series: dict[str, str], value: float) -> bool:
    """Whether ``<agg> (METRIC{matchers}) > N`` fires on one series with ``value``: the selector's metric name
    and label matchers (Prometheus regexes match the whole value) against the series, then the comparison."""
    tree = promql_parser.parse(expr)
    assert isinstance(tree, promql_parser.BinaryExpr) and str(tree.op) == ">"
    selector = tree.lhs.expr
    assert isinstance(selector, promql_parser.VectorSelector)
    if selector.name != series["__name__"]:
        return False
    for m in selector.matchers.matchers:
        have, op = series.get(m.name, ""), str(m.op).removeprefix("MatchOp.")
        ok = {
            "Equal": have == m.value,
            "NotEqual": have != m.value,
            "Re": re.fullmatch(m.value, have) is not None,
            "NotRe": re.fullmatch(m.value, have) is None,
        }[op]
        if not ok:
            return False
    return value > float(str(tree.rhs))


@pytest.mark.parametrize(
    ("xid", "fires"),
    [("79", "GpuXidCritical"), ("48", "GpuXidCritical"), ("13", "GpuXidError"), ("43", "GpuXidError")],
)
def test_an_xid_in_the_window_fires_one_alert_by_its_class(xid: str, fires: str) -> None:
    """The exporter's windowed count, ``DCGM_EXP_XID_ERRORS_COUNT{xid}``, fires the alert of the Xid's class
    while the window holds it, and nothing once the window is empty (the count drops to 0)."""
    alerts = {r.name: r for r in RULES if r.name in ("GpuXidCritical", "GpuXidError")}
    series = {"__name__": "DCGM_EXP_XID_ERRORS_COUNT", "xid": xid, "gpu": "0", "node": "n1"}
    assert {n for n, r in alerts.items() if _fires(r.expr, series, 1)} == {fires}
    assert not any(_fires(r.expr, series, 0) for r in alerts.values())
    sticky = {"__name__": "DCGM_FI_DEV_XID_ERRORS", "gpu": "0", "node": "n1"}
    assert not any(_fires(r.expr, sticky, float(xid)) for r in alerts.values())


def test_the_xid_window_counter_is_switched_on_in_the_exporter_csv() -> None:
    assert "DCGM_EXP_XID_ERRORS_COUNT" in gr.exported_dcgm_fields(gr.dcgm_metrics_csv())


def test_gpu_hours_count_a_shared_replica_as_its_fraction_and_dra_claims() -> None:
    """A time-sliced or MPS replica is ``1/replicas`` of a GPU on its pool (not a whole one), a renamed shared
    resource counts, and GPUs held through DRA claims (no container request) come from the exporter's
    attribution on DRA nodes."""
    rules = {r.name: r.expr for r in gr.gpu_accounting_group({"l4": 4}, dra=True).rules}
    share = rules["gpu_platform:pod_gpu_share:ratio"]
    assert 'label_replace(vector(0.25), "label_gpu_platform_io_pool", "l4", "", "")' in share
    assert "kube_pod_info * on (node)" in share
    assert "gpu_platform:pod_gpu_share:ratio" in rules["gpu_platform:pod_gpu_requests:running"]
    assert re.fullmatch(gr.GPU_RESOURCES, "nvidia_com_gpu_shared")
    dra = rules["gpu_platform:pod_dra_gpus:running"]
    assert "DCGM_FI_DEV_GPU_UTIL" in dra and 'label_gpu_platform_io_allocation="dra"' in dra
    assert "gpu_platform:pod_dra_gpus:running" in rules["gpu_platform:team_gpu_requests:running"]
    plain = {r.name for r in gr.gpu_accounting_group().rules}
    assert (
        "gpu_platform:pod_gpu_share:ratio" not in plain and "gpu_platform:pod_dra_gpus:running" not in plain
    )


def test_power_capping_under_load_informs_and_never_pages() -> None:
    alerts = {r.name: r for r in RULES if not r.record}
    assert alerts["GpuPowerThrottling"].severity == "info"
    assert alerts["GpuThermalThrottling"].severity == "warning"  # heat is a fault; a power cap is a setting
