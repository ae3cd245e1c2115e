"""``LlmServing``: KServe's LLMInferenceService controller, the inference gateway, and per model its weights' cache,
its ``LLMInferenceService`` (sized for vLLM on its GPU pools) and its autoscaler (see ``addons.serving.plan``).
KServe (``KServe``, with cert-manager) must be installed: the controller shares its namespace, ConfigMap and
certificate issuer."""

from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from gpu_platform.addons.serving.checks import resolve_serving_args
from gpu_platform.addons.serving.gateway import ReleasePlan
from gpu_platform.addons.serving.plan import PRESETS_RELEASE, ModelPlan, ServingPlan, serving_plan
from gpu_platform.addons.serving.settings import LlmServingArgs
from gpu_platform.component import PlannedComponent
from gpu_platform.helm_release import helm_release
from gpu_platform.plans.mirror import mirrored_object
from gpu_platform.releases import KSERVE_LLMISVC_CRD, KSERVE_LLMISVC_RESOURCES, KSERVE_RUNTIME_CONFIGS


class LlmServing(PlannedComponent[ServingPlan]):
    """Language models served by vLLM as KServe ``LLMInferenceService``s, each on the smallest shape of its GPU
    pools that holds it, routed through the inference gateway and scaled on vLLM's queue."""

    _type_token = "gpu-platform:index:LlmServing"

    services: pulumi.Output[dict[str, Any]]
    """Per model (``namespace/name``): its pool, device, GPUs, vLLM arguments, weights, start-up deadline, replicas
    and route."""

    def __init__(self, name: str, args: LlmServingArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. Language models
        served by vLLM as KServe ``LLMInferenceService``s, each on the smallest shape of its GPU pools."""
        self._start(name, serving_plan(resolve_serving_args(args)), opts)

    def _object(
        self, resource_name: str, obj: dict[str, Any], plan: ServingPlan, deps: list[Any], **opts: Any
    ) -> Any:
        body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
        return k8s.apiextensions.CustomResource(
            resource_name,
            api_version=obj["apiVersion"],
            kind=obj["kind"],
            metadata=obj["metadata"],
            opts=self.child_opts(depends_on=deps, **opts),
            **mirrored_object(body, plan.mirror),
        )

    def _release(self, name: str, rp: ReleasePlan, plan: ServingPlan, deps: list[Any]) -> Any:
        return helm_release(
            self,
            f"{name}-{rp.release_name}",
            rp.pin,
            rp.release_name,
            rp.namespace,
            values=rp.values,
            create_namespace=True,
            skip_crds=True if rp.skip_crds else None,
            depends_on=deps,
            retain_on_delete=True if rp.holds_crds else None,
            mirror=plan.mirror,
        )

    def _create(self, name: str, plan: ServingPlan) -> dict[str, Any]:
        deps = self._dependencies
        controller, presets = self._kserve(name, plan)
        gateway_deps = self._gateway(name, plan, controller)
        keda = self._release(name, plan.keda, plan, deps) if plan.keda else None
        namespaces = {
            ns: k8s.core.v1.Namespace(
                f"{name}-ns-{ns}",
                metadata={"name": ns},
                opts=self.child_opts(depends_on=deps, retain_on_delete=True),
            )
            for ns in plan.namespaces
        }
        for m in plan.models:
            self._model(name, m, plan, presets, controller, gateway_deps, namespaces, keda)
        self.services = pulumi.Output.from_input(plan.summary())
        return {"services": self.services}

    def _kserve(self, name: str, plan: ServingPlan) -> tuple[Any, list[Any]]:
        """KServe's LLMInferenceService CRD, controller and preset releases, in that order, then the library's own
        presets; the controller and the presets."""
        deps = self._dependencies
        crds = helm_release(
            self,
            f"{name}-crd",
            KSERVE_LLMISVC_CRD.pin,
            KSERVE_LLMISVC_CRD.release_name,
            plan.controller_namespace,
            depends_on=deps,
            mirror=plan.mirror,
            # Only the CRDs, as templates without a keep policy: uninstalling would delete every
            # LLMInferenceService. Removing serving leaves the release (docs/day2.md).
            retain_on_delete=KSERVE_LLMISVC_CRD.release_holds_crds,
        )
        controller = helm_release(
            self,
            f"{name}-controller",
            KSERVE_LLMISVC_RESOURCES.pin,
            KSERVE_LLMISVC_RESOURCES.release_name,
            plan.controller_namespace,
            values=plan.controller_values,
            depends_on=[crds, *deps],
            mirror=plan.mirror,
        )
        # The presets are LLMInferenceServiceConfigs: after their CRD, and the controller's webhook validates them.
        presets = helm_release(
            self,
            f"{name}-presets",
            KSERVE_RUNTIME_CONFIGS.pin,
            PRESETS_RELEASE,
            plan.controller_namespace,
            values=plan.preset_values,
            depends_on=[crds, controller],
            mirror=plan.mirror,
        )
        # The library's own presets (the pipeline-parallel worker preset no KServe chart ships), likewise.
        own = [
            self._object(f"{name}-preset-{obj['metadata']['name']}", obj, plan, [crds, controller, *deps])
            for obj in plan.presets
        ]
        return controller, [presets, *own]

    def _gateway(self, name: str, plan: ServingPlan, controller: Any) -> list[Any]:
        """The gateway's releases in order (CRDs, controller, extension), then its GatewayClass and Gateway; what
        a model's service waits for."""
        previous: list[Any] = list(self._dependencies)
        for rp in plan.gateway.releases:
            previous = [self._release(name, rp, plan, previous)]
        gateway_deps = [
            *previous,
            controller,
        ]  # the Gateway's namespace is KServe's; the CRDs are the release's
        for obj in plan.gateway.objects:
            gateway_deps = [self._object(f"{name}-{obj['kind'].lower()}", obj, plan, gateway_deps)]
        return gateway_deps

    def _model(
        self,
        name: str,
        m: ModelPlan,
        plan: ServingPlan,
        presets: list[Any],
        controller: Any,
        gateway_deps: list[Any],
        namespaces: dict[str, Any],
        keda: Any,
    ) -> None:
        """One model: the objects before its service, the LLMInferenceService (after the presets, the controller
        and the gateway), its route's policies and its autoscaling objects."""
        deps = self._dependencies
        meta = m.service["metadata"]
        here = f"{name}-{meta['namespace']}-{meta['name']}"
        ns = [namespaces[meta["namespace"]]] if meta["namespace"] in namespaces else []
        before = [self._object(f"{here}-{o['kind'].lower()}", o, plan, [*ns, *deps]) for o in m.before]
        service = self._object(
            here,
            m.service,
            plan,
            [*presets, controller, *gateway_deps, *ns, *before, *deps],
            custom_timeouts=pulumi.CustomTimeouts(create=m.cache.deadlines.create_timeout),
        )
        # GKE's policies target the model's InferencePool (its CRD is the controller release's).
        for o in m.route.objects:
            self._object(f"{here}-{o['kind'].lower()}", o, plan, [service, controller, *deps])
        # The scrape object, KEDA's authentication and the ScaledObject, in order, after KEDA's release.
        chain = [service, *([keda] if keda is not None else []), *deps]
        for o in m.autoscaling.objects if m.autoscaling else ():
            chain = [self._object(f"{here}-{o['kind'].lower()}", o, plan, chain)]
