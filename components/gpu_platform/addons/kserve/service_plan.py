"""An InferenceService placed on one GPU pool, asking for whole units of what the pool advertises.

Kubernetes accepts only whole numbers of an extended resource, and its request must equal its limit
(https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/; kubernetes/kubernetes
``pkg/apis/core/validation/validation.go``): ``nvidia.com/gpu: 0.5`` is rejected at admission. A fraction
of a GPU therefore comes from the pool's sharing, never from the request: a time-slicing or MPS replica,
or a MIG slice, is one unit of the resource ``sharing.advertised_resources`` names for the pool. The
predictor asks for N such units (limits == requests), tolerates the pool's taints and selects its nodes
with the labels ``scheduling`` puts on them, so it lands on that pool and no other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi

from gpu_platform.addons.kserve.gpu_memory import shared_replicas
from gpu_platform.addons.kserve.service_checks import ServiceRequest, resolve_service_args
from gpu_platform.addons.kserve.service_settings import GpuInferenceServiceArgs
from gpu_platform.addons.kueue.plan import PRIORITY_CLASS_LABEL, QUEUE_NAME_LABEL
from gpu_platform.args.operators import DEFAULT_DEPLOYMENT_MODE
from gpu_platform.scheduling import pool_tolerations, selector_labels
from gpu_platform.sharing import GPU_MEMORY_RESOURCE

API_VERSION = "serving.kserve.io/v1beta1"
DEPLOYMENT_MODE_ANNOTATION = "serving.kserve.io/deploymentMode"


@dataclass(frozen=True)
class InferenceServicePlan:
    """The InferenceService object, built from a checked request; Outputs may sit in the model spec."""

    request: ServiceRequest
    deployment_mode: str
    metadata: dict[str, Any]
    spec: dict[str, Any]

    @property
    def uncapped_on_shared_gpu(self) -> bool:
        """A server on a time-sliced or MPS pool whose memory the library cannot cap: worth a warning."""
        return shared_replicas(self.request.pool) is not None and self.request.gpu_memory.fraction is None

    @property
    def standard_at_zero(self) -> bool:
        """Standard mode does not scale up from zero on traffic: worth a warning."""
        return self.deployment_mode == "Standard" and self.request.min_replicas == 0


def inference_service_plan(
    request: ServiceRequest, model: Mapping[str, Any], deployment_mode: str = DEFAULT_DEPLOYMENT_MODE
) -> InferenceServicePlan:
    """``model`` holds ``model_format`` and optionally ``storage_uri``, ``runtime``, ``args`` (may be Outputs)."""
    # Extended resources must have request == limit; cpu/memory equal too (Guaranteed QoS), so a neighbour
    # sharing the node never squeezes a model server that has already loaded its weights.
    limits: dict[str, Any] = {request.resource: request.units, "cpu": request.cpu, "memory": request.memory}
    if request.gpu_memory_mib is not None:  # isolated pools: MiB per unit, HAMi's per-container limit
        limits[GPU_MEMORY_RESOURCE] = request.gpu_memory_mib
    spec: dict[str, Any] = {
        "modelFormat": {"name": model["model_format"]},
        "resources": {"limits": limits, "requests": dict(limits)},
    }
    for key, field_name in (("storage_uri", "storageUri"), ("runtime", "runtime"), ("args", "args")):
        value = model_args(model.get("args"), request) if key == "args" else model.get(key)
        if value is not None and not (isinstance(value, (list, tuple)) and not value):
            spec[field_name] = value
    # On the InferenceService: KServe v0.20.0 copies its labels onto the predictor's Deployment and pod
    # template (components/predictor.go buildObjectMeta; reconcilers/deployment createRawDefaultDeployment),
    # where Kueue's deployment webhook reads the queue and priority and puts them on the pods
    # (pkg/controller/jobs/deployment/deployment_webhook.go at v0.19.2).
    labels = {}
    if request.queue:
        labels[QUEUE_NAME_LABEL] = request.queue
    if request.priority_class:
        labels[PRIORITY_CLASS_LABEL] = request.priority_class
    metadata: dict[str, Any] = {
        "name": request.name,
        "namespace": request.namespace,
        "annotations": {DEPLOYMENT_MODE_ANNOTATION: deployment_mode},
    }
    if labels:
        metadata["labels"] = labels
    predictor = {
        "minReplicas": request.min_replicas,
        "maxReplicas": request.max_replicas,
        "nodeSelector": selector_labels(request.pool),
        "tolerations": pool_tolerations(request.pool),
        "model": spec,
    }
    return InferenceServicePlan(request, deployment_mode, metadata, {"predictor": predictor})


def model_args(args: Any, request: ServiceRequest) -> Any:
    """The server's arguments, led by its memory-fraction flag when the library sets it (a flag the user also
    writes later in an Output wins: the servers' parsers keep the last one)."""
    added = request.gpu_memory.added_arg
    if added is None:
        return args
    if args is None or isinstance(args, (list, tuple)):
        return [added, *(args or ())]
    return pulumi.Output.from_input(args).apply(lambda given: [added, *given])


def gpu_inference_service_plan(name: str, args: GpuInferenceServiceArgs) -> InferenceServicePlan:
    """``GpuInferenceService``'s plan from its arguments: resolve then plan, as the component does."""
    request, model, mode = resolve_service_args(name, args)
    return inference_service_plan(request, model, mode)


def __getattr__(name: str) -> object:
    """Renamed plan functions resolve under their old names, with a warning (``gpu_platform._moved``)."""
    from gpu_platform._moved import moved_attribute

    return moved_attribute(__name__, name)
