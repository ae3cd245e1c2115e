"""KEDA per model on vLLM's queue and KV-cache metrics: the pinned chart renders, each ScaledObject targets the
Deployment KServe creates and is valid against KEDA's CRD, the metrics come from the Prometheus the observability
add-on plans, and scale to zero only with serving hours."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_platform import versions
from gpu_platform.addons.serving import autoscaling as auto
from gpu_platform.releases import KUBE_PROMETHEUS_STACK
from tests.conftest import upstream
from tests.support.chart_values import chart_values, missing_keys
from tests.support.crds import crd_problems, problems_of, schema_problems
from tests.support.helm import of_kind, render_chart

KEDA_CRDS = ("keda", "crds")


def keda_problems(obj: dict[str, Any]) -> list[str]:
    plural = {"ScaledObject": "scaledobjects", "TriggerAuthentication": "triggerauthentications"}[obj["kind"]]
    return crd_problems(obj, *KEDA_CRDS, f"keda.sh_{plural}.yaml", version="v1alpha1")


def scrape_problems(obj: dict[str, Any]) -> list[str]:
    if obj["kind"] == "PodMonitoring":
        return crd_problems(
            obj,
            "gke-managed-prometheus",
            "crds",
            "monitoring.googleapis.com_podmonitorings.yaml",
            version="v1",
        )
    return problems_of(obj)


def test_the_keda_release_renders_off_gpu_nodes_with_the_crds_the_objects_are_checked_against() -> None:
    release = auto.keda_release("aks")
    assert (release.pin, release.release_name, release.namespace, release.holds_crds) == (
        versions.KEDA,
        "keda",
        "keda",
        True,
    )
    assert versions.KEDA.version == "2.20.2" == chart_values("charts", "keda-2.20.2", "Chart.yaml")["version"]
    assert missing_keys(release.values, chart_values("charts", "keda-2.20.2", "values.yaml")) == []
    objects = render_chart("keda-2.20.2", release.values, release.release_name, release.namespace)
    deployments = {
        d["metadata"]["name"]: d["spec"]["template"]["spec"] for d in of_kind(objects, "Deployment")
    }
    assert set(deployments) == {"keda-operator", "keda-operator-metrics-apiserver", "keda-admission-webhooks"}
    for pod in deployments.values():
        assert pod["nodeSelector"] == {"kubernetes.io/os": "linux", "kubernetes.azure.com/mode": "system"}
        assert pod["affinity"] == release.values["affinity"]
        assert {c["imagePullPolicy"] for c in pod["containers"]} == {"IfNotPresent"}
    crds = {c["metadata"]["name"]: c for c in of_kind(objects, "CustomResourceDefinition")}
    vendored = yaml.safe_load(upstream(*KEDA_CRDS, "keda.sh_scaledobjects.yaml").read_text())
    chart_crd = crds["scaledobjects.keda.sh"]
    # The chart's copy adds bounds on the HPA stabilization windows to kedacore/keda's: check against both.
    assert [v["name"] for v in chart_crd["spec"]["versions"]] == [
        v["name"] for v in vendored["spec"]["versions"]
    ]
    so = auto.model_autoscaling(
        "m", "llm", min_replicas=1, max_replicas=4, prometheus=auto.prometheus_source("kube-prometheus-stack")
    ).scaled_object
    schema = chart_crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    assert schema_problems(so, schema, "ScaledObject") == []
    too_long = {
        **so,
        "spec": {
            **so["spec"],
            "advanced": {
                "horizontalPodAutoscalerConfig": {
                    "behavior": {"scaleDown": {"stabilizationWindowSeconds": 7200}}
                }
            },
        },
    }
    assert schema_problems(too_long, schema, "ScaledObject") != []


def test_an_llm_inference_service_has_no_scale_subresource_so_the_deployment_is_scaled() -> None:
    crd = yaml.safe_load(
        upstream("kserve", "crds", "serving.kserve.io_llminferenceservices.yaml").read_text()
    )
    assert all(v.get("subresources") == {"status": {}} for v in crd["spec"]["versions"])
    so = auto.model_autoscaling(
        "m", "llm", min_replicas=1, max_replicas=4, prometheus=auto.prometheus_source("kube-prometheus-stack")
    ).scaled_object
    assert so["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "m-kserve"}


def test_the_scaled_object_scales_on_queue_and_kv_cache_from_the_in_cluster_prometheus() -> None:
    source = auto.prometheus_source("kube-prometheus-stack", monitoring_namespace="mon")
    assert source.server_address == "http://kube-prometheus-stack-prometheus.mon.svc:9090"
    assert source.pod_identity is None
    plan = auto.model_autoscaling("m", "llm", min_replicas=1, max_replicas=4, prometheus=source)
    so = plan.scaled_object
    assert so["metadata"] == {"name": "m", "namespace": "llm"}
    spec = so["spec"]
    assert (spec["minReplicaCount"], spec["maxReplicaCount"], spec["pollingInterval"]) == (1, 4, 15)
    assert "cooldownPeriod" not in spec
    assert spec["advanced"]["horizontalPodAutoscalerConfig"]["behavior"] == {
        "scaleDown": {"stabilizationWindowSeconds": 600}
    }
    selector = 'namespace="llm",pod=~"m-kserve-[a-z0-9]+-[a-z0-9]+"'
    assert spec["triggers"] == [
        {
            "type": "prometheus",
            "name": "queue",
            "metadata": {
                "serverAddress": source.server_address,
                "query": f"sum(vllm:num_requests_waiting{{{selector}}})",
                "threshold": "5",
            },
        },
        {
            "type": "prometheus",
            "name": "kv-cache",
            "metadata": {
                "serverAddress": source.server_address,
                "query": f"sum(vllm:kv_cache_usage_perc{{{selector}}})",
                "threshold": "0.8",
            },
        },
    ]
    assert keda_problems(so) == []
    assert plan.trigger_authentication is None
    assert plan.objects == (plan.scrape, so)


def test_the_pod_matcher_takes_the_model_servers_only() -> None:
    pattern = re.search(r'pod=~"([^"]+)"', auto.pod_selector("m"))
    assert pattern is not None
    matcher = re.compile(pattern.group(1))
    assert matcher.fullmatch("m-kserve-6d4cf56db6-x2x7k")
    assert not matcher.fullmatch("m-kserve-router-scheduler-6d4cf56db6-x2x7k")
    assert not matcher.fullmatch("m-kserve-prefill-6d4cf56db6-x2x7k")
    assert not matcher.fullmatch("m2-kserve-6d4cf56db6-x2x7k")


def test_the_in_cluster_prometheus_is_the_one_kube_prometheus_stack_renders(kps_chart: Path) -> None:
    objects = render_chart(
        kps_chart,
        {
            "crds": {"enabled": False},
            "grafana": {"enabled": False},
            "alertmanager": {"enabled": False},
            "nodeExporter": {"enabled": False},
            "kubeStateMetrics": {"enabled": False},
        },
        KUBE_PROMETHEUS_STACK.release_name,
        "mon",
    )
    services = {s["metadata"]["name"]: s for s in of_kind(objects, "Service")}
    prometheus = services["kube-prometheus-stack-prometheus"]
    assert prometheus["metadata"]["namespace"] == "mon"
    assert 9090 in [p["port"] for p in prometheus["spec"]["ports"]]
    assert auto.in_cluster_prometheus("mon") == "http://kube-prometheus-stack-prometheus.mon.svc:9090"


def test_amazon_managed_prometheus_reads_the_in_cluster_prometheus_it_remote_writes_from() -> None:
    source = auto.prometheus_source("amazon-managed-prometheus")
    assert source.server_address == "http://kube-prometheus-stack-prometheus.monitoring.svc:9090"
    plan = auto.model_autoscaling("m", "llm", min_replicas=1, max_replicas=2, prometheus=source)
    assert plan.scrape["apiVersion"] == "monitoring.coreos.com/v1"


def test_gke_managed_prometheus_through_workload_identity() -> None:
    source = auto.prometheus_source("gke-managed-prometheus", gcp_project="proj")
    assert (
        source.server_address
        == "https://monitoring.googleapis.com/v1/projects/proj/location/global/prometheus"
    )
    assert any("roles/monitoring.viewer" in r for r in source.requires)
    plan = auto.model_autoscaling("m", "llm", min_replicas=1, max_replicas=3, prometheus=source)
    assert plan.trigger_authentication == {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "TriggerAuthentication",
        "metadata": {"name": "m-prometheus", "namespace": "llm"},
        "spec": {"podIdentity": {"provider": "gcp"}},
    }
    assert {t["authenticationRef"]["name"] for t in plan.scaled_object["spec"]["triggers"]} == {
        "m-prometheus"
    }
    assert plan.scrape == {
        "apiVersion": "monitoring.googleapis.com/v1",
        "kind": "PodMonitoring",
        "metadata": {"name": "m-vllm", "namespace": "llm"},
        "spec": {
            "selector": {
                "matchLabels": {
                    "app.kubernetes.io/name": "m",
                    "app.kubernetes.io/part-of": "llminferenceservice",
                    "kserve.io/component": "workload",
                }
            },
            "endpoints": [{"port": 8000, "path": "/metrics", "interval": "15s"}],
        },
    }
    assert plan.objects == (plan.scrape, plan.trigger_authentication, plan.scaled_object)
    for obj in plan.objects:
        problems = scrape_problems(obj) if obj is plan.scrape else keda_problems(obj)
        assert problems == [], obj["kind"]


def test_azure_managed_prometheus_through_a_workload_identity() -> None:
    endpoint = "https://ws-abc.eastus.prometheus.monitor.azure.com"
    source = auto.prometheus_source("azure-managed-prometheus", azure_query_endpoint=endpoint)
    plan = auto.model_autoscaling("m", "llm", min_replicas=1, max_replicas=3, prometheus=source)
    assert plan.trigger_authentication is not None
    assert plan.trigger_authentication["spec"] == {"podIdentity": {"provider": "azure-workload"}}
    assert plan.scaled_object["spec"]["triggers"][0]["metadata"]["serverAddress"] == endpoint
    assert plan.scrape["apiVersion"] == "azmonitoring.coreos.com/v1"
    for obj in plan.objects:
        problems = scrape_problems(obj) if obj is plan.scrape else keda_problems(obj)
        assert problems == [], obj["kind"]


def test_the_service_monitor_scrapes_kserves_workload_service() -> None:
    plan = auto.model_autoscaling(
        "m", "llm", min_replicas=1, max_replicas=2, prometheus=auto.prometheus_source("kube-prometheus-stack")
    )
    assert plan.scrape["spec"] == {
        "selector": {
            "matchLabels": {"app.kubernetes.io/name": "m", "app.kubernetes.io/part-of": "llminferenceservice"}
        },
        "endpoints": [{"port": "http", "path": "/metrics", "interval": "15s"}],
    }
    assert scrape_problems(plan.scrape) == []


def test_managed_backends_need_their_address_and_prometheus_operator_its_url() -> None:
    with pytest.raises(ValueError, match="Prometheus URL"):
        auto.prometheus_source("prometheus-operator")
    assert auto.prometheus_source("prometheus-operator", server_address="http://p:9090").server_address == (
        "http://p:9090"
    )
    with pytest.raises(ValueError, match="project"):
        auto.prometheus_source("gke-managed-prometheus")
    with pytest.raises(ValueError, match="query endpoint"):
        auto.prometheus_source("azure-managed-prometheus")
    with pytest.raises(ValueError, match="not one of"):
        auto.prometheus_source("datadog")


def test_scale_to_zero_only_with_serving_hours() -> None:
    source = auto.prometheus_source("kube-prometheus-stack")
    with pytest.raises(ValueError, match="min_replicas 0 needs serving hours"):
        auto.model_autoscaling("m", "llm", min_replicas=0, max_replicas=2, prometheus=source)
    hours = auto.ServingHours("Europe/Berlin", "0 8 * * 1-5", "0 20 * * 1-5", replicas=1)
    so = auto.model_autoscaling(
        "m", "llm", min_replicas=0, max_replicas=2, prometheus=source, serving_hours=hours
    ).scaled_object
    assert so["spec"]["minReplicaCount"] == 0
    assert so["spec"]["cooldownPeriod"] == 600
    assert so["spec"]["triggers"][-1] == {
        "type": "cron",
        "name": "serving-hours",
        "metadata": {
            "timezone": "Europe/Berlin",
            "start": "0 8 * * 1-5",
            "end": "0 20 * * 1-5",
            "desiredReplicas": "1",
        },
    }
    assert keda_problems(so) == []


@pytest.mark.parametrize(
    ("low", "high", "message"),
    [(3, 2, "min_replicas 3 and max_replicas 2"), (-1, 2, "must satisfy"), (0, 0, "must satisfy")],
)
def test_bad_bounds_are_refused(low: int, high: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        auto.model_autoscaling(
            "m",
            "llm",
            min_replicas=low,
            max_replicas=high,
            prometheus=auto.prometheus_source("kube-prometheus-stack"),
        )


def test_a_scaled_object_keda_would_refuse_is_caught() -> None:
    so = auto.model_autoscaling(
        "m", "llm", min_replicas=1, max_replicas=2, prometheus=auto.prometheus_source("kube-prometheus-stack")
    ).scaled_object
    broken = {**so, "spec": {**so["spec"], "triggers": [{"metadata": {}}]}}
    assert keda_problems(broken) != []
