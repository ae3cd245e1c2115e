"""The ``serving`` plan: KServe's LLMInferenceService controller (two pinned charts and the presets of a third), the
inference gateway (``addons.serving.gateway``), and per model its weights' cache (``addons.serving.model_cache``),
its ``LLMInferenceService`` as its sizing decided, routed through the gateway, and its autoscaler
(``addons.serving.autoscaling``).

Releases, in order (kserve/kserve ``charts/`` at v0.20.0):

- ``kserve-llmisvc-crd``: the ``LLMInferenceService`` and ``LLMInferenceServiceConfig`` CRDs (kept on delete:
  templates without a keep policy);
- ``kserve-llmisvc-resources``: the controller and its webhooks, beside ``kserve-resources``, so
  ``createSharedResources: false`` (the ``inferenceservice-config`` ConfigMap, the storage containers and the
  certificate issuer are kserve-resources' already); it also holds the Gateway API Inference Extension CRDs
  (``InferencePool``; ``createGIECRDs``, the chart's default);
- ``kserve-llmisvc-configs``: the ``kserve-runtime-configs`` chart with only ``llmisvcConfigs.enabled``: the
  well-known ``LLMInferenceServiceConfig`` presets (vLLM template, scheduler, router) the controller merges every
  service over. KServe's own ``kserve-runtime-configs`` release (the ClusterServingRuntimes) is unchanged: these
  need the CRDs above, which that release comes before;
- the gateway's (Envoy Gateway and Envoy AI Gateway, off GKE) and KEDA's when a model is autoscaled.

Start-up deadline (kserve/kserve#3795: large models time out under the defaults): the preset
``kserve-config-llm-template`` gives the vLLM container ``main`` a ``startupProbe`` of 60 x 10 s = 600 s whatever
the model. The plan sets the probe and Pulumi's create timeout from the weights' size and how they are read
(``model_cache.deadlines``); the container merges into the preset's by name.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.addons.kserve.llm_service_plan import (
    DECODE_SERVER_PORT,
    MAIN_CONTAINER,
    llm_inference_service,
)
from gpu_platform.addons.kueue.plan import QUEUE_NAME_LABEL
from gpu_platform.addons.serving.autoscaling import ModelAutoscaling, keda_release, model_autoscaling
from gpu_platform.addons.serving.checks import ServedModel, ServingSpec
from gpu_platform.addons.serving.gateway import (
    GatewayPlan,
    ModelRoute,
    ReleasePlan,
    gateway_plan,
    model_route,
)
from gpu_platform.addons.serving.model_cache import ModelCachePlan, model_cache_plan
from gpu_platform.addons.serving.pipeline_preset import pipeline_parallel_preset
from gpu_platform.addons.serving.preset_images import with_mirrored_presets
from gpu_platform.mirror import Mirror
from gpu_platform.releases import KSERVE_RESOURCES

PRESETS_RELEASE = "kserve-llmisvc-configs"
"""The release of ``kserve-runtime-configs`` that holds only the LLMInferenceService presets."""
CONTROLLER_NAMESPACE = KSERVE_RESOURCES.namespace
"""The presets' namespace is fixed in the chart's files (``namespace: kserve``), and the CRD's conversion webhook
names the controller's Service there: the controller's namespace is KServe's."""
PRESET_VALUES: dict[str, Any] = {"kserve": {"llmisvcConfigs": {"enabled": True}}}
"""``kserve-runtime-configs`` values of the presets release: the presets on, the ClusterServingRuntimes left off
(the chart's default; KServe's own release holds them)."""


def controller_values(install_gie_crds: bool = True) -> dict[str, Any]:
    """``kserve-llmisvc-resources`` values: the controller beside kserve-resources; the Gateway API Inference
    Extension CRDs the chart bundles unless something else installs them."""
    values: dict[str, Any] = {"kserve": {"createSharedResources": False}}
    if not install_gie_crds:
        values["kserve"]["llmisvc"] = {"createGIECRDs": False}
    return values


@dataclass(frozen=True)
class ModelPlan:
    """One model: its service and what is created beside it."""

    model: ServedModel
    service: dict[str, Any]
    """The ``LLMInferenceService``."""
    cache: ModelCachePlan
    route: ModelRoute
    autoscaling: ModelAutoscaling | None = None

    @property
    def before(self) -> tuple[dict[str, Any], ...]:
        """Created before the service: the weights' volume and claim (or local cache)."""
        return self.cache.objects

    @property
    def after(self) -> tuple[dict[str, Any], ...]:
        """Created after the service: the route's policies (GKE), the scrape object, the ScaledObject."""
        return (*self.route.objects, *(self.autoscaling.objects if self.autoscaling else ()))


def served_object(
    model: ServedModel, route: ModelRoute, cache: ModelCachePlan, mirror: Mirror | None = None
) -> dict[str, Any]:
    """The model's ``LLMInferenceService``: ``llm_service_plan``'s, routed through the gateway, reading its weights
    as the cache plan says, with the start-up deadline of its weights; no ``replicas`` when KEDA scales it (KServe
    keeps the Deployment's replicas only then: ``PreserveDeploymentReplicas``, ``llmisvc/workload.go``); charged to
    its Kueue queue (``queue_labels``); the presets' images from ``mirror`` (``preset_images``)."""
    obj = llm_inference_service(
        model.name,
        model.namespace,
        cache.model_uri,
        model.sizing,
        model.pool,
        replicas=model.min_replicas,
        prefill_replicas=model.prefill_replicas,
    )
    spec = obj["spec"]
    spec["router"] = copy.deepcopy(route.router)
    if model.autoscaled:
        del spec["replicas"]
    # The prefill pods read the same weights: the same pod annotations (``spec.prefill.annotations`` reach only
    # them) and start-up deadline.
    roles = [spec] + ([spec["prefill"]] if "prefill" in spec else [])
    for role in roles:
        if cache.annotations:
            role["annotations"] = dict(cache.annotations)
        main = next(c for c in role["template"]["containers"] if c["name"] == MAIN_CONTAINER)
        main["startupProbe"] = copy.deepcopy(cache.deadlines.startup_probe)
    if "prefill" in spec:
        # The decode preset's vLLM listens behind the routing sidecar, which takes port 8000.
        main = next(c for c in spec["template"]["containers"] if c["name"] == MAIN_CONTAINER)
        main["startupProbe"]["httpGet"]["port"] = DECODE_SERVER_PORT
    obj["metadata"]["labels"] = {"gpu-platform.io/pool": model.pool.name, **queue_labels(model)}
    obj["spec"] = with_mirrored_presets(spec, mirror)
    return obj


def queue_labels(model: ServedModel) -> dict[str, str]:
    """The Kueue label of the model's LocalQueue, on the ``LLMInferenceService``'s own metadata.

    KServe v0.20.0 copies the service's ``kueue.x-k8s.io``-prefixed labels onto the main Deployment and its pod
    template (``propagateDeploymentMetadata``, ``pkg/controller/v1alpha2/llmisvc/workload_single_node.go``;
    ``spec.labels`` would reach only the pod template). There Kueue v0.19.2's ``deployment`` integration reads the
    queue and its ``pod`` integration gates each pod until the workload is admitted on the queue's quota
    (``pkg/controller/jobs/deployment/deployment_webhook.go``, ``pkg/controller/jobs/pod/pod_webhook.go``): both
    frameworks must be on (``REQUIRES`` in ``addons.serving.wiring``). A replica spanning nodes is a LeaderWorkerSet
    group: KServe copies the same labels onto the LeaderWorkerSet and its leader and worker templates
    (``propagateTopLevelLeaderWorkerSetMetadata``, ``workload_multi_node.go``), where Kueue's ``leaderworkerset``
    integration admits each group whole (``pkg/controller/jobs/leaderworkerset``): that framework must be on too."""
    return {QUEUE_NAME_LABEL: model.queue} if model.queue else {}


def model_plan(model: ServedModel, spec: ServingSpec, gateway: GatewayPlan) -> ModelPlan:
    """The model's cache, route, service and autoscaler."""
    cache = model_cache_plan(
        model.name,
        model.namespace,
        spec.cloud,
        model.pool,
        model.uri,
        model.sizing.weights,
        claim=model.settings.get("cache_claim"),
    )
    route = model_route(model.name, model.namespace, gateway)
    scaling = None
    if model.autoscaled:
        assert spec.prometheus is not None  # checked: autoscaled models need a Prometheus KEDA can query
        scaling = model_autoscaling(
            model.name,
            model.namespace,
            min_replicas=model.min_replicas,
            max_replicas=model.max_replicas,
            prometheus=spec.prometheus,
        )
    return ModelPlan(model, served_object(model, route, cache, spec.mirror), cache, route, scaling)


REQUIRES_OUTPUT = "servingRequires"
"""The stack output listing ``ServingPlan.requires`` (when there is any), which ``gpu-platform plan`` prints."""


@dataclass(frozen=True)
class ServingPlan:
    """What ``LlmServing`` creates, decided before anything is."""

    controller_namespace: str
    namespaces: tuple[str, ...]
    """The models' namespaces the component creates (not a team's, which the stack creates, nor ``default``)."""
    controller_values: dict[str, Any]
    preset_values: dict[str, Any]
    gateway: GatewayPlan
    models: tuple[ModelPlan, ...]
    """Per model, in the section's order."""
    keda: ReleasePlan | None = None
    """KEDA's release, when a model is autoscaled."""
    mirror: Mirror | None = None
    outputs: Mapping[str, Any] = field(default_factory=dict)
    presets: tuple[dict[str, Any], ...] = ()
    """The library's own ``LLMInferenceServiceConfig`` presets, in the controller's namespace: the pipeline-parallel
    worker preset when a model spans nodes (``pipeline_preset``), none otherwise."""
    requires: tuple[str, ...] = ()
    """What the cluster or the cloud must offer that the stack does not create (the gateway's network, the weights'
    bucket grants, KEDA's read grant on a cluster made elsewhere), each once, in that order: the stack's
    ``servingRequires`` output, which ``gpu-platform plan`` prints."""

    @property
    def services(self) -> tuple[dict[str, Any], ...]:
        """One ``LLMInferenceService`` per model."""
        return tuple(m.service for m in self.models)

    @property
    def releases(self) -> tuple[ReleasePlan, ...]:
        """The gateway's and KEDA's releases, in install order."""
        return (*self.gateway.releases, *((self.keda,) if self.keda else ()))

    def summary(self) -> dict[str, Any]:
        """Per model, where it runs and with what: the stack's ``llmServices`` output."""
        out = {}
        for m in self.models:
            s = m.model.sizing
            out[f"{m.model.namespace}/{m.model.name}"] = {
                "pool": m.model.pool.name,
                "device": s.shape.device,
                "gpus": s.shape.gpus,
                "vllmArgs": s.vllm_args(),
                "weights": m.cache.kind,
                "startupSeconds": m.cache.deadlines.startup_probe["failureThreshold"]
                * m.cache.deadlines.startup_probe["periodSeconds"],
                "replicas": [m.model.min_replicas, m.model.max_replicas],
                "route": m.route.names.get("httpRoute", ""),
            }
        return out


def serving_plan(
    spec: ServingSpec, install_gie_crds: bool = True, existing_namespaces: frozenset[str] = frozenset()
) -> ServingPlan:
    """The controller's releases, the gateway, and per model its cache, service, route and autoscaler;
    ``existing_namespaces`` are created elsewhere (the stack's team namespaces)."""
    settings = spec.settings.get("gateway") or {}
    gateway = gateway_plan(
        spec.cloud,
        internal=settings.get("internal", False),
        gateway_class=settings.get("gateway_class"),
        network_created=spec.network_created,
    )
    models = tuple(model_plan(m, spec, gateway) for m in spec.models)
    return ServingPlan(
        controller_namespace=CONTROLLER_NAMESPACE,
        namespaces=tuple(n for n in spec.namespaces if n != "default" and n not in existing_namespaces),
        controller_values=controller_values(install_gie_crds),
        preset_values=dict(PRESET_VALUES),
        gateway=gateway,
        models=models,
        keda=(
            keda_release(spec.cloud, identity=spec.prometheus.keda_values if spec.prometheus else None)
            if spec.autoscaled
            else None
        ),
        mirror=spec.mirror,
        presets=(
            (pipeline_parallel_preset(CONTROLLER_NAMESPACE),)
            if any(m.sizing.nodes > 1 for m in spec.models)
            else ()
        ),
        requires=tuple(
            dict.fromkeys(
                [
                    *gateway.requires,
                    *(r for m in models for r in m.cache.requires),
                    *(spec.prometheus.requires if spec.prometheus else ()),
                ]
            )
        ),
    )
