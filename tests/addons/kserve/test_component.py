"""cert-manager and KServe releases: pinned charts, values that exist upstream, and install order."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import jsonschema
import pulumi
import pulumi_kubernetes as k8s
import pytest

from gpu_platform import versions
from gpu_platform.addons.cert_manager.component import CertManager
from gpu_platform.addons.kserve.component import KServe
from gpu_platform.addons.kserve.plan import cert_manager_values, kserve_values, runtime_values
from gpu_platform.addons.kserve.wiring import deploy_kserve
from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import Plan
from gpu_platform.stack import load_platform
from gpu_platform.stack.namespaces import create_namespaces
from tests.conftest import upstream
from tests.support.chart_values import chart_values, missing_keys

RELEASE = "kubernetes:helm.sh/v3:Release"
ISVC = "kubernetes:serving.kserve.io/v1beta1:InferenceService"
NAMESPACE = "kubernetes:core/v1:Namespace"


@pytest.mark.parametrize(
    "values",
    [
        kserve_values(),
        kserve_values("Standard", "nginx", "models.example.org"),
        kserve_values("Knative", None, "models.example.org"),
    ],
    ids=["standard", "standard-ingress", "knative"],
)
def test_kserve_values_keys_exist_upstream(values: dict[str, Any]) -> None:
    assert missing_keys(values, chart_values("kserve", "charts", "kserve-resources", "values.yaml")) == []


def test_runtime_and_cert_manager_values_keys_exist_upstream() -> None:
    assert runtime_values() == {"kserve": {"servingruntime": {"enabled": True}}}
    assert (
        missing_keys(
            runtime_values(), chart_values("kserve", "charts", "kserve-runtime-configs", "values.yaml")
        )
        == []
    )
    assert missing_keys(cert_manager_values(), chart_values("cert-manager", "values.yaml")) == []


def test_cert_manager_values_validate_against_the_chart_schema() -> None:
    schema = json.loads(upstream("cert-manager", "values.schema.json").read_text())
    jsonschema.validate(cert_manager_values({"replicaCount": 2}), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"crds": {"enable": True}}, schema)  # the schema does refuse a wrong key


def test_standard_mode_is_set_because_the_chart_defaults_to_knative() -> None:
    assert kserve_values() == {
        "kserve": {"controller": {"deploymentMode": "Standard", "gateway": {"disableIngressCreation": True}}}
    }
    assert kserve_values("Standard", "nginx", "models.example.org")["kserve"]["controller"]["gateway"] == {
        "ingressGateway": {"className": "nginx"},
        "disableIngressCreation": False,
        "domain": "models.example.org",
    }
    # Knative mode keeps the chart's gateway settings (Istio) unless values override them.
    assert kserve_values("Knative") == {"kserve": {"controller": {"deploymentMode": "Knative"}}}
    # Upstream defaults the library must override.
    chart = chart_values("kserve", "charts", "kserve-resources", "values.yaml")
    assert chart["kserve"]["controller"]["deploymentMode"] == "Knative"
    assert chart["kserve"]["controller"]["gateway"]["ingressGateway"]["className"] == "istio"


def test_typed_args_win_over_free_form_values() -> None:
    values = kserve_values(
        "Standard", extra={"kserve": {"controller": {"deploymentMode": "Knative", "tag": "x"}}}
    )
    assert values["kserve"]["controller"]["deploymentMode"] == "Standard"
    assert values["kserve"]["controller"]["tag"] == "x"
    assert cert_manager_values({"crds": {"enabled": False}})["crds"] == {"enabled": True, "keep": True}
    assert runtime_values({"kserve": {"servingruntime": {"enabled": False}}})["kserve"]["servingruntime"] == {
        "enabled": True
    }


def test_releases_are_pinned_and_ordered(run_component: Callable[..., Plan]) -> None:
    def program() -> None:
        cm = CertManager("cert-manager")
        KServe("kserve", {}, opts=pulumi.ResourceOptions(depends_on=[cm]))

    plan = run_component(program)
    releases = {r.name: r for r in plan.by_type(RELEASE)}
    assert set(releases) == {"cert-manager-helm", "kserve-crd", "kserve-helm", "kserve-runtimes"}
    cm, crd, res, rt = (
        releases[n] for n in ("cert-manager-helm", "kserve-crd", "kserve-helm", "kserve-runtimes")
    )
    pins = [
        (cm, versions.CERT_MANAGER),
        (crd, versions.KSERVE_CRD),
        (res, versions.KSERVE_RESOURCES),
        (rt, versions.KSERVE_RUNTIME_CONFIGS),
    ]
    for release, pin in pins:
        assert (release.inputs["chart"], release.inputs["version"]) == (pin.chart, pin.version)
        assert release.inputs["namespace"] == pin.namespace
    assert cm.inputs["repositoryOpts"] == {"repo": "https://charts.jetstack.io"}
    assert versions.KSERVE_CRD.version == versions.KSERVE_RESOURCES.version == "v0.20.0"
    assert all(
        p.chart.startswith("oci://ghcr.io/kserve/charts/")
        for p in (versions.KSERVE_CRD, versions.KSERVE_RESOURCES, versions.KSERVE_RUNTIME_CONFIGS)
    )
    assert cm.inputs["values"]["crds"] == {"enabled": True, "keep": True}
    assert res.inputs["values"] == kserve_values()
    # Order: cert-manager -> kserve-crd -> kserve-resources -> kserve-runtime-configs.
    assert cm.urn in res.depends_on and crd.urn in res.depends_on
    assert cm.urn not in crd.depends_on
    assert res.urn in rt.depends_on and crd.urn in rt.depends_on
    ns = plan.one(NAMESPACE, "kserve-namespace")
    assert ns.inputs["metadata"]["labels"]["control-plane"] == "kserve-controller-manager"
    assert ns.urn in crd.depends_on and ns.urn in res.depends_on


def test_runtimes_can_be_left_out(run_component: Callable[..., Plan]) -> None:
    plan = run_component(lambda: KServe("kserve", {"runtimes": False}))
    assert {r.name for r in plan.by_type(RELEASE)} == {"kserve-crd", "kserve-helm"}


def test_bad_deployment_mode_is_refused_naming_the_argument(run_component: Callable[..., Plan]) -> None:
    errors: list[ArgumentsError] = []

    def program() -> None:
        for args in (
            {"deployment_mode": "RawDeployment"},
            {"deployment_mode": "Knative", "ingress_class_name": "nginx"},
        ):
            with pytest.raises(ArgumentsError) as exc:
                KServe("kserve", args)  # type: ignore[arg-type]
            errors.append(exc.value)

    plan = run_component(program)
    assert plan.resources == []
    [(path, reason)] = errors[0].problems
    assert path == "deployment_mode"
    assert "deprecated name of 'Standard'" in reason
    [(path, reason)] = errors[1].problems
    assert path == "ingress_class_name"
    assert "Standard mode only" in reason


def platform(services: list[dict[str, Any]], **kserve: Any) -> Any:
    return load_platform(
        {
            "cloud": "existing",
            "cluster": {"name": "onprem", "kubeconfig": "x"},
            "gpuPools": [
                {
                    "name": "l4",
                    "gpu": "l4",
                    "gpusPerNode": 1,
                    "cpusPerNode": 8,
                    "memoryGibPerNode": 32,
                    "maxNodes": 2,
                    "sharing": {"mode": "time-slicing", "replicas": 4},
                },
                {
                    "name": "h100",
                    "gpu": "h100-80gb",
                    "gpusPerNode": 1,
                    "cpusPerNode": 26,
                    "memoryGibPerNode": 234,
                    "maxNodes": 1,
                    "sharing": {"mode": "mig", "mig": {"profiles": ["3g.40gb", "2g.20gb", "2g.20gb"]}},
                },
            ],
            "gpuOperator": {"driver": {"owner": "operator"}},
            "kueue": {
                "enabled": True,
                "clusterQueues": [{"name": "serving"}],
                "teams": [{"name": "ml", "clusterQueue": "serving"}],
            },
            "kserve": {"enabled": True, "services": services, **kserve},
        }
    )


def test_stack_kserve_orders_services_and_creates_only_missing_namespaces(
    run_component: Callable[..., Plan],
) -> None:
    spec = platform(
        [
            {
                "name": "small",
                "namespace": "ml",
                "pool": "l4",
                "modelFormat": "huggingface",
                "queue": "default",
            },
            {
                "name": "big",
                "namespace": "llm",
                "pool": "h100",
                "modelFormat": "huggingface",
                "migProfile": "3g.40gb",
            },
            {
                "name": "side",
                "namespace": "llm",
                "pool": "h100",
                "modelFormat": "huggingface",
                "migProfile": "2g.20gb",
            },
            # On the MIG pool: a time-sliced pool reached from two namespaces (ml and default) is refused.
            {"name": "plain", "pool": "h100", "modelFormat": "huggingface", "migProfile": "2g.20gb"},
        ],
        ingressClassName="nginx",
    )
    outputs: dict[str, Any] = {}

    def program() -> None:
        operator = k8s.core.v1.ConfigMap("gpu-operator-stand-in", metadata={"name": "x"})
        namespaces = create_namespaces(spec, pulumi.ResourceOptions())
        outputs.update(
            deploy_kserve(spec, pulumi.ResourceOptions(), depends_on=[operator], namespaces=namespaces)
        )

    plan = run_component(program)
    # One owner per namespace: ml (a team's, labelled for its ClusterQueue) and llm (a service's) are
    # created once each by the stack; default always exists. Both are kept when nothing needs them.
    namespaces = {
        r.inputs["metadata"]["name"]: r for r in plan.by_type(NAMESPACE) if r.name.startswith("namespace-")
    }
    assert sorted(namespaces) == ["llm", "ml"]
    assert set(namespaces["ml"].inputs["metadata"]["labels"]) == {"gpu-platform.io/cluster-queue"}
    assert all(r.options["retainOnDelete"] for r in namespaces.values())
    res = plan.one(RELEASE, "kserve-helm")
    assert plan.one(RELEASE, "cert-manager-helm").urn in res.depends_on
    assert res.inputs["values"]["kserve"]["controller"]["gateway"]["ingressGateway"] == {"className": "nginx"}
    operator = plan.one("kubernetes:core/v1:ConfigMap", "gpu-operator-stand-in")
    llm_ns = plan.one(NAMESPACE, "namespace-llm")
    isvcs = {r.inputs["metadata"]["name"]: r for r in plan.by_type(ISVC)}
    assert set(isvcs) == {"small", "big", "side", "plain"}
    for name, r in isvcs.items():
        assert res.urn in r.depends_on, name
        assert plan.one(RELEASE, "kserve-runtimes").urn in r.depends_on, name
        assert operator.urn in r.depends_on, name
        assert (llm_ns.urn in r.depends_on) == (r.inputs["metadata"]["namespace"] == "llm"), name
        assert (namespaces["ml"].urn in r.depends_on) == (r.inputs["metadata"]["namespace"] == "ml"), name
    limits = {n: r.inputs["spec"]["predictor"]["model"]["resources"]["limits"] for n, r in isvcs.items()}
    assert limits["big"]["nvidia.com/mig-3g.40gb"] == 1 and "nvidia.com/gpu" not in limits["big"]
    assert limits["side"]["nvidia.com/mig-2g.20gb"] == 1
    assert limits["small"]["nvidia.com/gpu"] == 1
    assert isvcs["small"].inputs["metadata"]["labels"] == {"kueue.x-k8s.io/queue-name": "default"}
    assert isvcs["plain"].inputs["metadata"]["namespace"] == "default"
    assert set(outputs["inferenceServices"]) == {"ml/small", "llm/big", "llm/side", "default/plain"}
    assert outputs["kserveDeploymentMode"] == "Standard"
