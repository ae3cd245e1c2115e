"""A sized model as KServe v0.20.0's LLMInferenceService: valid against the vendored CRD (v1alpha2), with the
sizing's tensor parallelism, vLLM arguments, the pool's GPU resource and placement, and the inference gateway's
router (InferencePool and endpoint picker from KServe's scheduler preset); a replica spanning nodes with pipeline
parallelism, a worker like its leader and the pool's fabric, or refused when the pool cannot hold it."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

from gpu_platform.addons.kserve.llm_service_plan import llm_inference_service, multi_node_problem
from gpu_platform.addons.kserve.llm_sizing import Request, SizingError, size_model
from gpu_platform.catalog.llm_models import LLM_MODELS
from gpu_platform.pools import GpuPool
from gpu_platform.scheduling import selector_labels
from tests.support.crds import problems_of
from tests.support.pools import resolved_pool

MIG = {
    "name": "mig",
    "gpu": "h100-80gb",
    "gpus_per_node": 1,
    "max_nodes": 1,
    "sharing": {"mode": "mig", "mig": {"profiles": ["3g.40gb", "2g.20gb", "2g.20gb"]}},
}
H100 = {"name": "h100", "gpu": "h100-80gb", "gpus_per_node": 8, "max_nodes": 2}
L4_SHARED = {
    "name": "l4",
    "gpu": "l4",
    "gpus_per_node": 1,
    "sharing": {"mode": "time-slicing", "replicas": 2},
}


def plan(
    model: str, precision: str, context: int, concurrency: int, *raw: dict
) -> tuple[dict[str, Any], GpuPool]:
    pools = [resolved_pool("existing", **r) for r in raw]
    sizing = size_model(Request(LLM_MODELS[model], precision, context, concurrency), pools)
    pool = next(p for p in pools if p.name == sizing.shape.pool)
    return llm_inference_service(model, "llm", f"hf://{sizing.request.model.hf_id}", sizing, pool, 2), pool


def main_container(obj: dict[str, Any]) -> dict[str, Any]:
    (container,) = obj["spec"]["template"]["containers"]
    assert container["name"] == "main"  # merges into the preset's vLLM container by name
    return container


def test_a_small_model_on_a_mig_slice() -> None:
    obj, _ = plan("llama-3.1-8b", "bf16", 8192, 4, MIG, H100)
    assert problems_of(obj) == []
    container = main_container(obj)
    assert container["resources"]["limits"] == {"nvidia.com/mig-3g.40gb": 1}
    assert container["env"] == [
        {"name": "VLLM_ADDITIONAL_ARGS", "value": "--max-model-len=8192 --gpu-memory-utilization=0.9"}
    ]
    assert "parallelism" not in obj["spec"]
    assert obj["spec"]["template"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]
    assert obj["spec"]["model"] == {
        "uri": "hf://meta-llama/Llama-3.1-8B-Instruct",
        "name": "meta-llama/Llama-3.1-8B-Instruct",
    }
    assert obj["spec"]["replicas"] == 2
    assert obj["spec"]["router"] == {"route": {}, "gateway": {}, "scheduler": {}}


def test_a_model_on_a_whole_gpu_and_one_over_eight() -> None:
    whole, pool = plan("qwen2.5-7b", "bf16", 32768, 8, H100)
    assert problems_of(whole) == []
    assert main_container(whole)["resources"]["limits"] == {"nvidia.com/gpu": 1}
    assert whole["spec"]["template"]["nodeSelector"] == selector_labels(pool) != {}
    big, _ = plan("llama-3.1-405b", "fp8", 8192, 8, H100)
    assert problems_of(big) == []
    assert big["spec"]["parallelism"] == {"tensor": 8}
    assert main_container(big)["resources"]["limits"] == {"nvidia.com/gpu": 8}


def test_a_shared_gpu_gets_its_fraction() -> None:
    obj, _ = plan("qwen2.5-7b", "int4", 4096, 2, L4_SHARED)
    assert problems_of(obj) == []
    assert main_container(obj)["env"][0]["value"] == "--max-model-len=4096 --gpu-memory-utilization=0.45"
    assert main_container(obj)["resources"]["limits"] == {"nvidia.com/gpu": 1}


def test_a_replica_over_two_nodes_has_a_worker_like_its_leader() -> None:
    obj, pool = plan("llama-3.1-405b", "bf16", 8192, 8, H100)
    assert problems_of(obj) == []
    spec = obj["spec"]
    # KServe runs it as one LeaderWorkerSet group of `pipeline` pods per replica over the pipeline preset.
    assert spec["parallelism"] == {"tensor": 8, "pipeline": 2}
    assert spec["worker"] == spec["template"]
    container = main_container(obj)
    assert container["resources"] == {"limits": {"nvidia.com/gpu": 8}, "requests": {"nvidia.com/gpu": 8}}
    # The preset sets the parallel sizes from spec.parallelism: not repeated in the additional arguments.
    assert container["env"] == [
        {"name": "VLLM_ADDITIONAL_ARGS", "value": "--max-model-len=8192 --gpu-memory-utilization=0.9"}
    ]
    assert spec["worker"]["nodeSelector"] == selector_labels(pool) != {}
    assert spec["worker"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]
    assert spec["replicas"] == 2


def test_each_stage_holds_its_node_s_efa_devices_on_an_efa_pool() -> None:
    pool = resolved_pool("eks", name="h100", machine_type="p5.48xlarge", efa=True, max_nodes=2)
    sizing = size_model(Request(LLM_MODELS["llama-3.1-405b"], "bf16", 8192, 8), [pool])
    obj = llm_inference_service("l405", "llm", "hf://meta-llama/Llama-3.1-405B-Instruct", sizing, pool)
    assert problems_of(obj) == []
    (worker,) = obj["spec"]["worker"]["containers"]
    assert worker["resources"] == {
        "limits": {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32, "hugepages-2Mi": "5120Mi"},
        # Kubernetes takes huge pages only beside a memory (or cpu) request.
        "requests": {
            "nvidia.com/gpu": 8,
            "vpc.amazonaws.com/efa": 32,
            "hugepages-2Mi": "5120Mi",
            "memory": "5120Mi",
        },
    }
    assert worker["env"][1:] == [
        {"name": "FI_PROVIDER", "value": "efa"},
        {"name": "FI_EFA_USE_DEVICE_RDMA", "value": "1"},
    ]
    assert main_container(obj) == worker


def test_each_stage_asks_for_the_shared_infiniband_hcas_on_an_infiniband_pool() -> None:
    pool = resolved_pool(
        "aks", name="h100", machine_type="Standard_ND96isr_H100_v5", infiniband=True, max_nodes=2
    )
    sizing = size_model(Request(LLM_MODELS["llama-3.1-405b"], "bf16", 8192, 8), [pool])
    obj = llm_inference_service("l405", "llm", "hf://meta-llama/Llama-3.1-405B-Instruct", sizing, pool)
    assert problems_of(obj) == []
    (worker,) = obj["spec"]["worker"]["containers"]
    assert worker["resources"]["limits"] == {"nvidia.com/gpu": 8, "rdma/shared_ib": 1}
    assert worker["env"][1:] == [{"name": "NCCL_IB_DISABLE", "value": "0"}]


def test_a_single_node_replica_asks_for_no_fabric_and_has_no_worker() -> None:
    pool = resolved_pool("eks", name="h100", machine_type="p5.48xlarge", efa=True, max_nodes=2)
    sizing = size_model(Request(LLM_MODELS["llama-3.1-405b"], "fp8", 8192, 8), [pool])
    obj = llm_inference_service("l405", "llm", "hf://x/y", sizing, pool)
    assert "worker" not in obj["spec"]
    assert obj["spec"]["parallelism"] == {"tensor": 8}
    assert main_container(obj)["resources"]["limits"] == {"nvidia.com/gpu": 8}


def test_a_replica_over_more_nodes_than_its_pool_has_is_refused() -> None:
    pools = [resolved_pool("existing", **H100)]
    sizing = size_model(Request(LLM_MODELS["llama-3.1-405b"], "bf16", 8192, 8), pools)
    smaller = dataclasses.replace(pools[0], max_nodes=1)
    with pytest.raises(SizingError, match=r"llama-3.1-405b \(bf16.*needs 2 nodes per replica.*'h100' has"):
        llm_inference_service("l405", "llm", "hf://x/y", sizing, smaller)
    assert multi_node_problem(pools[0], sizing) is None


def test_prefill_decode_adds_prefill_pods_like_the_decode_pods() -> None:
    pools = [resolved_pool("existing", **H100)]
    sizing = size_model(Request(LLM_MODELS["llama-3.1-70b"], "bf16", 8192, 16), pools)
    obj = llm_inference_service(
        "l70", "llm", "hf://meta-llama/Llama-3.1-70B-Instruct", sizing, pools[0], 2, prefill_replicas=3
    )
    assert problems_of(obj) == []
    spec = obj["spec"]
    assert spec["replicas"] == 2
    assert spec["parallelism"] == {"tensor": 4}
    # Sized by the same step: the same pool, GPUs and tensor parallelism as the decode pods.
    assert spec["prefill"] == {"replicas": 3, "template": spec["template"], "parallelism": {"tensor": 4}}
    assert spec["prefill"]["template"] is not spec["template"]
    (container,) = spec["prefill"]["template"]["containers"]
    assert container["resources"]["limits"] == {"nvidia.com/gpu": 4}
    assert container["env"] == [
        {
            "name": "VLLM_ADDITIONAL_ARGS",
            "value": "--max-model-len=8192 --gpu-memory-utilization=0.9 "
            '--kv-transfer-config \'{"kv_connector":"NixlConnector","kv_role":"kv_both"}\'',
        },
        {"name": "VLLM_NIXL_SIDE_CHANNEL_HOST", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
    ]
    assert spec["prefill"]["template"]["nodeSelector"] == selector_labels(pools[0]) != {}
    assert spec["prefill"]["template"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]
    # Without it, no spec.prefill and no KV connector.
    plain = llm_inference_service("l70", "llm", "hf://x/y", sizing, pools[0], 2)
    assert "prefill" not in plain["spec"]
    assert main_container(plain)["env"] == [
        {"name": "VLLM_ADDITIONAL_ARGS", "value": "--max-model-len=8192 --gpu-memory-utilization=0.9"}
    ]


def test_prefill_decode_on_one_gpu_has_no_parallelism() -> None:
    pools = [resolved_pool("existing", **H100)]
    sizing = size_model(Request(LLM_MODELS["qwen2.5-7b"], "bf16", 32768, 8), pools)
    obj = llm_inference_service(
        "q", "llm", "hf://Qwen/Qwen2.5-7B-Instruct", sizing, pools[0], prefill_replicas=1
    )
    assert problems_of(obj) == []
    assert "parallelism" not in obj["spec"]
    assert obj["spec"]["prefill"]["replicas"] == 1
    assert "parallelism" not in obj["spec"]["prefill"]


@pytest.mark.parametrize(
    ("model", "precision", "raw", "phrase"),
    [
        ("llama-3.1-8b", "bf16", MIG, "with sharing 'mig': prefill/decode disaggregation moves the KV cache"),
        ("qwen2.5-7b", "int4", L4_SHARED, "with sharing 'time-slicing'"),
        (
            "llama-3.1-405b",
            "bf16",
            H100,
            "needs 2 nodes per replica (pipeline parallelism), and KServe v0.20.0",
        ),
    ],
)
def test_prefill_decode_is_refused_where_it_cannot_work(
    model: str, precision: str, raw: dict, phrase: str
) -> None:
    pools = [resolved_pool("existing", **raw)]
    sizing = size_model(Request(LLM_MODELS[model], precision, 8192, 8), pools)
    with pytest.raises(SizingError, match=re.escape(phrase)):
        llm_inference_service("m", "llm", "hf://x/y", sizing, pools[0], prefill_replicas=1)
