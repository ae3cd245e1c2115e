"""OpenShift (issue 26): the GPU Operator through OLM, validated against the vendored CRDs, and a ClusterPolicy
that means what the Helm values mean (the chart's own clusterpolicy template renders them)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpu_platform import releases, versions
from gpu_platform.addons.gpu_operator.checks import ResolvedGpuOperator
from gpu_platform.addons.gpu_operator.plan import OperatorPlan, gpu_operator_plan
from gpu_platform.clouds.openshift import olm_plan as o
from gpu_platform.errors import ConfigError
from gpu_platform.stack import load_platform
from tests.support.crds import problems_of
from tests.support.helm import GPU_OPERATOR_CHART, rendered_cluster_policy, rendered_documents


def stack(**driver: Any) -> dict[str, Any]:
    return {
        "cloud": "openshift",
        "cluster": {"name": "ocp", "kubeconfig": "apiVersion: v1"},
        "gpuPools": [
            {
                "name": "a100",
                "gpu": "a100-80gb",
                "gpusPerNode": 8,
                "cpusPerNode": 92,
                "memoryGibPerNode": 1100,
                "maxNodes": 2,
                "sharing": {"mode": "mig", "mig": {"strategy": "mixed", "profiles": ["3g.40gb", "4g.40gb"]}},
            },
            {
                "name": "l4",
                "gpu": "l4",
                "gpusPerNode": 1,
                "cpusPerNode": 7,
                "memoryGibPerNode": 28,
                "maxNodes": 2,
                "sharing": {"mode": "time-slicing", "replicas": 4},
            },
        ],
        "gpuOperator": {"driver": {"owner": "auto", **driver}},
    }


@pytest.fixture(scope="module")
def plan() -> OperatorPlan:
    spec = load_platform(stack())
    assert spec.gpu_operator is not None
    target = ResolvedGpuOperator(
        spec.cloud, spec.pools, spec.driver, spec.gpu_operator, releases.GPU_OPERATOR.namespace
    )
    return gpu_operator_plan(target)


def test_waves_nfd_then_operator_then_cluster_policy(plan: OperatorPlan) -> None:
    kinds = [[obj["kind"] for obj in wave] for wave in o.olm_plan(plan)]
    assert kinds == [
        ["Namespace", "OperatorGroup", "Subscription"],
        ["NodeFeatureDiscovery"],
        ["Namespace", "OperatorGroup", "ConfigMap", "ConfigMap", "Subscription"],
        ["ClusterPolicy"],
    ]


def test_subscriptions_are_pinned_and_wait_for_their_csv() -> None:
    gpu = o.subscription(versions.OPENSHIFT_GPU_OPERATOR)
    assert gpu["spec"] == {
        "channel": "v26.7",
        "installPlanApproval": "Manual",
        "name": "gpu-operator-certified",
        "source": "certified-operators",
        "sourceNamespace": "openshift-marketplace",
        "startingCSV": "gpu-operator-certified.v26.7.0",
    }
    wait = gpu["metadata"]["annotations"][o.WAIT_FOR]
    assert wait == "jsonpath={.status.installedCSV}=gpu-operator-certified.v26.7.0"
    nfd = o.subscription(versions.OPENSHIFT_NFD)
    assert (nfd["spec"]["name"], nfd["spec"]["source"], nfd["metadata"]["namespace"]) == (
        "nfd",
        "redhat-operators",
        "openshift-nfd",
    )
    # Same operator release as the Helm pin.
    assert versions.OPENSHIFT_GPU_OPERATOR.starting_csv.endswith(versions.GPU_OPERATOR.version)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "pin", [versions.OPENSHIFT_NFD, versions.OPENSHIFT_GPU_OPERATOR], ids=lambda p: p.package
)
def test_olm_objects_validate_against_olm_crds(pin: versions.OlmPin) -> None:
    assert problems_of(o.subscription(pin)) == []
    assert problems_of(o.operator_group(pin)) == []


def test_cluster_policy_validates_against_the_gpu_operator_crd(plan: OperatorPlan) -> None:
    assert problems_of(o.cluster_policy(plan)) == []


def test_the_nfd_instance_validates_against_the_nfd_operator_crd() -> None:
    assert problems_of(o.node_feature_discovery()) == []


def test_the_driver_is_built_with_the_driver_toolkit(plan: OperatorPlan) -> None:
    assert o.cluster_policy(plan)["spec"]["operator"]["use_ocp_driver_toolkit"] is True


def _leaves(value: Any, path: str = "") -> dict[str, Any]:
    if isinstance(value, dict) and value:
        return {k: v for key, sub in value.items() for k, v in _leaves(sub, f"{path}.{key}").items()}
    return {path: value}


def test_cluster_policy_means_what_the_helm_values_mean(plan: OperatorPlan) -> None:
    """Every field the library sets is what the chart's own template makes of the same values."""
    ours = _leaves(o.cluster_policy(plan)["spec"])
    chart = _leaves(rendered_cluster_policy(dict(plan.values))["spec"])
    set_here = {k: v for k, v in ours.items() if v != {}}
    assert {k: chart.get(k, "<missing>") for k in set_here} == set_here
    for key in (
        ".driver.enabled",
        ".driver.version",
        ".toolkit.enabled",
        ".devicePlugin.enabled",
        ".devicePlugin.config.name",
        ".mig.strategy",
        ".migManager.enabled",
        ".migManager.config.name",
        ".migManager.config.default",
        ".dcgmExporter.enabled",
        ".dcgmExporter.serviceMonitor.enabled",
    ):
        assert key in set_here, key
    assert set_here[".driver.enabled"] is True and set_here[".mig.strategy"] == "mixed"


def test_the_driver_is_the_operator_s_on_rhcos() -> None:
    with pytest.raises(ConfigError) as err:
        load_platform(stack(owner="cloud", hostVersion="580.105.08"))
    assert any("Driver Toolkit" in why for why in dict(err.value.problems).values())


def test_stack_installs_no_helm_release_of_the_operator() -> None:
    from gpu_platform.offline import run_program
    from gpu_platform.stack.program import deploy

    spec = load_platform(stack())
    planned = run_program(lambda: deploy(spec))
    types = {r.type for r in planned.resources}
    assert "kubernetes:nvidia.com/v1:ClusterPolicy" in types
    assert "kubernetes:operators.coreos.com/v1alpha1:Subscription" in types
    assert not [r for r in planned.resources if r.type.endswith("Release") and "gpu-operator" in r.name]


# --- the DCGM exporter's counters, as on the Helm path --------------------------------------------------


def _observed(plan: OperatorPlan) -> OperatorPlan:
    from dataclasses import replace

    from gpu_platform.addons.observability.checks import ObservabilitySpec
    from gpu_platform.addons.observability.plan import dcgm_exporter_values
    from gpu_platform.plans.helm import deep_merge

    return replace(plan, values=deep_merge(plan.values, dcgm_exporter_values(ObservabilitySpec("openshift"))))


def test_the_counters_config_map_is_the_one_the_chart_would_render(plan: OperatorPlan) -> None:
    from gpu_platform.addons.observability.rules import DCGM_EXTRA_FIELDS, DCGM_METRICS_CONFIG_MAP

    observed = _observed(plan)
    (gpu_wave,) = [
        w
        for w in o.olm_plan(observed)
        if any(
            x["kind"] == "Subscription"
            and x["metadata"]["namespace"] == versions.OPENSHIFT_GPU_OPERATOR.namespace
            for x in w
        )
    ]
    (ours,) = [
        x for x in gpu_wave if x["kind"] == "ConfigMap" and x["metadata"]["name"] == DCGM_METRICS_CONFIG_MAP
    ]
    assert ours["metadata"]["namespace"] == versions.OPENSHIFT_GPU_OPERATOR.namespace
    docs = rendered_documents(
        GPU_OPERATOR_CHART, dict(observed.values), "gpu-operator", "gpu-operator", skip_without_helm=True
    )
    (theirs,) = [
        d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == DCGM_METRICS_CONFIG_MAP
    ]
    assert ours["data"] == theirs["data"]
    csv = ours["data"]["dcgm-metrics.csv"]
    assert all(any(line.startswith(f + ",") for line in csv.splitlines()) for f in DCGM_EXTRA_FIELDS)


def test_the_cluster_policy_names_the_counters_and_validates(plan: OperatorPlan) -> None:
    from gpu_platform.addons.observability.rules import DCGM_METRICS_CONFIG_MAP

    observed = _observed(plan)
    policy = o.cluster_policy(observed)
    assert policy["spec"]["dcgmExporter"]["config"] == {"name": DCGM_METRICS_CONFIG_MAP}
    assert policy["spec"]["dcgmExporter"]["serviceMonitor"]["honorLabels"] is True
    assert problems_of(policy) == []
    broken = copy.deepcopy(policy)
    broken["spec"]["dcgmExporter"]["config"] = {"name": DCGM_METRICS_CONFIG_MAP, "data": "x"}
    assert problems_of(broken)  # the CRD has no config.data: the check can fail
    # Field for field what the chart's own clusterpolicy.yaml makes of the same values.
    ours = _leaves(policy["spec"]["dcgmExporter"])
    chart = _leaves(rendered_cluster_policy(dict(observed.values))["spec"]["dcgmExporter"])
    assert {k: chart.get(k, "<missing>") for k in ours if ours[k] != {}} == {
        k: v for k, v in ours.items() if v != {}
    }
    # Without a metrics path the ClusterPolicy names no counters and no ConfigMap is made.
    assert "config" not in o.cluster_policy(plan)["spec"]["dcgmExporter"]


def test_the_openshift_stack_makes_the_counters_config_map() -> None:
    from gpu_platform.addons.observability.rules import DCGM_METRICS_CONFIG_MAP
    from gpu_platform.offline import run_program
    from gpu_platform.stack.program import deploy

    spec = load_platform(stack())
    assert spec.observability is not None and spec.observability.health_checks is False  # SCC: docs
    planned = run_program(lambda: deploy(spec))
    maps = [r for r in planned.resources if r.type == "kubernetes:core/v1:ConfigMap"]
    (dcgm,) = [r for r in maps if r.inputs["metadata"]["name"] == DCGM_METRICS_CONFIG_MAP]
    assert dcgm.inputs["metadata"]["namespace"] == versions.OPENSHIFT_GPU_OPERATOR.namespace
    (policy,) = [r for r in planned.resources if r.type == "kubernetes:nvidia.com/v1:ClusterPolicy"]
    assert policy.inputs["spec"]["dcgmExporter"]["config"] == {"name": DCGM_METRICS_CONFIG_MAP}
    assert dcgm.urn in policy.depends_on or any(dcgm.urn in d for d in policy.depends_on)
