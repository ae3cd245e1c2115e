"""Azure Monitor managed Prometheus, the AKS managed metrics backend: workspace, data collection
endpoint/rule/association, the metrics add-on, an ``azmonitoring.coreos.com`` ServiceMonitor, the GPU rules as
Azure rule groups. Every cloud resource's inputs are checked against the SDK's own types, every custom
resource against its vendored CRD."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable

import pytest

from gpu_platform.addons.observability import plan as obs
from gpu_platform.addons.observability.checks import ObservabilitySpec
from gpu_platform.addons.observability.component import GpuObservability
from gpu_platform.addons.observability.rules import rule_groups
from gpu_platform.offline import Plan
from tests.conftest import REPO, stack_file_config, upstream
from tests.support.crds import problems_of
from tests.support.observability import operator_values
from tests.support.sdk_inputs import sdk_input_problems

AZURE = "azure-managed-prometheus"
RELEASE = "kubernetes:helm.sh/v3:Release"
CLUSTER_ID = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/gpu"
AZURE_CLUSTER = {
    "name": "gpu",
    "region": "westeurope",
    "resource_id": CLUSTER_ID,
    "resource_group_name": "rg",
}
GROUPS = rule_groups("gpu-operator")


def test_azure_rule_groups_carry_the_same_rules_in_azure_terms() -> None:
    from gpu_platform.addons.observability import azure_managed_prometheus_plan as mp

    groups = [mp.rule_group(g, AZURE_CLUSTER, "/ws") for g in GROUPS]
    by_name = {r.get("alert") or r["record"]: r for g in groups for r in g["rules"]}
    source = {r.name: r for g in GROUPS for r in g.rules}
    assert set(by_name) == set(source)
    for name, rule in by_name.items():
        assert rule["expression"] == source[name].expr
    assert by_name["GpuThermalThrottling"]["for_"] == "PT10M" and by_name["GpuXidError"]["severity"] == 2
    assert by_name["GpuXidCritical"]["severity"] == 0 and "for_" not in by_name["GpuXidCritical"]
    assert (
        by_name["GpuAllocatedButIdle"]["for_"] == "PT1H" and by_name["GpuAllocatedButIdle"]["severity"] == 3
    )
    assert set(by_name["gpu_platform:team_gpu_hours:1h"]) == {"record", "expression", "enabled"}
    accounting = next(g for g in groups if g["rule_group_name"] == "gpu-platform.gpu-accounting-gpu")
    assert accounting["interval"] == "PT1M" and accounting["scopes"] == ["/ws", CLUSTER_ID]
    assert accounting["cluster_name"] == "gpu"
    with pytest.raises(ValueError):
        mp.iso_duration("1h30m")  # two units: not what the rules use, refused rather than mistranslated


def test_azure_servicemonitor_is_the_addons_group_and_validates() -> None:
    plan = obs.observability_plan(ObservabilitySpec("aks", backend=AZURE))
    (monitor,) = plan.objects
    assert monitor["apiVersion"] == "azmonitoring.coreos.com/v1" and problems_of(monitor) == []
    (endpoint,) = monitor["spec"]["endpoints"]
    assert endpoint["port"] == "gpu-metrics" and endpoint["honorLabels"] is True
    assert endpoint["relabelings"] == obs.dcgm_servicemonitor_relabelings()
    assert monitor["spec"]["namespaceSelector"] == {"matchNames": ["gpu-operator"]}
    assert plan.stack_values == {} and plan.config_maps == ()
    broken = copy.deepcopy(monitor)
    broken["spec"]["endpoints"][0]["honorLabel"] = True
    assert problems_of(broken)
    # The operator's own monitoring.coreos.com ServiceMonitor is not asked for: the add-on would not read it.
    assert (
        operator_values(ObservabilitySpec("aks", backend=AZURE))["dcgmExporter"]["serviceMonitor"]["enabled"]
        is False
    )
    assert obs.kueue_values(ObservabilitySpec("aks", backend=AZURE)) == {}


def test_azure_data_collection_follows_microsofts_template() -> None:
    import pulumi_azure_native.monitor as monitor

    from gpu_platform.addons.observability import azure_managed_prometheus_plan as mp

    bicep = upstream(
        "azure-prometheus-collector", "templates", "FullAzureMonitorMetricsProfile.bicep"
    ).read_text()
    dcr_block = bicep[bicep.index("resource dcr ") : bicep.index("module azuremonitormetrics_dcra")]
    for fact in (mp.STREAM, mp.DATA_SOURCE, mp.DESTINATION, "prometheusForwarder", "monitoringAccounts"):
        assert fact in dcr_block, fact
    assert (
        "kind: 'Linux'" in dcr_block
        and f"min({mp.DCR_NAME_MAX}," in bicep
        and f"min({mp.DCE_NAME_MAX}," in bicep
    )
    endpoint = mp.data_collection_endpoint(AZURE_CLUSTER)
    rule = mp.data_collection_rule(AZURE_CLUSTER, "/dce", "/ws")
    association = mp.data_collection_rule_association(AZURE_CLUSTER, "/dcr")
    assert sdk_input_problems(monitor.DataCollectionEndpoint, endpoint) == []
    assert sdk_input_problems(monitor.DataCollectionRule, rule) == []
    assert sdk_input_problems(monitor.DataCollectionRuleAssociation, association) == []
    assert rule["data_flows"] == [
        {"streams": ["Microsoft-PrometheusMetrics"], "destinations": ["MonitoringAccount1"]}
    ]
    assert rule["destinations"]["monitoring_accounts"][0]["account_resource_id"] == "/ws"
    assert rule["data_collection_rule_name"] == "MSProm-westeurope-gpu"
    assert association["resource_uri"] == CLUSTER_ID
    assert sdk_input_problems(monitor.DataCollectionRule, {**rule, "data_flow": []})  # the check can fail


def test_azure_rule_group_inputs_match_azure_native() -> None:
    import pulumi_azure_native.alertsmanagement as alerts

    from gpu_platform.addons.observability import azure_managed_prometheus_plan as mp

    for group in GROUPS:
        assert (
            sdk_input_problems(alerts.PrometheusRuleGroup, mp.rule_group(group, AZURE_CLUSTER, "/ws")) == []
        )
    bad = mp.rule_group(GROUPS[0], AZURE_CLUSTER, "/ws")
    bad["rules"][0]["severity"] = "critical"
    assert sdk_input_problems(alerts.PrometheusRuleGroup, bad)


def test_azure_component_creates_the_workspace_data_collection_and_rule_groups(
    run_component: Callable[..., Plan],
) -> None:
    args = {"cloud": "aks", "backend": AZURE, "cluster": AZURE_CLUSTER}
    plan = run_component(lambda: GpuObservability("obs", args))  # type: ignore[arg-type]
    workspace = plan.one("azure-native:monitor:AzureMonitorWorkspace", "obs-workspace")
    assert (workspace.inputs["location"], workspace.inputs["resourceGroupName"]) == ("westeurope", "rg")
    dcr = plan.one("azure-native:monitor:DataCollectionRule", "obs-dcr")
    assert dcr.inputs["dataSources"]["prometheusForwarder"][0]["streams"] == ["Microsoft-PrometheusMetrics"]
    assert dcr.inputs["destinations"]["monitoringAccounts"][0]["accountResourceId"] == "obs-workspace-id"
    assert dcr.inputs["dataCollectionEndpointId"] == "obs-dce-id"
    dcra = plan.one("azure-native:monitor:DataCollectionRuleAssociation", "obs-dcra")
    assert (dcra.inputs["resourceUri"], dcra.inputs["dataCollectionRuleId"]) == (CLUSTER_ID, "obs-dcr-id")
    groups = plan.by_type("azure-native:alertsmanagement:PrometheusRuleGroup")
    assert {g.inputs["ruleGroupName"] for g in groups} == {f"{g.name}-gpu" for g in GROUPS}
    assert all(g.inputs["scopes"] == ["obs-workspace-id", CLUSTER_ID] for g in groups)
    (monitor,) = plan.by_type("kubernetes:azmonitoring.coreos.com/v1:ServiceMonitor")
    assert monitor.inputs["metadata"]["namespace"] == "kube-system"
    assert plan.by_type(RELEASE) == [plan.one(RELEASE, "obs-health")]  # no stack: the add-on scrapes


def test_aks_cluster_runs_the_metrics_addon_with_the_label_allowlist(
    run_component: Callable[..., Plan],
) -> None:
    from gpu_platform import AksCluster

    args = {"location": "westeurope", "azure_monitor_metrics": True}
    plan = run_component(lambda: AksCluster("gpu", args))  # type: ignore[arg-type]
    profile = plan.one("azure-native:containerservice:ManagedCluster", "gpu-cluster").inputs[
        "azureMonitorProfile"
    ]
    allowlist = profile["metrics"]["kubeStateMetrics"]["metricLabelsAllowlist"]
    assert profile["metrics"]["enabled"] is True
    assert allowlist == ",".join(obs.ksm_allowlist())
    assert re.fullmatch(
        r"nodes=\[[^\]]*gpu-platform\.io/pool[^\]]*\],pods=\[kueue\.x-k8s\.io/queue-name\]", allowlist
    )
    plain = run_component(lambda: AksCluster("gpu", {"location": "westeurope"}))
    assert (
        "azureMonitorProfile"
        not in plain.one("azure-native:containerservice:ManagedCluster", "gpu-cluster").inputs
    )


# --- the stack ----------------------------------------------------------------------------------------------


def test_staging_stack_on_azure_monitor(plan_stack: Callable[..., Plan]) -> None:
    doc = stack_file_config("staging")
    plan = plan_stack("staging", REPO, {**doc, "gpu-platform:observability": {"backend": AZURE}})
    (cluster,) = plan.by_type("azure-native:containerservice:ManagedCluster")
    assert cluster.inputs["azureMonitorProfile"]["metrics"]["enabled"] is True
    dcra = plan.one("azure-native:monitor:DataCollectionRuleAssociation", "observability-dcra")
    assert dcra.inputs["resourceUri"] == f"{cluster.name}-id"
    assert len(plan.by_type("azure-native:alertsmanagement:PrometheusRuleGroup")) == len(GROUPS)
    assert not [r for r in plan.by_type(RELEASE) if r.name == "observability-stack"]
