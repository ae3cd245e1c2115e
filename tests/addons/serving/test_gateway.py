"""The inference gateway: GKE's managed Gateway or Envoy Gateway with Envoy AI Gateway (KServe v0.20.0's pair), the
Gateway every model routes through, the router that makes KServe create each model's InferencePool, endpoint picker
and HTTPRoute, all valid against the vendored CRDs and KServe's presets."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from gpu_platform import versions
from gpu_platform.addons.kserve.llm_service_plan import llm_inference_service
from gpu_platform.addons.kserve.llm_sizing import Request, size_model
from gpu_platform.addons.serving import gateway as gw
from gpu_platform.catalog.llm_models import LLM_MODELS
from gpu_platform.plans.helm import deep_merge
from tests.conftest import load_yaml_docs, upstream
from tests.support.chart_values import chart_values, missing_keys
from tests.support.crds import crd_problems, problems_of
from tests.support.helm import of_kind, render_chart
from tests.support.pools import resolved_pool

GATEWAY_CRDS = ("gateway-api", "crds")
PRESETS = ("charts", "kserve-runtime-configs-v0.20.0", "files", "llmisvcconfigs", "resources.yaml")


def gateway_api_problems(obj: dict[str, Any]) -> list[str]:
    plural = {"Gateway": "gateways", "GatewayClass": "gatewayclasses", "HTTPRoute": "httproutes"}[obj["kind"]]
    return crd_problems(obj, *GATEWAY_CRDS, f"gateway.networking.k8s.io_{plural}.yaml", version="v1")


PATH_RULE = re.compile(r"^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$")
"""The HTTPRoute CRD's path value rule (a raw-string CEL regex the suite's CEL subset does not parse)."""


def seconds(duration: str) -> int:
    assert re.fullmatch(r"\d+s", duration), duration
    return int(duration[:-1])


def route_problems(route: dict[str, Any]) -> list[str]:
    """``gateway_api_problems`` with the two HTTPRoute CEL rules the suite's interpreter leaves unevaluated
    (raw-string regex, ``duration()``) evaluated here, on the route's own values."""
    left = []
    for problem in gateway_api_problems(route):
        found = re.match(
            r"HTTPRoute\.spec\.rules\[(\d+)\]\.(matches\[(\d+)\]\.path|timeouts): CEL rule not", problem
        )
        if not found:
            left.append(problem)
            continue
        rule = route["spec"]["rules"][int(found.group(1))]
        if found.group(3) is not None:
            path = rule["matches"][int(found.group(3))]["path"]
            if path["type"] in ("Exact", "PathPrefix") and not PATH_RULE.match(path["value"]):
                left.append(f"{problem} (fails: {path['value']})")
        else:
            t = rule["timeouts"]
            if seconds(t["request"]) != 0 and seconds(t["backendRequest"]) > seconds(t["request"]):
                left.append(f"{problem} (fails: {t})")
    return left


def preset(name: str) -> dict[str, Any]:
    """A KServe v0.20.0 LLMInferenceServiceConfig preset, its template expressions filled for model ``m`` in
    namespace ``llm`` (the way KServe's ``ChildName`` and ``.ObjectMeta`` render for a short name)."""
    text = upstream(*PRESETS).read_text()
    text = re.sub(r"'?\{\{ ChildName \.ObjectMeta\.Name `([^`]+)` \}\}'?", r"m\1", text)
    text = text.replace("{{ .ObjectMeta.Namespace }}", "llm").replace("{{ .ObjectMeta.Name }}", "m")
    text = text.replace("'m'", "m")
    for doc in yaml.safe_load_all(text):
        if doc and doc["metadata"]["name"] == name:
            return dict(doc)
    raise AssertionError(f"no preset {name}")


def test_gke_uses_its_managed_gateway_and_no_chart() -> None:
    external = gw.gateway_plan("gke")
    internal = gw.gateway_plan("gke", internal=True)
    assert (external.implementation, external.releases, external.gateway_class) == ("gke", (), None)
    assert external.gateway["spec"]["gatewayClassName"] == "gke-l7-regional-external-managed"
    assert internal.gateway["spec"]["gatewayClassName"] == "gke-l7-rilb"
    assert any("proxy-only subnet" in r for r in external.requires)
    assert any("CHANNEL_STANDARD" in r for r in external.requires)
    assert external.objects == (external.gateway,)
    assert gateway_api_problems(external.gateway) == []


@pytest.mark.parametrize("cloud", ["eks", "aks", "existing"])
def test_elsewhere_envoy_gateway_with_the_ai_gateway_in_install_order(cloud: str) -> None:
    plan = gw.gateway_plan(cloud)
    assert plan.implementation == "envoy-gateway"
    assert [
        (r.key, r.pin, r.release_name, r.namespace, r.holds_crds, r.skip_crds) for r in plan.releases
    ] == [
        ("envoyGatewayCrds", versions.ENVOY_GATEWAY_CRDS, "eg-crds", "envoy-gateway-system", True, False),
        ("envoyGateway", versions.ENVOY_GATEWAY, "eg", "envoy-gateway-system", False, True),
        (
            "envoyAiGatewayCrds",
            versions.ENVOY_AI_GATEWAY_CRDS,
            "aieg-crd",
            "envoy-ai-gateway-system",
            True,
            False,
        ),
        ("envoyAiGateway", versions.ENVOY_AI_GATEWAY, "aieg", "envoy-ai-gateway-system", False, False),
    ]
    assert plan.gateway_class == {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "GatewayClass",
        "metadata": {"name": "envoy"},
        "spec": {"controllerName": "gateway.envoyproxy.io/gatewayclass-controller"},
    }
    assert plan.gateway == {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "Gateway",
        "metadata": {"name": "kserve-ingress-gateway", "namespace": "kserve"},
        "spec": {
            "gatewayClassName": "envoy",
            "listeners": [
                {
                    "name": "http",
                    "protocol": "HTTP",
                    "port": 80,
                    "allowedRoutes": {"namespaces": {"from": "All"}},
                }
            ],
        },
    }
    assert plan.objects == (plan.gateway_class, plan.gateway)
    for obj in plan.objects:
        assert gateway_api_problems(obj) == []


def test_the_pins_are_kserves() -> None:
    # kserve/kserve v0.20.0 hack/setup/quick-install/llmisvc-dependency-install.sh and go.mod
    assert (versions.ENVOY_GATEWAY.version, versions.ENVOY_GATEWAY_CRDS.version) == ("v1.8.1", "v1.8.1")
    assert (versions.ENVOY_AI_GATEWAY.version, versions.ENVOY_AI_GATEWAY_CRDS.version) == ("v1.0.0", "v1.0.0")
    crd = yaml.safe_load(upstream(*GATEWAY_CRDS, "gateway.networking.k8s.io_gateways.yaml").read_text())
    assert (
        crd["metadata"]["annotations"]["gateway.networking.k8s.io/bundle-version"]
        == versions.GATEWAY_API_VERSION
    )
    pool = yaml.safe_load(
        upstream(
            "gateway-api-inference-extension", "crds", "inference.networking.k8s.io_inferencepools.yaml"
        ).read_text()
    )
    assert pool["metadata"]["annotations"]["inference.networking.k8s.io/bundle-version"] == (
        versions.INFERENCE_EXTENSION_VERSION
    )


def test_an_existing_gateway_class_takes_no_chart() -> None:
    plan = gw.gateway_plan("existing", gateway_class="istio", namespace="gw", name="inference")
    assert (plan.implementation, plan.releases, plan.gateway_class) == ("existing", (), None)
    assert plan.gateway["metadata"] == {"name": "inference", "namespace": "gw"}
    assert plan.gateway["spec"]["gatewayClassName"] == "istio"
    assert gateway_api_problems(plan.gateway) == []


def test_envoy_gateway_values_are_the_ai_gateways_files_and_the_chart_knows_every_key() -> None:
    ai = deep_merge(
        chart_values("envoy-ai-gateway", "manifests", "envoy-gateway-values.yaml"),
        chart_values("envoy-ai-gateway", "examples", "inference-pool", "envoy-gateway-values-addon.yaml"),
    )
    plan = gw.gateway_plan("aks")
    eg = plan.releases[1].values
    assert eg["config"] == ai["config"]
    # the controller stays off GPU nodes (AKS names its system pool)
    assert eg["deployment"]["pod"]["nodeSelector"] == {"kubernetes.azure.com/mode": "system"}
    assert eg["deployment"]["pod"]["affinity"]["nodeAffinity"]
    tmpl = chart_values("charts", "gateway-helm-v1.8.1", "values.tmpl.yaml")
    assert missing_keys({"deployment": eg["deployment"]}, tmpl) == []
    assert (
        missing_keys(
            plan.releases[0].values, chart_values("charts", "gateway-crds-helm-v1.8.1", "values.yaml")
        )
        == []
    )
    ai_values = chart_values("charts", "ai-gateway-helm-v1.0.0", "values.yaml")
    assert missing_keys(plan.releases[3].values, ai_values) == []
    # the extension server Envoy Gateway calls is the AI Gateway controller's Service
    assert ai_values["controller"]["fullnameOverride"] == "ai-gateway-controller"


def test_the_releases_render() -> None:
    plan = gw.gateway_plan("eks")
    crds_release, eg, aicrds, ai = plan.releases
    crds = {
        o["metadata"]["name"]: o
        for o in render_chart(
            "gateway-crds-helm-v1.8.1", crds_release.values, "eg-crds", crds_release.namespace
        )
    }
    for name in ("gateways", "gatewayclasses", "httproutes"):
        crd = crds[f"{name}.gateway.networking.k8s.io"]
        assert crd["metadata"]["annotations"]["gateway.networking.k8s.io/bundle-version"] == "v1.5.1"
        assert crd["metadata"]["annotations"]["gateway.networking.k8s.io/channel"] == "standard"
    assert "envoyproxies.gateway.envoyproxy.io" in crds
    assert "inferencepools.inference.networking.k8s.io" not in crds  # kserve-llmisvc-resources owns it

    objects = render_chart("gateway-helm-v1.8.1", eg.values, eg.release_name, eg.namespace)
    (config,) = [o for o in of_kind(objects, "ConfigMap") if o["metadata"]["name"] == "envoy-gateway-config"]
    rendered = yaml.safe_load(config["data"]["envoy-gateway.yaml"])
    manager = rendered["extensionManager"]
    assert manager["backendResources"] == [
        {"group": "inference.networking.k8s.io", "kind": "InferencePool", "version": "v1"}
    ]
    assert manager["service"]["fqdn"] == {"hostname": gw.AI_GATEWAY_EXTENSION_HOST, "port": 1063}
    assert rendered["gateway"]["controllerName"] == gw.ENVOY_CONTROLLER
    (deployment,) = of_kind(objects, "Deployment")
    assert deployment["spec"]["template"]["spec"]["affinity"] == eg.values["deployment"]["pod"]["affinity"]
    assert not of_kind(objects, "CustomResourceDefinition")

    ai_crds = render_chart(
        "ai-gateway-crds-helm-v1.0.0", aicrds.values, aicrds.release_name, aicrds.namespace
    )
    assert {o["spec"]["group"] for o in ai_crds} == {"aigateway.envoyproxy.io"}
    ai_objects = render_chart("ai-gateway-helm-v1.0.0", ai.values, ai.release_name, ai.namespace)
    (service,) = [
        o for o in of_kind(ai_objects, "Service") if o["metadata"]["name"] == "ai-gateway-controller"
    ]
    assert f"{service['metadata']['name']}.{ai.namespace}.svc.cluster.local" == gw.AI_GATEWAY_EXTENSION_HOST
    assert 1063 in [p["port"] for p in service["spec"]["ports"]]
    (controller,) = [
        o for o in of_kind(ai_objects, "Deployment") if o["metadata"]["name"] == "ai-gateway-controller"
    ]
    assert controller["spec"]["template"]["spec"]["affinity"] == ai.values["controller"]["affinity"]


def sized_service(router: dict[str, Any]) -> dict[str, Any]:
    pool = resolved_pool("existing", name="h100", gpu="h100-80gb", gpus_per_node=8)
    sizing = size_model(Request(LLM_MODELS["llama-3.1-8b"], "bf16", 8192, 4), [pool])
    obj = llm_inference_service("m", "llm", "hf://meta-llama/Llama-3.1-8B-Instruct", sizing, pool)
    obj["spec"]["router"] = router
    return obj


@pytest.mark.parametrize("cloud", ["gke", "eks"])
def test_a_models_router_names_the_gateway_and_the_service_stays_valid(cloud: str) -> None:
    plan = gw.gateway_plan(cloud)
    route = gw.model_route("m", "llm", plan)
    assert route.router == {
        "gateway": {"refs": [{"name": "kserve-ingress-gateway", "namespace": "kserve"}]},
        "route": {},
        "scheduler": {},
    }
    assert problems_of(sized_service(route.router)) == []
    assert route.names == {
        "deployment": "m-kserve",
        "inferencePool": "m-inference-pool",
        "eppService": "m-epp-service",
        "eppDeployment": "m-kserve-router-scheduler",
        "httpRoute": "m-kserve-route",
        "workloadService": "m-kserve-workload-svc",
    }


def test_the_inference_pool_kserve_creates_is_the_scheduler_presets_and_valid() -> None:
    route = gw.model_route("m", "llm", gw.gateway_plan("eks"))
    pool_spec = preset("kserve-config-llm-scheduler")["spec"]["router"]["scheduler"]["pool"]["spec"]
    assert route.inference_pool["spec"] == pool_spec
    assert route.inference_pool["metadata"] == {"name": "m-inference-pool", "namespace": "llm"}
    assert (
        crd_problems(
            route.inference_pool,
            "gateway-api-inference-extension",
            "crds",
            "inference.networking.k8s.io_inferencepools.yaml",
            version="v1",
        )
        == []
    )
    # and against the CRD KServe's chart installs (the one in the cluster)
    bundled = load_yaml_docs(
        upstream("charts", "kserve-llmisvc-resources-v0.20.0", "files", "llmisvc", "resources.yaml")
    )
    (crd,) = [
        d
        for d in bundled
        if d.get("metadata", {}).get("name") == "inferencepools.inference.networking.k8s.io"
    ]
    served = {v["name"] for v in crd["spec"]["versions"] if v["served"]}
    assert "v1" in served


def test_the_route_kserve_creates_has_the_presets_path_rules_and_is_valid() -> None:
    plan = gw.gateway_plan("eks")
    route = gw.model_route("m", "llm", plan)
    preset_rules = {
        r["name"]: r
        for r in preset("kserve-config-llm-router-route")["spec"]["router"]["route"]["http"]["spec"]["rules"]
    }
    ours = route.http_route["spec"]["rules"]
    assert [r["name"] for r in ours] == [
        "v1-completions-path",
        "v1-chat-completions-path",
        "v1-responses-path",
        "v1-messages-path",
        "v1-catch-all-path",
    ]
    for rule in ours:
        assert rule == preset_rules[rule["name"]], rule["name"]
    assert route.http_route["spec"]["parentRefs"] == [
        {
            "group": "gateway.networking.k8s.io",
            "kind": "Gateway",
            "name": "kserve-ingress-gateway",
            "namespace": "kserve",
        }
    ]
    assert route_problems(route.http_route) == []
    bad = {
        **route.http_route,
        "spec": {
            **route.http_route["spec"],
            "rules": [{**ours[0], "matches": [{"path": {"type": "PathPrefix", "value": "/a b"}}]}],
        },
    }
    assert route_problems(bad) != []


def test_gke_policies_on_each_pool_are_the_extension_charts_and_valid() -> None:
    route = gw.model_route("m", "llm", gw.gateway_plan("gke"))
    health, backend = route.objects
    target = {"group": "inference.networking.k8s.io", "kind": "InferencePool", "name": "m-inference-pool"}
    assert health["spec"] == {
        "targetRef": target,
        "default": {
            "timeoutSec": 2,
            "checkIntervalSec": 2,
            "config": {
                "type": "HTTP",
                "httpHealthCheck": {
                    "portSpecification": "USE_FIXED_PORT",
                    "port": 8000,
                    "requestPath": "/health",
                },
            },
        },
    }
    assert backend["spec"] == {
        "targetRef": target,
        "default": {"timeoutSec": 300, "logging": {"enabled": True}},
    }
    assert (
        crd_problems(
            health, "gke-gateway-api", "crds", "networking.gke.io_healthcheckpolicies.yaml", version="v1"
        )
        == []
    )
    assert (
        crd_problems(
            backend, "gke-gateway-api", "crds", "networking.gke.io_gcpbackendpolicies.yaml", version="v1"
        )
        == []
    )
    template = upstream(
        "gateway-api-inference-extension", "charts", "inferencepool", "templates", "gke.yaml"
    ).read_text()
    assert "timeoutSec: 2" in template and "checkIntervalSec: 2" in template and "timeoutSec: 300" in template
    assert gw.model_route("m", "llm", gw.gateway_plan("eks")).objects == ()


def test_a_name_kserve_would_hash_is_refused() -> None:
    assert gw.MAX_MODEL_NAME == 39
    gw.kserve_names("a" * 39)
    with pytest.raises(ValueError, match="too long"):
        gw.kserve_names("a" * 40)
