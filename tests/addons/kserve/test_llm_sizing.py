"""The sizing step: memory arithmetic checked against published figures, and the shape chosen among the pools.

Published figures the arithmetic must reproduce:
- Llama 3.1 70B in bf16 is ~141 GB of weights (70.6B parameters x 2 bytes; the model card
  https://huggingface.co/meta-llama/Llama-3.1-70B-Instruct lists 70.6B parameters and BF16 tensors).
- The KV cache of Llama 3.1 8B is 128 KiB per token at 16 bits: 32 layers x 8 KV heads x 128 dim x 2 (K, V)
  x 2 bytes (config.json of meta-llama/Llama-3.1-8B-Instruct; the same figure as NVIDIA's "Mastering LLM
  Techniques: Inference Optimization" formula ``2 x layers x kv_heads x head_dim x bytes``).
- Llama 3.1 405B in bf16 needs more than one 8 x H100 80GB node (~812 GB of weights); Meta published an FP8
  checkpoint (meta-llama/Llama-3.1-405B-Instruct-FP8) that fits one 8-GPU server node.
- Qwen2.5 7B: 28 layers x 4 KV heads x 128 dim x 2 x 2 bytes = 56 KiB per token (its config.json).
"""

from __future__ import annotations

import pytest

from gpu_platform.addons.kserve.llm_sizing import (
    GB,
    Request,
    SizingError,
    kv_bytes_per_token,
    per_gpu_need,
    size_model,
    tp_sizes,
    weight_bytes,
)
from gpu_platform.catalog.llm_models import LLM_MODELS, find_model
from tests.support.pools import resolved_pool

L8 = LLM_MODELS["llama-3.1-8b"]
L70 = LLM_MODELS["llama-3.1-70b"]
L405 = LLM_MODELS["llama-3.1-405b"]
QWEN7 = LLM_MODELS["qwen2.5-7b"]


def h100(name: str = "h100", nodes: int = 1, gpus: int = 8) -> dict:
    return {"name": name, "gpu": "h100-80gb", "gpus_per_node": gpus, "max_nodes": nodes}


def pools(*raw: dict) -> list:
    return [resolved_pool("existing", **r) for r in raw]


def test_weights_of_llama_70b_in_bf16_are_141_gb() -> None:
    assert weight_bytes(L70, "bf16") / GB == pytest.approx(141.2)
    assert weight_bytes(L70, "fp8") / GB == pytest.approx(70.6)
    assert weight_bytes(L70, "int4") / GB == pytest.approx(35.3)


def test_kv_cache_per_token_matches_the_configs() -> None:
    assert kv_bytes_per_token(L8) == 128 * 1024  # 32 x 8 x 128 x 2 x 2
    assert kv_bytes_per_token(L70) == 320 * 1024  # 80 layers
    assert kv_bytes_per_token(L405) == 504 * 1024  # 126 layers
    assert kv_bytes_per_token(QWEN7) == 56 * 1024  # 28 layers x 4 KV heads


def test_tensor_parallelism_splits_kv_heads_and_replicates_past_them() -> None:
    assert kv_bytes_per_token(L70, tp=8) == 40 * 1024  # one KV head per GPU
    assert kv_bytes_per_token(QWEN7, tp=8) == kv_bytes_per_token(QWEN7, tp=4)  # 4 KV heads: replicated at 8
    assert kv_bytes_per_token(L405, tp=8, pp=2) == 2 * 63 * 1 * 128 * 2


def test_tp_sizes_divide_the_attention_heads() -> None:
    assert tp_sizes(QWEN7, 8) == [1, 2, 4]  # 28 heads: 8 does not divide them
    assert tp_sizes(L70, 8) == [1, 2, 4, 8]
    assert tp_sizes(L70, 1) == [1]


def test_llama_8b_fits_one_mig_3g_slice() -> None:
    mig = {
        **h100("mig", gpus=1),
        "sharing": {"mode": "mig", "mig": {"profiles": ["3g.40gb", "2g.20gb", "2g.20gb"]}},
    }
    sizing = size_model(Request(L8, "bf16", 8192, 4), pools(mig, h100()))
    # 16.06 GB weights + 4 GiB KV (8192 x 4 x 128 KiB), +10% and 1 GB: ~23.4 GB > 2g.20gb's 18 GB, < 3g.40gb's 36.
    assert sizing.shape.mig_profile == "3g.40gb"
    assert sizing.need_per_gpu / GB == pytest.approx((16.06 + 8192 * 4 * 131072 / GB) * 1.1 + 1, abs=0.01)
    assert sizing.vllm_args() == [
        "--tensor-parallel-size=1",
        "--pipeline-parallel-size=1",
        "--max-model-len=8192",
        "--gpu-memory-utilization=0.9",
    ]


def test_llama_70b_bf16_takes_four_h100s_not_eight() -> None:
    sizing = size_model(Request(L70, "bf16", 8192, 16), pools(h100()))
    # 141.2 GB / 4 = 35.3 GB + KV 8192 x 16 x 80 KiB = 10.7 GB per GPU: 51 GB within 72 GB; 2 GPUs (~108 GB) do not.
    assert (sizing.shape.tp, sizing.shape.pp) == (4, 1)
    assert per_gpu_need(sizing.request, 2, 1) > 72 * GB


def test_llama_405b_bf16_spans_two_nodes_of_eight_h100s() -> None:
    sizing = size_model(Request(L405, "bf16", 8192, 8), pools(h100(nodes=4)))
    assert (sizing.shape.tp, sizing.shape.pp, sizing.nodes) == (8, 2, 2)
    assert "--pipeline-parallel-size=2" in sizing.vllm_args()


def test_llama_405b_fp8_fits_one_node() -> None:
    sizing = size_model(Request(L405, "fp8", 8192, 8), pools(h100(nodes=4)))
    assert (sizing.shape.tp, sizing.shape.pp) == (8, 1)


def test_smallest_pool_wins_over_a_bigger_gpu() -> None:
    l4 = {"name": "l4", "gpu": "l4", "gpus_per_node": 1, "max_nodes": 2}
    sizing = size_model(Request(QWEN7, "bf16", 4096, 4), pools(h100(), l4))
    assert sizing.shape.pool == "l4"  # 16.7 GB + 1 GB of KV fits 0.9 x 24 GB


def test_time_sliced_share_uses_the_shared_fraction() -> None:
    l4 = {"name": "l4", "gpu": "l4", "gpus_per_node": 1, "sharing": {"mode": "time-slicing", "replicas": 2}}
    sizing = size_model(Request(QWEN7, "int4", 4096, 2), pools(l4))
    assert sizing.shape.utilization == 0.45  # floor(0.9 / 2, 2)
    assert "--gpu-memory-utilization=0.45" in sizing.vllm_args()


def test_a_model_too_big_is_refused_with_the_nearest_fit() -> None:
    l4 = {"name": "l4", "gpu": "l4", "gpus_per_node": 1, "max_nodes": 3}
    with pytest.raises(SizingError) as err:
        size_model(Request(L70, "bf16", 8192, 16), pools(l4))
    message = str(err.value)
    assert message.startswith(
        "llama-3.1-70b (bf16, 8192 tokens x 16 sequences) fits none of the declared pools"
    )
    assert "nearest: pool 'l4' (1 x L4 24GB on each of 3 nodes)" in message
    assert "it would fit 2 x H200 141GB" in message


@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        (Request(L8, "fp4"), "precision 'fp4' is not one of bf16, fp16, fp8, int4"),
        (Request(QWEN7, "bf16", 65536), "context 65536 is not within 1..32768"),
        (Request(L8, "bf16", 1024, 0), "concurrency 0 must be at least 1"),
    ],
)
def test_invalid_requests_are_refused(request_: Request, reason: str) -> None:
    with pytest.raises(SizingError, match=reason):
        size_model(request_, pools(h100()))


def test_find_model_by_key_or_hugging_face_id() -> None:
    assert find_model("hf://meta-llama/Llama-3.1-8B-Instruct") is L8
    assert find_model("Qwen2.5-7B") is QWEN7
    assert find_model("gpt-5") is None


def test_a_dra_pool_offers_no_shape() -> None:
    # DRA claims are not sized yet: the model is refused there rather than given a device-plugin request.
    dra = {"name": "dra", "gpu": "h100-80gb", "gpus_per_node": 8, "allocation": "dra"}
    with pytest.raises(SizingError, match="fits none of the declared pools; it would fit 2 x T4 16GB"):
        size_model(Request(L8, "bf16", 8192, 4), pools(dra))
