"""The observability component and its place in the stack: charts rendered at their pins, every custom
resource validated against its CRD, the GPU Operator's and Kueue's side of the metrics path, and every
repository stack planning its metrics path, dashboards and rules."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_platform import releases, versions
from gpu_platform.addons.observability import plan as obs
from gpu_platform.addons.observability.checks import ObservabilitySpec
from gpu_platform.addons.observability.component import GpuObservability
from gpu_platform.addons.observability.rules import (
    DCGM_EXTRA_FIELDS,
    DCGM_METRICS_CONFIG_MAP,
    KSM_NODE_LABELS,
)
from gpu_platform.errors import ArgumentsError, ConfigError
from gpu_platform.offline import Plan
from gpu_platform.stack import load_platform
from tests.conftest import (
    REPO,
    UPSTREAM,
    planned_stack,
    stack_file_config,
    stack_raw_config,
    upstream,
)
from tests.support.chart_values import missing_upstream
from tests.support.crds import problems_of
from tests.support.helm import GPU_OPERATOR_CHART, of_kind, render_chart
from tests.support.observability import KPS, SUBCHARTS, operator_values

RELEASE = "kubernetes:helm.sh/v3:Release"
RULE = "kubernetes:monitoring.coreos.com/v1:PrometheusRule"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
AMP = "amazon-managed-prometheus"
AZURE = "azure-managed-prometheus"
ARN = "arn:aws:aps:eu-west-1:123456789012:workspace/ws-0123abcd-4567"


# --- pins and registry ---------------------------------------------------------------------------------


def test_pins_are_registered_in_order_and_the_crds_release_is_stateful() -> None:
    assert versions.ALL_CHARTS[-3:-1] == (versions.PROMETHEUS_OPERATOR_CRDS, versions.KUBE_PROMETHEUS_STACK)
    assert releases.PROMETHEUS_OPERATOR_CRDS.release_holds_crds
    assert "prometheus-operator-crds" in releases.crd_charts()
    # Every add-on's namespace is reserved: a team there would be labelled and queued as the stack's.
    assert releases.reserved_namespaces()["monitoring"] == "the monitoring stack's namespace"
    kps = yaml.safe_load(upstream("charts", KPS, "Chart.yaml").read_text())
    crds = yaml.safe_load(upstream("charts", "prometheus-operator-crds-31.0.1", "Chart.yaml").read_text())
    assert kps["version"] == versions.KUBE_PROMETHEUS_STACK.version
    assert crds["version"] == versions.PROMETHEUS_OPERATOR_CRDS.version
    assert kps["appVersion"] == crds["appVersion"]  # one Prometheus Operator version for both


# --- kube-prometheus-stack values and render -------------------------------------------------------------


def test_stack_values_exist_in_the_chart() -> None:
    """Keys of the stack's own values in its values.yaml; a subchart's keys in that subchart's."""
    chart = yaml.safe_load(upstream("charts", KPS, "values.yaml").read_text())
    values = obs.stack_values(ObservabilitySpec("eks"))
    for name, vendored in SUBCHARTS.items():
        sub = yaml.safe_load(upstream("charts", vendored, "values.yaml").read_text())
        assert missing_upstream({k: v for k, v in values.get(name, {}).items() if k != "enabled"}, sub) == []
    own = {k: v for k, v in values.items() if k not in SUBCHARTS}
    assert missing_upstream(own, chart) == []
    assert "enabled" in chart["grafana"]
    assert missing_upstream(
        {"prometheus": {"prometheusSpec": {"ruleSelectorNilUsesHelmValue": False}}}, chart
    )


def test_the_stack_renders_selecting_every_rule_and_monitor(kps_chart: Path) -> None:
    spec = ObservabilitySpec("eks", values={"alertmanager": {"enabled": False}})
    rendered = render_chart(kps_chart, obs.stack_values(spec), "kube-prometheus-stack", "monitoring")
    assert of_kind(rendered, "CustomResourceDefinition") == []  # the CRDs are the other release's
    (prom,) = of_kind(rendered, "Prometheus")
    for key in ("ruleSelector", "serviceMonitorSelector", "podMonitorSelector"):
        assert prom["spec"][key] == {}, key  # {} selects all; the chart's default selects its own release
        assert prom["spec"][key.replace("Selector", "NamespaceSelector")] == {}
    assert of_kind(rendered, "Alertmanager") == []  # the user's values still apply under the library's
    ksm = next(d for d in of_kind(rendered, "Deployment") if "kube-state-metrics" in d["metadata"]["name"])
    args = ksm["spec"]["template"]["spec"]["containers"][0]["args"]
    allow = next(a for a in args if a.startswith("--metric-labels-allowlist="))
    for label in KSM_NODE_LABELS:
        assert label in allow
    assert "pods=[kueue.x-k8s.io/queue-name]" in allow
    assert any("grafana" in d["metadata"]["name"] for d in of_kind(rendered, "Deployment"))


def test_grafana_can_be_left_out(kps_chart: Path) -> None:
    spec = ObservabilitySpec("eks", grafana=False)
    rendered = render_chart(kps_chart, obs.stack_values(spec), "kube-prometheus-stack", "monitoring")
    assert not any("grafana" in d["metadata"]["name"] for d in of_kind(rendered, "Deployment"))


def test_the_crds_release_renders_the_kinds_the_library_creates() -> None:
    rendered = render_chart(
        UPSTREAM / "charts" / "prometheus-operator-crds-31.0.1", {}, "prometheus-operator-crds", "monitoring"
    )
    names = {c["metadata"]["name"] for c in of_kind(rendered, "CustomResourceDefinition")}
    assert {"prometheusrules.monitoring.coreos.com", "servicemonitors.monitoring.coreos.com"} <= names
    # The same schema the tests validate against (the stack chart's copy of v0.93.1).
    (rule_crd,) = [c for c in rendered if c["metadata"]["name"] == "prometheusrules.monitoring.coreos.com"]
    theirs = yaml.safe_load(
        upstream("charts", KPS, "charts", "crds", "crds", "crd-prometheusrules.yaml").read_text()
    )
    assert rule_crd["spec"]["versions"] == theirs["spec"]["versions"]


# --- custom resources ------------------------------------------------------------------------------------


@pytest.mark.parametrize("cloud", ["gke", "eks", "aks", "existing"])
def test_prometheus_rule_validates(cloud: str) -> None:
    plan = obs.observability_plan(ObservabilitySpec(cloud))
    (rule,) = plan.objects
    assert problems_of(rule) == []
    broken = copy.deepcopy(rule)
    broken["spec"]["groups"][0]["rules"][0]["fore"] = "5m"
    assert problems_of(broken)  # the check can fail


def test_gke_managed_path_validates_and_carries_only_dcgm_rules() -> None:
    plan = obs.observability_plan(ObservabilitySpec("gke", backend="gke-managed-prometheus"))
    monitoring, rules = plan.objects
    assert problems_of(monitoring) == [] and problems_of(rules) == []
    assert monitoring["spec"]["targetLabels"] == {"metadata": ["node"]}
    assert monitoring["spec"]["selector"] == {"matchLabels": {"app": "nvidia-dcgm-exporter"}}
    exprs = " ".join(r["expr"] for g in rules["spec"]["groups"] for r in g["rules"])
    assert "DCGM_EXP_XID_ERRORS_COUNT" in exprs and "kube_" not in exprs and "kueue_" not in exprs
    assert plan.config_maps == () and plan.stack_values == {}
    bad = copy.deepcopy(monitoring)
    bad["spec"]["targetLabels"]["metadata"] = ["hostname"]
    assert problems_of(bad)


# --- the GPU Operator's and Kueue's side -----------------------------------------------------------------


def test_gpu_operator_renders_the_counters_and_a_servicemonitor_honoring_labels() -> None:
    values = operator_values(ObservabilitySpec("eks"))
    chart = GPU_OPERATOR_CHART
    rendered = render_chart(chart, values, "gpu-operator", "gpu-operator")
    (cm,) = [c for c in of_kind(rendered, "ConfigMap") if c["metadata"]["name"] == DCGM_METRICS_CONFIG_MAP]
    csv = cm["data"]["dcgm-metrics.csv"]
    for field in DCGM_EXTRA_FIELDS:
        assert any(line.startswith(field + ",") for line in csv.splitlines())
    (policy,) = of_kind(rendered, "ClusterPolicy")
    assert problems_of(policy) == []
    dcgm = policy["spec"]["dcgmExporter"]
    assert dcgm["config"] == {"name": DCGM_METRICS_CONFIG_MAP}
    assert dcgm["serviceMonitor"]["enabled"] is True and dcgm["serviceMonitor"]["honorLabels"] is True
    assert {"action": "labeldrop", "regex": "(pod|namespace|container)"} in dcgm["serviceMonitor"][
        "relabelings"
    ]


def test_operator_servicemonitor_relabelings_validate_as_a_servicemonitor() -> None:
    monitor = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": {"name": "nvidia-dcgm-exporter", "namespace": "gpu-operator"},
        "spec": {
            "selector": {"matchLabels": {"app": "nvidia-dcgm-exporter"}},
            "endpoints": [
                {
                    "port": "gpu-metrics",
                    "honorLabels": True,
                    "relabelings": obs.dcgm_servicemonitor_relabelings(),
                }
            ],
        },
    }
    assert problems_of(monitor) == []


def test_gke_managed_path_asks_the_operator_for_no_servicemonitor() -> None:
    values = operator_values(ObservabilitySpec("gke", backend="gke-managed-prometheus"))
    assert values["dcgmExporter"]["serviceMonitor"]["enabled"] is False
    assert values["dcgmExporter"]["config"]["name"] == DCGM_METRICS_CONFIG_MAP


def test_kueue_renders_its_servicemonitor_for_the_monitoring_namespace() -> None:
    from gpu_platform.plans.helm import deep_merge

    values = deep_merge({}, obs.kueue_values(ObservabilitySpec("eks")))
    rendered = render_chart(UPSTREAM / "charts" / "kueue-0.19.2", values, "kueue", "kueue-system")
    (monitor,) = of_kind(rendered, "ServiceMonitor")
    assert problems_of(monitor) == []
    binding = next(b for b in of_kind(rendered, "RoleBinding") if "prometheus" in b["metadata"]["name"])
    assert {s["namespace"] for s in binding["subjects"]} == {"monitoring"}
    assert obs.kueue_values(ObservabilitySpec("gke", backend="gke-managed-prometheus")) == {}


# --- the component -----------------------------------------------------------------------------------------


def test_component_keeps_the_crds_and_orders_everything_after_them(
    run_component: Callable[..., Plan],
) -> None:
    plan = run_component(lambda: GpuObservability("obs", {"cloud": "aks"}))
    crds = plan.one(RELEASE, "obs-crds")
    stack = plan.one(RELEASE, "obs-stack")
    assert crds.options["retainOnDelete"] is True and not stack.options.get("retainOnDelete")
    assert (crds.inputs["chart"], crds.inputs["version"]) == ("prometheus-operator-crds", "31.0.1")
    assert stack.inputs["skipCrds"] is True and crds.urn in stack.depends_on
    (rule,) = plan.by_type(RULE)
    assert crds.urn in rule.depends_on
    maps = plan.by_type(CONFIG_MAP)
    assert {m.inputs["metadata"]["labels"]["grafana_dashboard"] for m in maps} == {"1"}


def test_existing_prometheus_operator_gets_only_rules_and_dashboards(
    run_component: Callable[..., Plan],
) -> None:
    plan = run_component(
        lambda: GpuObservability(
            "obs", {"cloud": "existing", "backend": "prometheus-operator", "namespace": "obs"}
        )
    )
    # Only the GPU health checks' release (in kube-system); no stack, no CRDs, no namespace.
    assert [r.name for r in plan.by_type(RELEASE)] == ["obs-health"]
    assert plan.by_type("kubernetes:core/v1:Namespace") == []
    (rule,) = plan.by_type(RULE)
    assert rule.inputs["metadata"]["namespace"] == "obs"
    assert len(plan.by_type(CONFIG_MAP)) == 2


def test_component_arguments_are_checked() -> None:
    with pytest.raises(ArgumentsError) as err:
        GpuObservability("obs", {"cloud": "eks", "backend": "gke-managed-prometheus", "grafana": False})  # type: ignore[typeddict-item]
    found = dict(err.value.problems)
    assert "GKE's managed collection" in found["backend"]
    assert "kube-prometheus-stack backend only" in found["grafana"]


def test_component_needs_the_cluster_of_its_managed_backend() -> None:
    with pytest.raises(ArgumentsError) as err:
        GpuObservability("obs", {"cloud": "aks", "backend": AZURE, "cluster": {"name": "gpu"}})  # type: ignore[typeddict-item]
    found = dict(err.value.problems)
    assert set(found) == {"cluster.region", "cluster.resource_id", "cluster.resource_group_name"}, found
    with pytest.raises(ArgumentsError) as err:
        GpuObservability("obs", {"cloud": "eks", "cluster": {"name": "gpu"}})
    assert "managed backends of EKS and AKS only" in dict(err.value.problems)["cluster"]


# --- stacks --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_every_repository_stack_plans_its_metrics_path(stack: str) -> None:
    plan = planned_stack(stack)
    releases = {r.name: r for r in plan.by_type(RELEASE)}
    assert {"observability-crds", "observability-stack"} <= set(releases)
    (rule,) = plan.by_type(RULE)
    assert (
        problems_of({"apiVersion": "monitoring.coreos.com/v1", "kind": "PrometheusRule", **rule.inputs}) == []
    )
    assert (
        len(
            [
                m
                for m in plan.by_type(CONFIG_MAP)
                if "grafana_dashboard" in m.inputs["metadata"].get("labels", {})
            ]
        )
        == 2
    )
    dcgm = releases["gpu-operator-helm"].inputs["values"]["dcgmExporter"]
    assert dcgm["serviceMonitor"]["honorLabels"] is True and dcgm["config"]["create"] is True
    kueue = releases["kueue-helm"]
    assert kueue.inputs["values"]["enablePrometheus"] is True
    # Kueue's chart renders a ServiceMonitor: it waits for the CRDs' release (and for the workload controllers,
    # tests/stack/test_workloads.py).
    assert releases["observability-crds"].urn in kueue.depends_on


def test_observability_can_be_switched_off_leaving_the_operator_as_it_was() -> None:
    raw = stack_raw_config("prod")
    off = load_platform({**raw, "observability": {"enabled": False}})
    assert off.observability is None
    on = load_platform(raw)
    assert on.observability is not None and on.observability.backend == "kube-prometheus-stack"


@pytest.mark.parametrize(
    ("section", "key", "fragment"),
    [
        ({"backend": "gke-managed-prometheus"}, "observability.backend", "GKE's managed collection"),
        ({"backend": "prometheus"}, "observability.backend", "kube-prometheus-stack"),
        (
            {"backend": "prometheus-operator", "values": {}},
            "observability.values",
            "amazon-managed-prometheus) only",
        ),
    ],
)
def test_bad_sections_name_the_key(section: dict[str, Any], key: str, fragment: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_platform({**stack_raw_config("prod"), "observability": section})
    text = str(err.value)
    assert f"gpu-platform:{key}" in text and fragment in text, text


@pytest.mark.parametrize(
    ("stack", "section", "key", "fragment"),
    [
        (
            "staging",
            {"backend": AMP},
            "observability.backend",
            "valid choices: kube-prometheus-stack, prometheus-operator, azure-managed-prometheus",
        ),
        (
            "prod",
            {"backend": AZURE},
            "observability.backend",
            "valid choices: kube-prometheus-stack, prometheus-operator, amazon-managed-prometheus",
        ),
        ("dev", {"backend": AMP}, "observability.backend", "gke-managed-prometheus"),
        (
            "prod",
            {"workspace": ARN},
            "observability.workspace",
            "amazon-managed-prometheus and azure-managed-prometheus only",
        ),
        (
            "prod",
            {"backend": AMP, "workspace": "ws-1234"},
            "observability.workspace",
            "not an AMP workspace ARN",
        ),
        (
            "staging",
            {"backend": AZURE, "workspace": ARN},
            "observability.workspace",
            "not an Azure Monitor workspace",
        ),
        (
            "prod",
            {"backend": AMP, "grafana": True},
            "observability.grafana",
            "kube-prometheus-stack backend only",
        ),
        (
            "staging",
            {"backend": AZURE, "values": {}},
            "observability.values",
            "amazon-managed-prometheus) only",
        ),
    ],
)
def test_managed_backends_are_refused_where_they_do_not_apply(
    stack: str, section: dict[str, Any], key: str, fragment: str
) -> None:
    with pytest.raises(ConfigError) as err:
        load_platform({**stack_raw_config(stack), "observability": section})
    text = str(err.value)
    assert f"gpu-platform:{key}" in text and fragment in text, text


# --- health: the cloud's node auto-repair ---------------------------------------------------------------


def test_eks_gpu_node_groups_repair_with_the_monitoring_agent() -> None:
    plan = planned_stack("prod")
    groups = {r.name: r.inputs for r in plan.by_type("aws:eks/nodeGroup:NodeGroup")}
    gpu = {n: i for n, i in groups.items() if n.startswith("h100")}
    assert gpu and all(i["nodeRepairConfig"] == {"enabled": True} for i in gpu.values())
    assert "nodeRepairConfig" not in groups["gpu-prod-system"]
    addons_ = {r.inputs["addonName"] for r in plan.by_type("aws:eks/addon:Addon")}
    assert versions.EKS_NODE_MONITORING_AGENT_ADDON in addons_


def test_node_auto_repair_can_be_left_off(plan_stack: Callable[..., Plan]) -> None:
    doc = stack_file_config("prod")
    plan = plan_stack("prod", REPO, {**doc, "gpu-platform:observability": {"nodeAutoRepair": False}})
    assert doc["gpu-platform:cloud"] == "eks"
    assert all("nodeRepairConfig" not in r.inputs for r in plan.by_type("aws:eks/nodeGroup:NodeGroup"))
    assert versions.EKS_NODE_MONITORING_AGENT_ADDON not in {
        r.inputs["addonName"] for r in plan.by_type("aws:eks/addon:Addon")
    }


def test_gke_pools_keep_auto_repair() -> None:
    plan = planned_stack("dev")
    (pool,) = [r for r in plan.by_type("gcp:container/nodePool:NodePool") if r.name.startswith("l4")]
    assert pool.inputs["management"]["autoRepair"] is True


def test_dra_pools_turn_on_the_exporters_claim_attribution() -> None:
    values = obs.dcgm_exporter_values(ObservabilitySpec("gke"), dra=True)
    assert values["dcgmExporter"]["env"] == [{"name": "KUBERNETES_ENABLE_DRA", "value": "true"}]
    assert "env" not in obs.dcgm_exporter_values(ObservabilitySpec("gke"))["dcgmExporter"]
