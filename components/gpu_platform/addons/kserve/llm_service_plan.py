"""One sized model as a KServe ``LLMInferenceService`` (``serving.kserve.io/v1alpha2``, KServe v0.20.0).

KServe's controller merges the service over its well-known ``LLMInferenceServiceConfig`` presets
(``kserve-runtime-configs`` chart, ``files/llmisvcconfigs/resources.yaml``): ``kserve-config-llm-template`` runs
``vllm serve`` in the container ``main`` with ``--tensor-parallel-size`` from ``spec.parallelism.tensor`` and
appends ``$VLLM_ADDITIONAL_ARGS``; ``router.scheduler`` brings ``kserve-config-llm-scheduler``, which creates the
``InferencePool`` (Gateway API Inference Extension v1.5.0, ``inference.networking.k8s.io/v1``) and its endpoint
picker (``llm-d-router-endpoint-picker``), and ``router.route``/``router.gateway`` an HTTPRoute on the default
Gateway. So the plan sets what the sizing decided (tensor parallelism, ``--max-model-len``,
``--gpu-memory-utilization``), the pool's GPU resource and its placement, and leaves the rest to the presets.

A replica spanning nodes (pipeline parallelism) is refused: the controller asks for
``kserve-config-llm-worker-pipeline-parallel`` (``pkg/controller/v1alpha2/llmisvc/config_merge.go``), which no
chart at v0.20.0 ships (only the data-parallel worker presets).
"""

from __future__ import annotations

from typing import Any

from gpu_platform.addons.kserve.llm_sizing import Sizing, SizingError, describe_request
from gpu_platform.pools import GpuPool
from gpu_platform.scheduling import pool_tolerations, selector_labels
from gpu_platform.sharing import GPU_RESOURCE, advertised_resources

API_VERSION = "serving.kserve.io/v1alpha2"
KIND = "LLMInferenceService"
ADDITIONAL_ARGS = "VLLM_ADDITIONAL_ARGS"
"""The environment variable ``kserve-config-llm-template`` appends to ``vllm serve``."""
MAIN_CONTAINER = "main"
"""The model server's container name in KServe's presets: the plan's container merges into it by name."""


def replica_resource(pool: GpuPool, sizing: Sizing) -> tuple[str, int]:
    """The extended resource and units one replica's pod requests: its MIG slice, one shared unit, or ``tp``
    whole GPUs."""
    shape = sizing.shape
    if shape.mig_profile is not None and pool.sharing.mig_strategy != "single":
        return f"nvidia.com/mig-{shape.mig_profile}", 1
    if pool.sharing.mode in ("mig", "time-slicing", "mps"):
        return next(iter(advertised_resources(pool))), 1
    return GPU_RESOURCE, shape.tp


def _server_args(sizing: Sizing) -> str:
    """vLLM's arguments beyond what the preset sets (it sets ``--tensor-parallel-size`` from the spec)."""
    return " ".join(
        a for a in sizing.vllm_args() if not a.startswith(("--tensor-parallel-size", "--pipeline"))
    )


def llm_inference_service(
    name: str, namespace: str, uri: str, sizing: Sizing, pool: GpuPool, replicas: int = 1
) -> dict[str, Any]:
    """The ``LLMInferenceService`` serving ``uri`` as ``sizing`` decided, on ``pool``, routed through the
    inference gateway; ``SizingError`` for a replica spanning nodes."""
    if sizing.nodes > 1:
        raise SizingError(
            f"{describe_request(sizing.request)} needs {sizing.nodes} nodes per replica (pipeline parallelism), "
            "which KServe v0.20.0's presets do not run; use a pool with larger GPUs or more per node, or fp8"
        )
    resource, units = replica_resource(pool, sizing)
    limits = {resource: units}
    container = {
        "name": MAIN_CONTAINER,
        "env": [{"name": ADDITIONAL_ARGS, "value": _server_args(sizing)}],
        "resources": {"limits": limits, "requests": dict(limits)},
    }
    spec: dict[str, Any] = {
        "model": {"uri": uri, "name": sizing.request.model.hf_id},
        "replicas": replicas,
        "template": {
            "containers": [container],
            "nodeSelector": selector_labels(pool),
            "tolerations": pool_tolerations(pool),
        },
        # Empty objects: KServe's managed HTTPRoute on the default Gateway, and the scheduler preset's
        # InferencePool and endpoint picker (RouterSpec, pkg/apis/serving/v1alpha2/llm_inference_service_types.go).
        "router": {"route": {}, "gateway": {}, "scheduler": {}},
    }
    if sizing.shape.tp > 1:
        spec["parallelism"] = {"tensor": sizing.shape.tp}
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }
