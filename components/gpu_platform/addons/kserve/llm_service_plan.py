"""One sized model as a KServe ``LLMInferenceService`` (``serving.kserve.io/v1alpha2``, KServe v0.20.0).

KServe's controller merges the service over its well-known ``LLMInferenceServiceConfig`` presets
(``kserve-runtime-configs`` chart, ``files/llmisvcconfigs/resources.yaml``): ``kserve-config-llm-template`` runs
``vllm serve`` in the container ``main`` with ``--tensor-parallel-size`` from ``spec.parallelism.tensor`` and
appends ``$VLLM_ADDITIONAL_ARGS``; ``router.scheduler`` brings ``kserve-config-llm-scheduler``, which creates the
``InferencePool`` (Gateway API Inference Extension v1.5.0, ``inference.networking.k8s.io/v1``) and its endpoint
picker (``llm-d-router-endpoint-picker``), and ``router.route``/``router.gateway`` an HTTPRoute on the default
Gateway. So the plan sets what the sizing decided (tensor parallelism, ``--max-model-len``,
``--gpu-memory-utilization``), the pool's GPU resource and its placement, and leaves the rest to the presets.

A replica spanning nodes (pipeline parallelism over ``pp`` nodes, tensor parallelism over ``tp`` GPUs of each) has
``spec.parallelism`` ``{tensor: tp, pipeline: pp}`` and a ``spec.worker`` beside ``spec.template``: the controller
merges it over ``kserve-config-llm-worker-pipeline-parallel`` (``pkg/controller/v1alpha2/llmisvc/config_merge.go``),
which the library ships (``addons.serving.pipeline_preset``: no KServe chart does), and runs it as a LeaderWorkerSet
of ``pp`` pods per replica (``workload_multi_node.go``). Leader and workers are the same pod on the pool: ``tp``
GPUs, and on an EFA or InfiniBand pool the node's fabric (``fabric_resources``) so NCCL's traffic between the
stages does not fall back to TCP.

Prefill/decode disaggregation (``prefill_replicas``) adds ``spec.prefill`` (``replicas``, ``template``,
``parallelism``): the controller then merges ``spec.template`` over ``kserve-config-llm-decode-template`` and
``spec.prefill`` over ``kserve-config-llm-prefill-template`` (``kserve-runtime-configs`` v0.20.0,
``files/llmisvcconfigs/resources.yaml``) and runs the prefill pods as a Deployment ``<name>-kserve-prefill``
labelled ``llm-d.ai/role: prefill`` (``workload_single_node.go``). The decode preset puts llm-d's routing sidecar
(``llm-d-router-disagg-sidecar``, ``--kv-connector=nixlv2``) in front of vLLM; with no scheduler config of the
service's own, the controller gives the endpoint picker its P/D configuration (``disagg-profile-handler`` with
``always-disagg-pd-decider``, ``prefill-filter`` / ``decode-filter`` profiles: ``schedulerConfigText``,
``pkg/controller/v1alpha2/llmisvc/scheduler.go``). Neither preset sets vLLM's KV connector (their
``--kv-transfer-config`` is only for KV offloading), so both roles get NIXL's
``{"kv_connector":"NixlConnector","kv_role":"kv_both"}`` and ``VLLM_NIXL_SIDE_CHANNEL_HOST`` set to the pod's IP,
as llm-d's P/D guide sets them (llm-d/llm-d ``guides/pd-disaggregation/modelserver/gpu/vllm/base/
patch-prefill.yaml``, which gives each role its own ``kv_producer``/``kv_consumer``; ``kv_both`` serves either);
otherwise the NIXL side channel listens on ``localhost`` and the decode pod cannot reach the prefill pod's. P/D is planned only for a replica
within one node on whole GPUs (``prefill_decode_problem``).
"""

from __future__ import annotations

import copy
from typing import Any

from gpu_platform.addons.kserve.llm_sizing import Sizing, SizingError, describe_request
from gpu_platform.pools import GpuPool
from gpu_platform.scheduling import pool_tolerations, selector_labels
from gpu_platform.sharing import (
    EFA_RESOURCE,
    GPU_RESOURCE,
    HUGEPAGES_2MI_RESOURCE,
    RDMA_SHARED_IB_RESOURCE,
    advertised_resources,
    node_resources,
    resource_quantity,
)

API_VERSION = "serving.kserve.io/v1alpha2"
KIND = "LLMInferenceService"
ADDITIONAL_ARGS = "VLLM_ADDITIONAL_ARGS"
"""The environment variable ``kserve-config-llm-template`` appends to ``vllm serve``."""
NIXL_KV_TRANSFER_ARGS = '--kv-transfer-config \'{"kv_connector":"NixlConnector","kv_role":"kv_both"}\''
"""vLLM's KV connector for P/D, on prefill and decode alike; quoted for the presets' ``eval "exec vllm serve ...
${VLLM_ADDITIONAL_ARGS}"``."""
NIXL_SIDE_CHANNEL_HOST = {
    "name": "VLLM_NIXL_SIDE_CHANNEL_HOST",
    "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}},
}
"""Where a pod's NIXL side channel listens and what it tells its peer (vLLM's default is ``localhost``)."""
DECODE_SERVER_PORT = 8001
"""vLLM's port in ``kserve-config-llm-decode-template`` (the routing sidecar has 8000 there); the prefill and the
plain presets serve on 8000."""
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


def fabric_resources(
    pool: GpuPool,
) -> tuple[dict[str, int | str], dict[str, int | str], list[dict[str, str]]]:
    """What one pod holding a whole node of ``pool`` requests for NCCL between nodes, as the library's multi-node
    workloads ask for it (``verify.nccl.pod_resources``, ``examples/kueue-distributed-training``): on EFA pools every
    EFA device and 5120Mi of 2 MiB huge pages (with the memory they take requested beside them: Kubernetes refuses
    huge pages without a cpu or memory request) and libfabric's EFA provider; on InfiniBand pools one
    ``rdma/shared_ib`` (the shared plugin hands each such pod every HCA of the node). ``(limits, requests, env)``;
    empty on other pools."""
    node = node_resources(pool)
    limits: dict[str, int | str] = {}
    env: list[dict[str, str]] = []
    if EFA_RESOURCE in node:
        limits[EFA_RESOURCE] = node[EFA_RESOURCE]
        limits[HUGEPAGES_2MI_RESOURCE] = resource_quantity(
            HUGEPAGES_2MI_RESOURCE, node[HUGEPAGES_2MI_RESOURCE]
        )
        env = [{"name": "FI_PROVIDER", "value": "efa"}, {"name": "FI_EFA_USE_DEVICE_RDMA", "value": "1"}]
    if RDMA_SHARED_IB_RESOURCE in node:
        limits[RDMA_SHARED_IB_RESOURCE] = 1
        env = [{"name": "NCCL_IB_DISABLE", "value": "0"}]
    requests = dict(limits)
    if HUGEPAGES_2MI_RESOURCE in limits:
        requests["memory"] = limits[HUGEPAGES_2MI_RESOURCE]
    return limits, requests, env


def multi_node_problem(pool: GpuPool, sizing: Sizing) -> str | None:
    """Why a replica of ``sizing`` cannot span nodes of ``pool`` (a shared or sliced GPU, a DRA pool, fewer nodes
    than pipeline stages), else ``None``."""
    what = describe_request(sizing.request)
    if pool.dra or pool.sharing.mode != "none":
        how = "allocation 'dra'" if pool.dra else f"sharing '{pool.sharing.mode}'"
        return (
            f"{what} needs {sizing.nodes} nodes per replica, and pool '{pool.name}' has {how}: a replica spanning "
            "nodes takes whole GPUs of each node"
        )
    if pool.max_nodes < sizing.nodes:
        return (
            f"{what} needs {sizing.nodes} nodes per replica (pipeline parallelism), and pool '{pool.name}' has "
            f"{{{{max_nodes}}}} {pool.max_nodes}"
        )
    return None


def prefill_decode_problem(pool: GpuPool, sizing: Sizing) -> str | None:
    """Why ``sizing`` on ``pool`` cannot be served with prefill/decode disaggregation, else ``None``.

    A replica spanning nodes: KServe v0.20.0's charts have prefill presets only for one pod per replica
    (``kserve-config-llm-prefill-template``) or data-parallel workers (``kserve-config-llm-prefill-worker-data-
    parallel``), none for the pipeline-parallel workers the library runs such a replica with. A MIG slice or a
    shared GPU: NIXL moves the KV cache GPU to GPU (UCX over CUDA IPC, RDMA or TCP), and NVIDIA's MIG user guide
    lists CUDA IPC across GPU instances as unsupported, while a time-sliced or MPS GPU puts prefill and decode back on
    the same compute, which disaggregation exists to separate."""
    what = describe_request(sizing.request)
    if sizing.nodes > 1:
        return (
            f"{what} needs {sizing.nodes} nodes per replica (pipeline parallelism), and KServe v0.20.0 has no "
            "prefill preset for a replica spanning nodes; serve it without {{prefill_decode}}, or on a pool whose "
            "node holds a replica"
        )
    if pool.sharing.mode != "none":
        return (
            f"{what} is placed on pool '{pool.name}' with sharing '{pool.sharing.mode}': prefill/decode "
            "disaggregation moves the KV cache between whole GPUs over NIXL (no CUDA IPC between MIG slices, and a "
            "shared GPU puts prefill and decode back on the same compute); name a pool with sharing 'none' under "
            "{{pools}}, or drop {{prefill_decode}}"
        )
    return None


def _server_pod(sizing: Sizing, pool: GpuPool, multi_node: bool, disaggregated: bool) -> dict[str, Any]:
    """One vLLM pod of the service on ``pool``: its GPUs, the sizing's arguments (and NIXL's KV connector when
    ``disaggregated``), the node's fabric when a replica spans nodes, the pool's placement."""
    resource, units = replica_resource(pool, sizing)
    limits: dict[str, int | str] = {resource: units}
    requests: dict[str, int | str] = dict(limits)
    args = [_server_args(sizing)] + ([NIXL_KV_TRANSFER_ARGS] if disaggregated else [])
    env: list[dict[str, Any]] = [{"name": ADDITIONAL_ARGS, "value": " ".join(a for a in args if a)}]
    if disaggregated:
        env.append(copy.deepcopy(NIXL_SIDE_CHANNEL_HOST))
    if multi_node:
        fabric_limits, fabric_requests, fabric_env = fabric_resources(pool)
        limits.update(fabric_limits)
        requests.update(fabric_requests)
        env += fabric_env
    container = {
        "name": MAIN_CONTAINER,
        "env": env,
        "resources": {"limits": limits, "requests": requests},
    }
    return {
        "containers": [container],
        "nodeSelector": selector_labels(pool),
        "tolerations": pool_tolerations(pool),
    }


def llm_inference_service(
    name: str,
    namespace: str,
    uri: str,
    sizing: Sizing,
    pool: GpuPool,
    replicas: int = 1,
    prefill_replicas: int | None = None,
) -> dict[str, Any]:
    """The ``LLMInferenceService`` serving ``uri`` as ``sizing`` decided, on ``pool``, routed through the
    inference gateway; a replica spanning nodes with a ``spec.worker`` like its leader (``SizingError`` when the
    pool cannot hold one: ``multi_node_problem``); with ``prefill_replicas``, a ``spec.prefill`` of that many pods
    like the decode pods, both with NIXL's KV connector (``SizingError``: ``prefill_decode_problem``)."""
    multi_node = sizing.nodes > 1
    if multi_node and (reason := multi_node_problem(pool, sizing)):
        raise SizingError(reason)
    disaggregated = prefill_replicas is not None
    if disaggregated and (reason := prefill_decode_problem(pool, sizing)):
        raise SizingError(reason)
    pod = _server_pod(sizing, pool, multi_node, disaggregated)
    spec: dict[str, Any] = {
        "model": {"uri": uri, "name": sizing.request.model.hf_id},
        "replicas": replicas,
        "template": pod,
        # Empty objects: KServe's managed HTTPRoute on the default Gateway, and the scheduler preset's
        # InferencePool and endpoint picker (RouterSpec, pkg/apis/serving/v1alpha2/llm_inference_service_types.go).
        "router": {"route": {}, "gateway": {}, "scheduler": {}},
    }
    if multi_node:
        # The leader (spec.template) and the other pipeline stages (spec.worker): one LeaderWorkerSet group of
        # ``pp`` pods per replica, each pod ``tp`` GPUs of its own node.
        spec["worker"] = copy.deepcopy(pod)
        spec["parallelism"] = {"tensor": sizing.shape.tp, "pipeline": sizing.shape.pp}
    elif sizing.shape.tp > 1:
        spec["parallelism"] = {"tensor": sizing.shape.tp}
    if prefill_replicas is not None:
        # The prefill pods: the same pool, GPUs and tensor parallelism as the decode pods (spec.template).
        prefill: dict[str, Any] = {"replicas": prefill_replicas, "template": copy.deepcopy(pod)}
        if "parallelism" in spec:
            prefill["parallelism"] = dict(spec["parallelism"])
        spec["prefill"] = prefill
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }
