"""The clouds' managed Prometheus backends: Amazon Managed Service for Prometheus on EKS (kube-prometheus-stack
remote-writing with SigV4 as a Pod Identity role, the GPU rules in the workspace) and Azure Monitor managed
Prometheus on AKS (workspace, data collection endpoint/rule/association, the metrics add-on, an
``azmonitoring.coreos.com`` ServiceMonitor, the GPU rules as Azure rule groups). Every cloud resource's inputs
are checked against the SDK's own types, every custom resource against its vendored CRD."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import promql_parser
import pytest
import yaml

from gpu_platform.addons.observability import plan as obs
from gpu_platform.addons.observability.checks import ObservabilitySpec
from gpu_platform.addons.observability.component import GpuObservability
from gpu_platform.addons.observability.rules import rule_file, rule_groups
from gpu_platform.errors import ArgumentsError, ConfigError
from gpu_platform.offline import Plan
from gpu_platform.stack import load_platform
from tests.conftest import REPO, stack_raw_config, upstream
from tests.observability.test_observability import _render, kinds, kps_chart, operator_values
from tests.support.crds import problems_of
from tests.support.sdk_inputs import sdk_input_problems

__all__ = ["kps_chart"]  # the module fixture, shared

AMP = "amazon-managed-prometheus"
AZURE = "azure-managed-prometheus"
RELEASE = "kubernetes:helm.sh/v3:Release"
CLUSTER_ID = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/gpu"
AZURE_CLUSTER = {
    "name": "gpu",
    "region": "westeurope",
    "resource_id": CLUSTER_ID,
    "resource_group_name": "rg",
}
ARN = "arn:aws:aps:eu-west-1:123456789012:workspace/ws-0123abcd-4567"
GROUPS = rule_groups("gpu-operator")
ALERTS = {r.name for g in GROUPS for r in g.rules if not r.record}


# --- one source of truth for the rules ----------------------------------------------------------------


def test_the_rule_file_is_every_group_as_prometheus_reads_it() -> None:
    doc = yaml.safe_load(rule_file(GROUPS))
    assert doc == {"groups": [g.as_object() for g in GROUPS]}
    for group in doc["groups"]:
        for rule in group["rules"]:
            promql_parser.parse(rule["expr"])  # raises on what the workspace's ruler would refuse
    assert {r["alert"] for g in doc["groups"] for r in g["rules"] if "alert" in r} == ALERTS


def test_azure_rule_groups_carry_the_same_rules_in_azure_terms() -> None:
    from gpu_platform.clouds.aks import managed_prometheus_plan as mp

    groups = [mp.rule_group(g, AZURE_CLUSTER, "/ws") for g in GROUPS]
    by_name = {r.get("alert") or r["record"]: r for g in groups for r in g["rules"]}
    source = {r.name: r for g in GROUPS for r in g.rules}
    assert set(by_name) == set(source)
    for name, rule in by_name.items():
        assert rule["expression"] == source[name].expr
    assert by_name["GpuXidError"]["for_"] == "PT5M" and by_name["GpuXidError"]["severity"] == 2
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


# --- EKS: Amazon Managed Service for Prometheus -----------------------------------------------------------


def test_amp_stack_values_render_a_prometheus_that_remote_writes_with_sigv4(kps_chart: Path) -> None:
    spec = ObservabilitySpec("eks", backend=AMP)
    plan = obs.observability_plan(spec)
    assert plan.objects == () and plan.config_maps == ()  # the workspace evaluates the rules; no Grafana
    url = "https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-1/api/v1/remote_write"
    from gpu_platform.plans.helm import deep_merge

    values = deep_merge(plan.stack_values, obs.remote_write(url, "eu-west-1"))
    rendered = _render(kps_chart, values, "kube-prometheus-stack", "monitoring")
    (prometheus,) = kinds(rendered, "Prometheus")
    assert problems_of(prometheus) == []
    assert prometheus["spec"]["remoteWrite"] == [{"url": url, "sigv4": {"region": "eu-west-1"}}]
    assert prometheus["spec"]["serviceAccountName"] == obs.PROMETHEUS_SERVICE_ACCOUNT
    accounts = {a["metadata"]["name"] for a in kinds(rendered, "ServiceAccount")}
    assert obs.PROMETHEUS_SERVICE_ACCOUNT in accounts
    assert kinds(rendered, "Alertmanager") == []
    assert not [d for d in kinds(rendered, "Deployment") if "grafana" in d["metadata"]["name"]]
    broken = copy.deepcopy(prometheus)
    broken["spec"]["remoteWrite"][0]["sigv4"]["regoin"] = "eu-west-1"
    assert problems_of(broken)


def test_amp_keeps_the_operator_servicemonitor_and_kueue_scraping() -> None:
    values = operator_values(ObservabilitySpec("eks", backend=AMP))
    monitor = values["dcgmExporter"]["serviceMonitor"]
    assert monitor["enabled"] is True and monitor["honorLabels"] is True
    assert obs.kueue_values(ObservabilitySpec("eks", backend=AMP))["enablePrometheus"] is True


def test_amp_plan_functions() -> None:
    from gpu_platform.clouds.eks import managed_prometheus_plan as mp

    assert mp.workspace_region(ARN) == "eu-west-1" and mp.workspace_id(ARN) == "ws-0123abcd-4567"
    assert mp.remote_write_url(ARN) == (
        "https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-0123abcd-4567/api/v1/remote_write"
    )
    assert (
        mp.endpoint_remote_write_url("https://h/workspaces/ws-1/")
        == "https://h/workspaces/ws-1/api/v1/remote_write"
    )
    policy = json.loads(mp.remote_write_policy(ARN))
    assert policy["Statement"] == [{"Effect": "Allow", "Action": ["aps:RemoteWrite"], "Resource": ARN}]
    from gpu_platform.clouds.eks.autoscaling_plan import pod_identity_trust

    trust = json.loads(pod_identity_trust())["Statement"][0]
    assert trust["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    assert set(trust["Action"]) == {"sts:AssumeRole", "sts:TagSession"}
    with pytest.raises(ValueError):
        mp.workspace_id("arn:aws:eks:eu-west-1:123456789012:cluster/gpu")


def _amp_component(run_component: Callable[..., Plan], **extra: Any) -> Plan:
    args = {"cloud": "eks", "backend": AMP, "cluster": {"name": "gpu"}, **extra}
    return run_component(lambda: GpuObservability("obs", args))  # type: ignore[arg-type]


def test_amp_component_creates_the_workspace_credentials_and_rules(
    run_component: Callable[..., Plan],
) -> None:
    plan = _amp_component(run_component)
    workspace = plan.one("aws:amp/workspace:Workspace", "obs-workspace")
    assert workspace.inputs["alias"] == "gpu"
    role = plan.one("aws:iam/role:Role", "obs-prometheus")
    assert json.loads(role.inputs["assumeRolePolicy"])["Statement"][0]["Principal"] == {
        "Service": "pods.eks.amazonaws.com"
    }
    policy = plan.one("aws:iam/rolePolicy:RolePolicy", "obs-remote-write")
    arn = "arn:aws:aps:mock-region-1:000000000000:workspace/ws-obs-workspace"
    assert json.loads(policy.inputs["policy"])["Statement"][0]["Resource"] == arn
    association = plan.one("aws:eks/podIdentityAssociation:PodIdentityAssociation", "obs-pod-identity")
    assert (association.inputs["clusterName"], association.inputs["namespace"]) == ("gpu", "monitoring")
    assert association.inputs["serviceAccount"] == obs.PROMETHEUS_SERVICE_ACCOUNT
    rules = plan.one("aws:amp/ruleGroupNamespace:RuleGroupNamespace", "obs-rules")
    assert rules.inputs["workspaceId"] == "obs-workspace-id"
    assert yaml.safe_load(rules.inputs["data"]) == {"groups": [g.as_object() for g in GROUPS]}
    stack = plan.one(RELEASE, "obs-stack")
    (remote,) = stack.inputs["values"]["prometheus"]["prometheusSpec"]["remoteWrite"]
    assert remote == {
        "url": "https://aps-workspaces.mock-region-1.amazonaws.com/workspaces/ws-obs-workspace/api/v1/remote_write",
        "sigv4": {"region": "mock-region-1"},
    }
    assert {policy.urn, association.urn} <= set(stack.depends_on)  # credentials before the pod starts
    assert plan.by_type("kubernetes:monitoring.coreos.com/v1:PrometheusRule") == []


def test_amp_component_with_an_existing_workspace(run_component: Callable[..., Plan]) -> None:
    plan = _amp_component(run_component, workspace=ARN)
    assert plan.by_type("aws:amp/workspace:Workspace") == []
    assert plan.one("aws:amp/ruleGroupNamespace:RuleGroupNamespace", "obs-rules").inputs["workspaceId"] == (
        "ws-0123abcd-4567"
    )
    remote = plan.one(RELEASE, "obs-stack").inputs["values"]["prometheus"]["prometheusSpec"]["remoteWrite"]
    assert remote[0]["sigv4"] == {"region": "eu-west-1"} and "ws-0123abcd-4567" in remote[0]["url"]


# --- AKS: Azure Monitor managed Prometheus ------------------------------------------------------------------


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

    from gpu_platform.clouds.aks import managed_prometheus_plan as mp

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

    from gpu_platform.clouds.aks import managed_prometheus_plan as mp

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


# --- stacks and refusals -------------------------------------------------------------------------------------


def _doc(stack: str) -> dict[str, Any]:
    config: dict[str, Any] = yaml.safe_load((REPO / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    return config


def test_prod_stack_on_amazon_managed_prometheus(plan_stack: Callable[..., Plan]) -> None:
    doc = _doc("prod")
    plan = plan_stack("prod", REPO, {**doc, "gpu-platform:observability": {"backend": AMP}})
    association = plan.one(
        "aws:eks/podIdentityAssociation:PodIdentityAssociation", "observability-pod-identity"
    )
    assert association.inputs["serviceAccount"] == obs.PROMETHEUS_SERVICE_ACCOUNT
    assert plan.by_type("aws:amp/workspace:Workspace") and plan.by_type(
        "aws:amp/ruleGroupNamespace:RuleGroupNamespace"
    )
    assert "eks-pod-identity-agent" in {r.name for r in plan.by_type("aws:eks/addon:Addon")}
    kueue = plan.one(RELEASE, "kueue-helm")
    assert kueue.inputs["values"]["enablePrometheus"] is True  # kube-prometheus-stack still scrapes Kueue


def test_staging_stack_on_azure_monitor(plan_stack: Callable[..., Plan]) -> None:
    doc = _doc("staging")
    plan = plan_stack("staging", REPO, {**doc, "gpu-platform:observability": {"backend": AZURE}})
    (cluster,) = plan.by_type("azure-native:containerservice:ManagedCluster")
    assert cluster.inputs["azureMonitorProfile"]["metrics"]["enabled"] is True
    dcra = plan.one("azure-native:monitor:DataCollectionRuleAssociation", "observability-dcra")
    assert dcra.inputs["resourceUri"] == f"{cluster.name}-id"
    assert len(plan.by_type("azure-native:alertsmanagement:PrometheusRuleGroup")) == len(GROUPS)
    assert not [r for r in plan.by_type(RELEASE) if r.name == "observability-stack"]


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


def test_component_needs_the_cluster_of_its_managed_backend() -> None:
    with pytest.raises(ArgumentsError) as err:
        GpuObservability("obs", {"cloud": "aks", "backend": AZURE, "cluster": {"name": "gpu"}})  # type: ignore[typeddict-item]
    found = dict(err.value.problems)
    assert set(found) == {"cluster.region", "cluster.resource_id", "cluster.resource_group_name"}, found
    with pytest.raises(ArgumentsError) as err:
        GpuObservability("obs", {"cloud": "eks", "cluster": {"name": "gpu"}})
    assert "managed backends of EKS and AKS only" in dict(err.value.problems)["cluster"]
