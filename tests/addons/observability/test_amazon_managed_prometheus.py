"""Amazon Managed Service for Prometheus, the EKS managed metrics backend: kube-prometheus-stack remote-writing
with SigV4 as a Pod Identity role, the GPU rules in the workspace. Every custom resource is checked against its
vendored CRD."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_platform.addons.observability import plan as obs
from gpu_platform.addons.observability.checks import ObservabilitySpec
from gpu_platform.addons.observability.component import GpuObservability
from gpu_platform.addons.observability.rules import rule_groups
from gpu_platform.offline import Plan
from tests.conftest import REPO, stack_file_config
from tests.support.crds import problems_of
from tests.support.helm import of_kind, render_chart
from tests.support.observability import operator_values

AMP = "amazon-managed-prometheus"
RELEASE = "kubernetes:helm.sh/v3:Release"
ARN = "arn:aws:aps:eu-west-1:123456789012:workspace/ws-0123abcd-4567"
GROUPS = rule_groups("gpu-operator")


def test_amp_stack_values_render_a_prometheus_that_remote_writes_with_sigv4(kps_chart: Path) -> None:
    spec = ObservabilitySpec("eks", backend=AMP)
    plan = obs.observability_plan(spec)
    assert plan.objects == () and plan.config_maps == ()  # the workspace evaluates the rules; no Grafana
    url = "https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-1/api/v1/remote_write"
    from gpu_platform.plans.helm import deep_merge

    values = deep_merge(plan.stack_values, obs.remote_write(url, "eu-west-1"))
    rendered = render_chart(kps_chart, values, "kube-prometheus-stack", "monitoring")
    (prometheus,) = of_kind(rendered, "Prometheus")
    assert problems_of(prometheus) == []
    assert prometheus["spec"]["remoteWrite"] == [{"url": url, "sigv4": {"region": "eu-west-1"}}]
    assert prometheus["spec"]["serviceAccountName"] == obs.PROMETHEUS_SERVICE_ACCOUNT
    accounts = {a["metadata"]["name"] for a in of_kind(rendered, "ServiceAccount")}
    assert obs.PROMETHEUS_SERVICE_ACCOUNT in accounts
    assert of_kind(rendered, "Alertmanager") == []
    assert not [d for d in of_kind(rendered, "Deployment") if "grafana" in d["metadata"]["name"]]
    broken = copy.deepcopy(prometheus)
    broken["spec"]["remoteWrite"][0]["sigv4"]["regoin"] = "eu-west-1"
    assert problems_of(broken)


def test_amp_keeps_the_operator_servicemonitor_and_kueue_scraping() -> None:
    values = operator_values(ObservabilitySpec("eks", backend=AMP))
    monitor = values["dcgmExporter"]["serviceMonitor"]
    assert monitor["enabled"] is True and monitor["honorLabels"] is True
    assert obs.kueue_values(ObservabilitySpec("eks", backend=AMP))["enablePrometheus"] is True


def test_amp_plan_functions() -> None:
    from gpu_platform.addons.observability import amazon_managed_prometheus_plan as mp

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
    from gpu_platform.cloud_facts.eks.pod_identity import pod_identity_trust

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


# --- the stack ----------------------------------------------------------------------------------------------


def test_prod_stack_on_amazon_managed_prometheus(plan_stack: Callable[..., Plan]) -> None:
    doc = stack_file_config("prod")
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
