"""OpenShift's cluster monitoring owns the Prometheus Operator CRDs: the stack never installs kube-prometheus-stack
or its CRDs there, puts its rules in a namespace the platform's Prometheus reads, and its alerts name the
namespace the GPU Operator really runs in (OLM's ``nvidia-gpu-operator``)."""

from __future__ import annotations

import pytest

from gpu_platform import versions
from gpu_platform.errors import ConfigError
from gpu_platform.offline import Plan, run_plan
from gpu_platform.releases import KUBE_PROMETHEUS_STACK, PROMETHEUS_OPERATOR_CRDS
from gpu_platform.stack import load_platform
from tests.clouds.openshift.test_olm import stack
from tests.conftest import REPO


@pytest.fixture(scope="module")
def plan() -> Plan:
    return run_plan(REPO / "examples" / "openshift-olm", "example")


def test_no_prometheus_stack_or_crds_are_installed(plan: Plan) -> None:
    releases = {r.inputs["name"] for r in plan.by_type("kubernetes:helm.sh/v3:Release")}
    assert "kueue" in releases  # the releases are read by name
    assert not {KUBE_PROMETHEUS_STACK.release_name, PROMETHEUS_OPERATOR_CRDS.release_name} & releases
    assert not plan.by_type("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition")


def test_rules_go_where_cluster_monitoring_reads_them_and_name_the_olm_namespace(plan: Plan) -> None:
    (rule,) = plan.by_type("kubernetes:monitoring.coreos.com/v1:PrometheusRule")
    namespace = rule.inputs["metadata"]["namespace"]
    (ns,) = [
        r for r in plan.by_type("kubernetes:core/v1:Namespace") if r.inputs["metadata"]["name"] == namespace
    ]
    assert ns.inputs["metadata"]["labels"] == {"openshift.io/cluster-monitoring": "true"}
    alerts = {r["alert"]: r for g in rule.inputs["spec"]["groups"] for r in g["rules"] if "alert" in r}
    validator = alerts["GpuOperatorValidatorFailing"]["expr"]
    assert f'namespace="{versions.OPENSHIFT_GPU_OPERATOR.namespace}"' in validator
    assert 'namespace="gpu-operator"' not in validator


def test_kube_prometheus_stack_is_refused_naming_the_backend() -> None:
    raw = stack()
    raw["observability"] = {"backend": "kube-prometheus-stack"}
    with pytest.raises(ConfigError) as err:
        load_platform(raw)
    reason = dict(err.value.problems)["gpu-platform:observability.backend"]
    assert "cluster monitoring owns" in reason and "prometheus-operator" in reason


def test_kueue_metrics_role_binds_the_platform_prometheus(plan: Plan) -> None:
    (kueue,) = [r for r in plan.by_type("kubernetes:helm.sh/v3:Release") if r.inputs["name"] == "kueue"]
    assert kueue.inputs["values"]["metrics"]["prometheusNamespace"] == "openshift-monitoring"
