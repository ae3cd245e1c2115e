"""A sized model as KServe v0.20.0's LLMInferenceService: valid against the vendored CRD (v1alpha2), with the
sizing's tensor parallelism, vLLM arguments, the pool's GPU resource and placement, and the inference gateway's
router (InferencePool and endpoint picker from KServe's scheduler preset)."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.addons.kserve.llm_service_plan import llm_inference_service
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


def test_a_replica_over_two_nodes_is_refused() -> None:
    with pytest.raises(SizingError, match="needs 2 nodes per replica"):
        plan("llama-3.1-405b", "bf16", 8192, 8, H100)
