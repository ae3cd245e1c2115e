"""Inference services on GPU pools: one KServe InferenceService per service.

No ``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

from collections.abc import Sequence
from typing import NotRequired

from pulumi import Input
from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform.args.common import CloudValue
from gpu_platform.args.operators import DeploymentModeValue
from gpu_platform.args.pool import GpuPoolArgs
from gpu_platform.args.validate import ARGS_CONFIG

DEFAULT_SERVICE_NAMESPACE = "default"
DEFAULT_SERVICE_GPUS = 1
DEFAULT_SERVICE_CPU = "2"
DEFAULT_SERVICE_MEMORY = "8Gi"
DEFAULT_MIN_REPLICAS = 1


@with_config(ARGS_CONFIG)
class InferenceServiceSettings(TypedDict):
    """What a service asks of its pool; shared by the stack file and ``GpuInferenceServiceArgs``.
    Known at plan time: they are checked against what the pool's nodes advertise."""

    namespace: NotRequired[str]
    """Namespace; default ``DEFAULT_SERVICE_NAMESPACE``. Created unless it is a team's or a system one."""
    gpus: NotRequired[float]
    """Units of the pool's GPU resource per replica (a whole GPU, a time-slicing/MPS replica or a MIG
    slice); default 1. Whole numbers >= 1 only: Kubernetes refuses fractions of extended resources."""
    mig_profile: NotRequired[str]
    """MIG pools advertising several profiles (``mixed``): the slice to request (``3g.40gb``)."""
    gpu_memory_mib: NotRequired[int]
    """Pools with sharing mode ``isolated`` only: MiB of a card's memory each of the replica's ``gpus`` units may
    use (``nvidia.com/gpumem``, enforced per container by HAMi), e.g. 8192 for a third of an L4. Without it a
    unit holds a whole card's memory. The slices of the services on one pool must fit in its cards' memory."""
    min_replicas: NotRequired[int]
    """Default 1. ``Standard`` mode does not scale up from 0 on traffic."""
    max_replicas: NotRequired[int]
    """Default ``min_replicas`` (at least 1)."""
    queue: NotRequired[str]
    """Kueue LocalQueue of the namespace (label ``kueue.x-k8s.io/queue-name``)."""
    priority_class: NotRequired[str]
    """Kueue WorkloadPriorityClass (label ``kueue.x-k8s.io/priority-class``)."""
    cpu: NotRequired[str]
    """CPU per replica, request == limit; default ``DEFAULT_SERVICE_CPU``."""
    memory: NotRequired[str]
    """Memory per replica, request == limit; default ``DEFAULT_SERVICE_MEMORY``."""
    gpu_memory_utilization: NotRequired[float]
    """Fraction of each GPU's memory the model server takes (vLLM's ``--gpu-memory-utilization``, TF Serving's
    ``--per_process_gpu_memory_fraction``), passed as that flag before ``args``. Default on a time-sliced or MPS
    pool: ``floor(0.9 / replicas, 2)``, so servers sharing a GPU fit in it together; elsewhere the server's own.
    The fractions of the pods that can share one GPU must sum to at most 0.9. Refused for a runtime without
    such a flag."""


@with_config(ARGS_CONFIG)
class InferenceServiceConfigArgs(InferenceServiceSettings):
    """A ``kserve.services`` entry of the stack file."""

    name: str
    """InferenceService name, a DNS-1035 label."""
    pool: str
    """Name of the GPU pool the predictor runs on."""
    model_format: str
    """KServe model format (``huggingface``, ``pytorch``, ``onnx``, ``triton`` ...)."""
    storage_uri: NotRequired[str]
    """Model location (``hf://org/model``, ``gs://...``, ``s3://...``, ``pvc://...``)."""
    runtime: NotRequired[str]
    """ServingRuntime / ClusterServingRuntime name; default: KServe picks one for the model format."""
    args: NotRequired[Sequence[str]]
    """Model server arguments (a memory fraction here, ``--gpu-memory-utilization=0.3``, is checked as
    ``gpu_memory_utilization`` is)."""


class GpuInferenceServiceArgs(InferenceServiceSettings):
    """An InferenceService placed on one GPU pool (``GpuInferenceService``)."""

    pool: GpuPoolArgs
    """The GPU pool the predictor runs on, described as for the node pool."""
    cloud: CloudValue
    """Cloud of the pool: ``gke``, ``eks``, ``aks`` or ``existing``."""
    model_format: Input[str]
    """KServe model format (``huggingface``, ``pytorch``, ``onnx``, ``triton`` ...)."""
    name: NotRequired[str]
    """InferenceService name (default: the component's name), a DNS-1035 label."""
    storage_uri: NotRequired[Input[str]]
    """Model location (``hf://org/model``, ``gs://...``, ``s3://...``, ``pvc://...``)."""
    runtime: NotRequired[Input[str]]
    """ServingRuntime / ClusterServingRuntime name; default: KServe picks one for the model format."""
    args: NotRequired[Input[Sequence[Input[str]]]]
    """Model server arguments."""
    deployment_mode: NotRequired[DeploymentModeValue]
    """``Standard`` (default) or ``Knative``; set as annotation ``serving.kserve.io/deploymentMode``."""
