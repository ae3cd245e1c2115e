"""A KServe InferenceService placed on one GPU pool, asking for whole units of what the pool advertises.

Kubernetes accepts only whole numbers of an extended resource, and its request must equal its limit
(GPU_PLATFORM_FACTS.md section 4, pitfall 4): ``nvidia.com/gpu: 0.5`` is rejected at admission. A
fraction of a GPU therefore comes from the pool's sharing, never from the request: a time-slicing or
MPS replica, or a MIG slice, is one unit of the resource ``sharing.advertised_resources`` names for
the pool. The predictor asks for N such units (limits == requests), tolerates the pool's taints and
selects its nodes with the labels ``scheduling`` puts on them, so it lands on that pool and no other.

In ``Knative`` mode the ``nodeSelector`` and ``tolerations`` need Knative's
``kubernetes.podspec-nodeselector`` / ``kubernetes.podspec-tolerations`` features (see
``operators.kserve``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, TypedDict

import pulumi
import pulumi_kubernetes as k8s
from pulumi import Input

from gpu_platform.args import GpuPoolArgs, pool_args_to_config
from gpu_platform.config import ConfigError
from gpu_platform.config.stack import resolve_pools
from gpu_platform.gpu_requests import gpu_resource, gpu_units_problems
from gpu_platform.operators.kueue_objects import PRIORITY_CLASS_LABEL, QUEUE_NAME_LABEL
from gpu_platform.pools import GpuPool
from gpu_platform.scheduling import pool_tolerations, selector_labels

API_VERSION = "serving.kserve.io/v1beta1"
DEPLOYMENT_MODE_ANNOTATION = "serving.kserve.io/deploymentMode"
DEPLOYMENT_MODES = ("Standard", "Knative")
CLOUDS = ("gke", "eks", "aks", "existing")

# Kubernetes resource.Quantity, as the InferenceService CRD writes it.
_QUANTITY = re.compile(
    r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))"
    r"(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
)
_DNS1035 = re.compile(r"^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")


class GpuInferenceServiceArgs(TypedDict):
    pool: GpuPoolArgs
    """The GPU pool the predictor runs on, described as for the node pool (resolved from the catalog)."""
    cloud: str
    """Cloud of the pool: ``gke``, ``eks``, ``aks`` or ``existing``."""
    model_format: Input[str]
    """KServe model format (``huggingface``, ``pytorch``, ``onnx``, ``triton`` ...)."""
    name: NotRequired[str]
    """InferenceService name (default: the component's name). A DNS-1035 label."""
    namespace: NotRequired[Input[str]]
    """Namespace (default ``default``). It must exist; ``deploy_kserve`` creates or orders it."""
    storage_uri: NotRequired[Input[str]]
    """Model location (``hf://org/model``, ``gs://...``, ``s3://...``, ``pvc://...``)."""
    runtime: NotRequired[Input[str]]
    """ServingRuntime / ClusterServingRuntime name; default: KServe picks one for the model format."""
    gpus: NotRequired[Input[float]]
    """Units of the pool's GPU resource per replica (default 1): a whole GPU, a time-slicing/MPS
    replica or a MIG slice. Whole numbers >= 1 only; share a GPU through the pool instead."""
    mig_profile: NotRequired[str]
    """MIG pools advertising several profiles (``mixed`` strategy): the slice to request (``3g.40gb``)."""
    args: NotRequired[Input[Sequence[Input[str]]]]
    """Model server arguments (e.g. vLLM's ``--gpu-memory-utilization=0.3`` on a time-sliced GPU)."""
    min_replicas: NotRequired[Input[int]]
    """Default 1. ``Standard`` mode does not scale up from 0 on traffic."""
    max_replicas: NotRequired[Input[int]]
    """Default ``min_replicas`` (at least 1)."""
    queue: NotRequired[Input[str]]
    """Kueue LocalQueue name (label ``kueue.x-k8s.io/queue-name``)."""
    priority_class: NotRequired[Input[str]]
    """Kueue WorkloadPriorityClass (label ``kueue.x-k8s.io/priority-class``)."""
    cpu: NotRequired[Input[str]]
    """CPU per replica, request == limit (default ``2``)."""
    memory: NotRequired[Input[str]]
    """Memory per replica, request == limit (default ``8Gi``)."""
    deployment_mode: NotRequired[str]
    """``Standard`` (default) or ``Knative``; set as annotation ``serving.kserve.io/deploymentMode``."""


def resolve_pool(cloud: str, pool: Mapping[str, Any]) -> GpuPool:
    """The pool argument resolved from the catalog; errors read ``pool.<field>``."""
    if cloud not in CLOUDS:
        raise ConfigError([("cloud", f"{cloud!r} is not valid; valid: {', '.join(CLOUDS)}")])
    try:
        return resolve_pools(cloud, [pool_args_to_config(pool)], path="pool")[0]
    except ConfigError as exc:
        raise ConfigError([(p.replace("pool[0]", "pool", 1), r) for p, r in exc.problems]) from None


def whole_units(gpus: Any, pool: GpuPool, resource: str) -> int:
    """``gpus`` as an int, or ``ConfigError`` naming ``gpus`` (also run on values known only at deploy)."""
    problems = gpu_units_problems(gpus, pool, resource)
    if problems:
        raise ConfigError(problems)
    return int(gpus)


def _check_plain(args: Mapping[str, Any], name: str) -> list[tuple[str, str]]:
    """Checks on the arguments that are plain values now (Outputs are checked when known)."""
    problems: list[tuple[str, str]] = []
    if not _DNS1035.match(name):
        problems.append(("name", f"{name!r} is not a DNS-1035 label (lowercase letters, digits, '-', <= 63)"))
    mode = args.get("deployment_mode", "Standard")
    if mode not in DEPLOYMENT_MODES:
        problems.append(("deployment_mode", f"{mode!r} is not valid; valid: {', '.join(DEPLOYMENT_MODES)}"))
    for key, default in (("cpu", "2"), ("memory", "8Gi")):
        value = args.get(key, default)
        if isinstance(value, str) and not _QUANTITY.match(value):
            problems.append((key, f"{value!r} is not a Kubernetes quantity"))
    lo, hi = args.get("min_replicas", 1), args.get("max_replicas")
    if isinstance(lo, int) and lo < 0:
        problems.append(("min_replicas", f"{lo} is negative"))
    if isinstance(hi, int) and hi < 1:
        problems.append(("max_replicas", f"{hi} is less than 1"))
    elif isinstance(hi, int) and isinstance(lo, int) and hi < lo:
        problems.append(("max_replicas", f"{hi} is less than min_replicas {lo}"))
    if not args.get("model_format"):
        problems.append(("model_format", "required (huggingface, pytorch, onnx, triton ...)"))
    return problems


class GpuInferenceService(pulumi.ComponentResource):
    """An InferenceService whose predictor is placed on one GPU pool and asks for whole units of it."""

    inference_service_name: pulumi.Output[str]
    gpu_resource: pulumi.Output[str]
    """Extended resource each replica requests (``nvidia.com/gpu``, ``nvidia.com/mig-3g.40gb`` ...)."""
    gpu_units: pulumi.Output[int]
    """Units of ``gpu_resource`` per replica (limits == requests)."""

    def __init__(self, name: str, args: GpuInferenceServiceArgs, opts: pulumi.ResourceOptions | None = None):
        isvc_name = args.get("name", name)
        problems = _check_plain(args, isvc_name)
        pool = resolve_pool(args.get("cloud", ""), args["pool"])
        resource, resource_problems = gpu_resource(pool, args.get("mig_profile"))
        problems += resource_problems
        gpus = args.get("gpus", 1)
        if not isinstance(gpus, pulumi.Output):
            problems += gpu_units_problems(gpus, pool, resource)
        if problems:
            raise ConfigError(problems)
        assert resource is not None
        super().__init__("gpu-platform:index:GpuInferenceService", name, None, opts)

        if isinstance(gpus, pulumi.Output):
            units: Input[int] = gpus.apply(lambda g: whole_units(g, pool, resource))
        else:
            units = int(gpus)
        cpu, memory = args.get("cpu", "2"), args.get("memory", "8Gi")
        # Extended resources must have request == limit; cpu/memory equal too (Guaranteed QoS), so a
        # neighbour sharing the node never squeezes a model server that has already loaded its weights.
        limits = {resource: units, "cpu": cpu, "memory": memory}
        model: dict[str, Any] = {
            "modelFormat": {"name": args["model_format"]},
            "resources": {"limits": limits, "requests": dict(limits)},
        }
        for key, field in (("storage_uri", "storageUri"), ("runtime", "runtime"), ("args", "args")):
            value = args.get(key)
            if value is not None and not (isinstance(value, (list, tuple)) and not value):
                model[field] = value
        min_replicas = args.get("min_replicas", 1)
        max_replicas = args.get("max_replicas", max(min_replicas, 1) if isinstance(min_replicas, int) else 1)
        mode = args.get("deployment_mode", "Standard")
        if mode == "Standard" and min_replicas == 0:
            pulumi.log.warn(
                f"{isvc_name}: min_replicas 0 in Standard mode parks the model at zero replicas; "
                "it does not scale up on traffic (that needs Knative mode or KEDA)",
                resource=self,
            )
        labels: dict[str, Input[str]] = {}
        if args.get("queue"):
            labels[QUEUE_NAME_LABEL] = args["queue"]
        if args.get("priority_class"):
            labels[PRIORITY_CLASS_LABEL] = args["priority_class"]
        metadata: dict[str, Any] = {
            "name": isvc_name,
            "namespace": args.get("namespace", "default"),
            "annotations": {DEPLOYMENT_MODE_ANNOTATION: mode},
        }
        if labels:
            metadata["labels"] = labels
        # A component's depends_on is not inherited by its children: hand it on (KServe's releases).
        deps = opts.depends_on if opts is not None and opts.depends_on is not None else []
        self.isvc = k8s.apiextensions.CustomResource(
            f"{name}-isvc",
            api_version=API_VERSION,
            kind="InferenceService",
            metadata=metadata,
            spec={
                "predictor": {
                    "minReplicas": min_replicas,
                    "maxReplicas": max_replicas,
                    "nodeSelector": selector_labels(pool),
                    "tolerations": pool_tolerations(pool),
                    "model": model,
                }
            },
            opts=pulumi.ResourceOptions(
                parent=self, depends_on=deps if isinstance(deps, (list, tuple)) else [deps]
            ),
        )
        self.inference_service_name = pulumi.Output.from_input(isvc_name)
        self.gpu_resource = pulumi.Output.from_input(resource)
        self.gpu_units = pulumi.Output.from_input(units)
        self.register_outputs(
            {
                "inference_service_name": self.inference_service_name,
                "gpu_resource": self.gpu_resource,
                "gpu_units": self.gpu_units,
            }
        )
