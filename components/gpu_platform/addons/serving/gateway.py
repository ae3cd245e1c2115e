"""The inference gateway: a Gateway API implementation per platform, the Gateway, and what routes a model to it.

Which objects are whose (KServe v0.20.0, ``pkg/controller/v1alpha2/llmisvc``):

- An ``LLMInferenceService`` with ``spec.router.scheduler`` set makes KServe create the model's ``InferencePool``
  (``inference.networking.k8s.io/v1``, ``<name>-inference-pool``, ``scheduler.go``) selecting the model server pods,
  and its endpoint picker: the Deployment ``<name>-kserve-router-scheduler`` running llm-d's EPP
  (``ghcr.io/llm-d/llm-d-router-endpoint-picker``) behind the Service ``<name>-epp-service``, configured by the
  ``kserve-config-llm-scheduler`` preset (kserve-runtime-configs ``files/llmisvcconfigs/resources.yaml``). The EPP
  scrapes each vLLM pod and picks one per request on queue depth (``vllm:num_requests_waiting``), KV-cache use
  (``vllm:kv_cache_usage_perc``) and prefix-cache affinity (gateway-api-inference-extension v1.5.0
  ``pkg/epp/server/options.go``).
- ``spec.router.route`` makes KServe create the ``HTTPRoute`` ``<name>-kserve-route`` (``router.go``) from the
  ``kserve-config-llm-router-route`` preset: ``/<namespace>/<name>/v1/{completions,chat/completions,...}`` to the
  InferencePool on port 8000; ``spec.router.gateway.refs`` sets its ``parentRefs`` to the named Gateway
  (``config_merge.go``).

So the library plans no InferencePool, EPP or HTTPRoute of its own: ``model_route`` returns the ``spec.router`` that
makes KServe create them, and the objects KServe will create (for review and CRD validation only). What it does
create: the Gateway implementation's releases, the GatewayClass (Envoy Gateway), the Gateway and, on GKE, the
health check and backend policies GKE's load balancer needs for an InferencePool (KServe creates none; the
extension's own ``inferencepool`` chart does, ``config/charts/inferencepool/templates/gke.yaml`` at v1.5.0).

The implementation per platform:

- GKE: its managed Gateway controller, which serves InferencePool backends itself (GKE Inference Gateway) with
  the regional classes ``gke-l7-regional-external-managed`` or, internal, ``gke-l7-rilb``; no chart. The cluster
  needs the Gateway API enabled and a proxy-only subnet in the region: the stack creates the subnet with the VPC
  where it creates the cluster (``proxy_subnet``, ``clouds/gke/cluster.py``), else both are in ``requires``.
- Elsewhere: Envoy Gateway v1.8.1 with Envoy AI Gateway v1.0.0 as its extension server for InferencePool backends,
  the pair KServe v0.20.0 installs for ``LLMInferenceService`` (kserve/kserve
  ``hack/setup/quick-install/llmisvc-dependency-install.sh``, components ``envoy-gateway`` and ``envoy-ai-gateway``,
  with the ``envoy`` GatewayClass and the ``kserve-ingress-gateway`` Gateway of ``hack/setup/infra/gateway-api``).
  kgateway and Istio also implement the inference extension, but KServe v0.20.0 installs and tests neither for
  ``LLMInferenceService``; Envoy Gateway v1.8.1 requires Gateway API v1.5.1 (its go.mod), as KServe does, so its CRD
  chart is the one release holding the Gateway API CRDs.
- An existing cluster with a Gateway implementation of its own: ``gateway_class`` names its class, no chart.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_platform import versions
from gpu_platform.addons.workloads.plan import Placement, controller_placement
from gpu_platform.cloud_facts import profile_of
from gpu_platform.plans.helm import deep_merge
from gpu_platform.versions import ChartPin

GATEWAY_API = "gateway.networking.k8s.io/v1"
INFERENCE_API = "inference.networking.k8s.io/v1"
GATEWAY_NAME = "kserve-ingress-gateway"
GATEWAY_NAMESPACE = "kserve"
"""KServe's default Gateway (``kserve-resources`` values ``kserve.controller.gateway.ingressGateway.kserveGateway:
kserve/kserve-ingress-gateway``): routes reach it even without ``router.gateway.refs``."""
HTTP_PORT = 80
MODEL_SERVER_PORT = 8000
"""vLLM's port in KServe's presets (``kserve-config-llm-template``) and the InferencePool's ``targetPorts``."""
HEALTH_PATH = "/health"

ENVOY_CLASS = "envoy"
ENVOY_CONTROLLER = "gateway.envoyproxy.io/gatewayclass-controller"
AI_GATEWAY_EXTENSION_HOST = "ai-gateway-controller.envoy-ai-gateway-system.svc.cluster.local"
"""The AI Gateway controller's Service (chart ``controller.fullnameOverride: ai-gateway-controller``) in its
release namespace: Envoy Gateway's extension server."""
AI_GATEWAY_EXTENSION_PORT = 1063

MAX_NAME = 63
"""Kubernetes object names KServe derives are DNS labels; ``kmeta.ChildName`` hashes a longer one."""
LONGEST_SUFFIX = "-kserve-router-scheduler"
MAX_MODEL_NAME = MAX_NAME - len(LONGEST_SUFFIX)
"""The longest ``LLMInferenceService`` name whose children keep the plain ``<name><suffix>`` names below (39)."""

SELECTOR_LABELS = {
    "app.kubernetes.io/part-of": "llminferenceservice",
    "kserve.io/component": "workload",
}
"""What KServe's scheduler preset selects a model's pods by, besides ``app.kubernetes.io/name: <name>``."""


@dataclass(frozen=True)
class ReleasePlan:
    """One pinned Helm v3 release."""

    key: str
    """The release's key (as ``releases.Addon.key``)."""
    pin: ChartPin
    release_name: str
    """Fixed: charts name their services and webhooks after it."""
    namespace: str
    values: dict[str, Any]
    holds_crds: bool = False
    """Its CRDs are chart templates without a keep policy: uninstalling it deletes every object of those kinds."""
    skip_crds: bool = False
    """Helm ``skipCrds``: the chart's ``crds/`` directory belongs to another release."""


@dataclass(frozen=True)
class GatewayPlan:
    """The Gateway implementation, its releases in install order, and the Gateway every model routes through."""

    implementation: str
    """``gke``, ``envoy-gateway`` or ``existing``."""
    gateway_class_name: str
    gateway: dict[str, Any]
    releases: tuple[ReleasePlan, ...] = ()
    gateway_class: dict[str, Any] | None = None
    """The GatewayClass the library creates (Envoy Gateway's), else ``None``."""
    requires: tuple[str, ...] = ()
    """What the cluster must offer that this plan does not create."""
    pool_policies: bool = False
    """The implementation's load balancer needs GKE's health check and backend policy on each model's
    InferencePool (``gke_pool_policies``; the cloud profile's ``InferenceGateway.pool_policies``)."""

    @property
    def name(self) -> str:
        return str(self.gateway["metadata"]["name"])

    @property
    def namespace(self) -> str:
        return str(self.gateway["metadata"]["namespace"])

    @property
    def objects(self) -> tuple[dict[str, Any], ...]:
        """What to create after the releases, in order."""
        return (*((self.gateway_class,) if self.gateway_class else ()), self.gateway)


@dataclass(frozen=True)
class ModelRoute:
    """How one model is reached through the gateway."""

    router: dict[str, Any]
    """The ``LLMInferenceService``'s ``spec.router``."""
    inference_pool: dict[str, Any]
    """The InferencePool KServe creates from the scheduler preset (not created by the library)."""
    http_route: dict[str, Any]
    """The HTTPRoute KServe creates from the route preset (not created by the library)."""
    names: dict[str, str]
    """The names of what KServe creates for the model (``kmeta.ChildName(name, suffix)``)."""
    objects: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    """What the library creates for the model: GKE's policies on its InferencePool, else nothing."""


def child_name(name: str, suffix: str) -> str:
    """``<name><suffix>``, as knative's ``kmeta.ChildName`` names KServe's objects while it fits a DNS label;
    a longer one is refused (KServe would hash it)."""
    if len(name) + len(suffix) > MAX_NAME:
        raise ValueError(
            f"LLMInferenceService name {name!r} is too long: {name}{suffix} exceeds {MAX_NAME} characters "
            f"(at most {MAX_MODEL_NAME} characters keep every name KServe derives readable)"
        )
    return name + suffix


def kserve_names(name: str) -> dict[str, str]:
    """What KServe v0.20.0 names the objects of ``LLMInferenceService`` ``name``: ``mainDeploymentName``
    (``workload_single_node.go``), the pool and EPP service (``pkg/apis/serving/v1alpha2/
    llm_inference_service_types_func.go``), the EPP Deployment (``scheduler.go``), the route and the workload Service (``router.go``)."""
    return {
        "deployment": child_name(name, "-kserve"),
        "inferencePool": child_name(name, "-inference-pool"),
        "eppService": child_name(name, "-epp-service"),
        "eppDeployment": child_name(name, LONGEST_SUFFIX),
        "httpRoute": child_name(name, "-kserve-route"),
        "workloadService": child_name(name, "-kserve-workload-svc"),
    }


# --- the Gateway implementation -------------------------------------------------------------------------------


def envoy_gateway_values(placement: Placement) -> dict[str, Any]:
    """``gateway-helm`` values: Envoy AI Gateway as the extension server, InferencePool as an extension backend
    (envoyproxy/ai-gateway v1.0.0 ``manifests/envoy-gateway-values.yaml`` and
    ``examples/inference-pool/envoy-gateway-values-addon.yaml``, the files KServe's install applies), and the
    controller off the GPU nodes."""
    ai_gateway = {
        "config": {
            "envoyGateway": {
                "gateway": {"controllerName": ENVOY_CONTROLLER},
                "logging": {"level": {"default": "info"}},
                "provider": {"type": "Kubernetes"},
                "extensionApis": {"enableEnvoyPatchPolicy": True, "enableBackend": True},
                "extensionManager": {
                    "hooks": {
                        "xdsTranslator": {
                            "translation": {
                                "listener": {"includeAll": True},
                                "route": {"includeAll": True},
                                "cluster": {"includeAll": True},
                                "secret": {"includeAll": True},
                            },
                            "post": ["Translation", "Cluster", "Route"],
                        }
                    },
                    "service": {
                        "fqdn": {"hostname": AI_GATEWAY_EXTENSION_HOST, "port": AI_GATEWAY_EXTENSION_PORT}
                    },
                    "backendResources": [
                        {"group": "inference.networking.k8s.io", "kind": "InferencePool", "version": "v1"}
                    ],
                },
            }
        }
    }
    return deep_merge(ai_gateway, {"deployment": {"pod": placement.pod_values()}})


def envoy_releases(placement: Placement) -> tuple[ReleasePlan, ...]:
    """Envoy Gateway's CRDs (with the Gateway API's, standard channel), Envoy Gateway, Envoy AI Gateway's CRDs and
    controller, in install order."""
    return (
        ReleasePlan(
            "envoyGatewayCrds",
            versions.ENVOY_GATEWAY_CRDS,
            "eg-crds",
            versions.ENVOY_GATEWAY_CRDS.namespace,
            {
                "crds": {
                    "gatewayAPI": {"enabled": True, "channel": "standard"},
                    "envoyGateway": {"enabled": True},
                }
            },
            holds_crds=True,
        ),
        ReleasePlan(
            "envoyGateway",
            versions.ENVOY_GATEWAY,
            "eg",
            versions.ENVOY_GATEWAY.namespace,
            envoy_gateway_values(placement),
            skip_crds=True,
        ),
        ReleasePlan(
            "envoyAiGatewayCrds",
            versions.ENVOY_AI_GATEWAY_CRDS,
            "aieg-crd",
            versions.ENVOY_AI_GATEWAY_CRDS.namespace,
            {},
            holds_crds=True,
        ),
        ReleasePlan(
            "envoyAiGateway",
            versions.ENVOY_AI_GATEWAY,
            "aieg",
            versions.ENVOY_AI_GATEWAY.namespace,
            {"controller": placement.pod_values()},
        ),
    )


def gateway_object(name: str, namespace: str, class_name: str) -> dict[str, Any]:
    """One HTTP listener on port 80 that routes from every namespace (the models' namespaces are the user's).
    KServe's install script also labels the Gateway's infrastructure (``spec.infrastructure.labels``); nothing
    selects by that label, so the library leaves it out."""
    spec: dict[str, Any] = {
        "gatewayClassName": class_name,
        "listeners": [
            {
                "name": "http",
                "protocol": "HTTP",
                "port": HTTP_PORT,
                "allowedRoutes": {"namespaces": {"from": "All"}},
            }
        ],
    }
    return {
        "apiVersion": GATEWAY_API,
        "kind": "Gateway",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def gateway_plan(
    cloud: str,
    *,
    internal: bool = False,
    gateway_class: str | None = None,
    namespace: str = GATEWAY_NAMESPACE,
    name: str = GATEWAY_NAME,
    placement: Placement | None = None,
    network_created: bool = False,
) -> GatewayPlan:
    """The gateway for ``cloud`` (``gke``, ``eks``, ``aks``, ``existing``, ...): the cloud's managed
    inference Gateway where its profile has one (``inference_gateway``, GKE's; ``internal``: its internal class),
    else Envoy Gateway with Envoy AI Gateway; ``gateway_class``: a class the cluster already has (no chart).
    ``placement``: where the controllers run (default the cloud's system nodes, never GPU nodes).
    ``network_created``: the stack creates the cluster's network, and with it what the managed Gateway needs of
    it (``network_requires``, ``proxy_subnet``), which is then no longer required."""
    if gateway_class is not None:
        return GatewayPlan(
            "existing",
            gateway_class,
            gateway_object(name, namespace, gateway_class),
            requires=(
                f"a Gateway API implementation serving GatewayClass {gateway_class!r} with InferencePool "
                f"({INFERENCE_API}) backends",
            ),
        )
    managed = profile_of(cloud).inference_gateway
    if managed is not None:
        class_name = managed.internal_class if internal else managed.external_class
        needed = managed.requires if network_created else (*managed.requires, *managed.network_requires)
        return GatewayPlan(
            managed.implementation,
            class_name,
            gateway_object(name, namespace, class_name),
            requires=tuple(r.format(class_name=class_name) for r in needed),
            pool_policies=managed.pool_policies,
        )
    placement = placement if placement is not None else controller_placement(cloud)
    gateway_class_object = {
        "apiVersion": GATEWAY_API,
        "kind": "GatewayClass",
        "metadata": {"name": ENVOY_CLASS},
        "spec": {"controllerName": ENVOY_CONTROLLER},
    }
    return GatewayPlan(
        "envoy-gateway",
        ENVOY_CLASS,
        gateway_object(name, namespace, ENVOY_CLASS),
        releases=envoy_releases(placement),
        gateway_class=gateway_class_object,
        requires=(
            "a LoadBalancer Service for the Envoy proxy Envoy Gateway creates per Gateway (the cloud's load "
            "balancer controller; on an existing cluster, MetalLB or similar)",
        ),
    )


# --- per model ------------------------------------------------------------------------------------------------


def router_spec(gateway: GatewayPlan) -> dict[str, Any]:
    """``spec.router``: KServe's managed route on ``gateway`` and the scheduler preset's InferencePool and EPP
    (``RouterSpec``, ``pkg/apis/serving/v1alpha2/llm_inference_service_types.go``)."""
    return {
        "gateway": {"refs": [{"name": gateway.name, "namespace": gateway.namespace}]},
        "route": {},
        "scheduler": {},
    }


def expected_inference_pool(name: str, namespace: str) -> dict[str, Any]:
    """The InferencePool KServe creates from ``kserve-config-llm-scheduler`` for ``name`` (for review)."""
    names = kserve_names(name)
    return {
        "apiVersion": INFERENCE_API,
        "kind": "InferencePool",
        "metadata": {"name": names["inferencePool"], "namespace": namespace},
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": name, **SELECTOR_LABELS}},
            "targetPorts": [{"number": MODEL_SERVER_PORT}],
            "endpointPickerRef": {
                "kind": "Service",
                "name": names["eppService"],
                "port": {"number": 9002},
                "failureMode": "FailOpen",
            },
        },
    }


ROUTE_PATHS = ("/v1/completions", "/v1/chat/completions", "/v1/responses", "/v1/messages")
"""The API paths of ``kserve-config-llm-router-route`` (each under ``/<namespace>/<name>``) routed to the pool."""


def expected_http_route(name: str, namespace: str, gateway: GatewayPlan) -> dict[str, Any]:
    """The HTTPRoute KServe creates from ``kserve-config-llm-router-route`` with ``router.gateway.refs`` set: the
    preset's path rules (the API paths under ``/<namespace>/<name>`` rewritten and sent to the pool, everything else
    under that prefix to the workload Service). Where model-based routing is on (``spec.annotations``, the
    controller's ``ModelBasedRoutingMode``) KServe adds the preset's header and ``/publishers/...`` rules too."""
    names = kserve_names(name)
    backend = {
        "group": "inference.networking.k8s.io",
        "kind": "InferencePool",
        "name": names["inferencePool"],
        "port": MODEL_SERVER_PORT,
        "weight": 1,
    }
    rules = [
        {
            "name": "v1-" + path.removeprefix("/v1/").replace("/", "-") + "-path",
            "matches": [{"path": {"type": "PathPrefix", "value": f"/{namespace}/{name}{path}"}}],
            "filters": [
                {
                    "type": "URLRewrite",
                    "urlRewrite": {"path": {"type": "ReplacePrefixMatch", "replacePrefixMatch": path}},
                }
            ],
            "backendRefs": [dict(backend)],
            "timeouts": {"request": "0s", "backendRequest": "0s"},
        }
        for path in ROUTE_PATHS
    ]
    rules.append(
        {
            "name": "v1-catch-all-path",
            "matches": [{"path": {"type": "PathPrefix", "value": f"/{namespace}/{name}"}}],
            "filters": [
                {
                    "type": "URLRewrite",
                    "urlRewrite": {"path": {"type": "ReplacePrefixMatch", "replacePrefixMatch": "/"}},
                }
            ],
            "backendRefs": [
                {"kind": "Service", "name": names["workloadService"], "port": MODEL_SERVER_PORT, "weight": 1}
            ],
            "timeouts": {"request": "0s", "backendRequest": "0s"},
        }
    )
    return {
        "apiVersion": GATEWAY_API,
        "kind": "HTTPRoute",
        "metadata": {"name": names["httpRoute"], "namespace": namespace},
        "spec": {
            "parentRefs": [
                {
                    "group": "gateway.networking.k8s.io",
                    "kind": "Gateway",
                    "name": gateway.name,
                    "namespace": gateway.namespace,
                }
            ],
            "rules": rules,
        },
    }


def gke_pool_policies(name: str, namespace: str) -> tuple[dict[str, Any], ...]:
    """GKE's load balancer health check and backend policy for the model's InferencePool, as the extension's
    ``inferencepool`` chart renders them for ``provider.name: gke`` (v1.5.0 ``templates/gke.yaml``): vLLM's
    ``/health`` on the pool's port every 2 s, and a 300 s backend timeout (long generations) with request logging.
    The port is given with ``portSpecification: USE_FIXED_PORT``: GKE's CRD (GoogleCloudPlatform/gke-gateway-api
    ``networking.gke.io_healthcheckpolicies.yaml``) refuses a ``port`` under the default ``USE_SERVING_PORT``."""
    pool = kserve_names(name)["inferencePool"]
    target = {"group": "inference.networking.k8s.io", "kind": "InferencePool", "name": pool}
    return (
        {
            "apiVersion": "networking.gke.io/v1",
            "kind": "HealthCheckPolicy",
            "metadata": {"name": pool, "namespace": namespace},
            "spec": {
                "targetRef": dict(target),
                "default": {
                    "timeoutSec": 2,
                    "checkIntervalSec": 2,
                    "config": {
                        "type": "HTTP",
                        "httpHealthCheck": {
                            "portSpecification": "USE_FIXED_PORT",
                            "port": MODEL_SERVER_PORT,
                            "requestPath": HEALTH_PATH,
                        },
                    },
                },
            },
        },
        {
            "apiVersion": "networking.gke.io/v1",
            "kind": "GCPBackendPolicy",
            "metadata": {"name": pool, "namespace": namespace},
            "spec": {
                "targetRef": dict(target),
                "default": {"timeoutSec": 300, "logging": {"enabled": True}},
            },
        },
    )


def model_route(name: str, namespace: str, gateway: GatewayPlan) -> ModelRoute:
    """The router of ``LLMInferenceService`` ``name`` in ``namespace`` through ``gateway``, what KServe creates for
    it, and (GKE) the policies the library creates on its InferencePool."""
    return ModelRoute(
        router=router_spec(gateway),
        inference_pool=expected_inference_pool(name, namespace),
        http_route=expected_http_route(name, namespace, gateway),
        names=kserve_names(name),
        objects=gke_pool_policies(name, namespace) if gateway.pool_policies else (),
    )


def creates_proxy_subnet(cloud: str, gateway_settings: Mapping[str, Any], network_created: bool) -> bool:
    """The stack creates the proxy-only subnet the cloud's managed inference Gateway needs
    (``InferenceGateway.network_requires``) with the cluster's network: the serving section's gateway
    (``gateway_settings``) is the cloud's managed one (no ``gateway_class`` of the cluster's own) and the stack
    creates that network."""
    managed = profile_of(cloud).inference_gateway
    return (
        network_created
        and managed is not None
        and bool(managed.network_requires)
        and gateway_settings.get("gateway_class") is None
    )
