"""Language models the sizing step knows: parameter count and the attention geometry that sizes the KV cache.

Each entry is the model's ``config.json`` on Hugging Face (``num_hidden_layers``, ``num_attention_heads``,
``num_key_value_heads``, ``hidden_size / num_attention_heads`` as the head dimension, ``max_position_embeddings``)
and the parameter count its model card or safetensors index states. Pages:
``https://huggingface.co/<hf_id>/blob/main/config.json``. A model not listed is sized from the same numbers given
by hand (``gpu-platform size --params ... --layers ... --kv-heads ... --head-dim ... --heads ...``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LlmModel:
    key: str
    """Short name (``llama-3.1-8b``)."""
    hf_id: str
    """Hugging Face model ID whose ``config.json`` gives the numbers."""
    params_b: float
    """Parameters, in billions (all experts for a mixture of experts: every expert is resident)."""
    layers: int
    """``num_hidden_layers``."""
    attention_heads: int
    """``num_attention_heads``: vLLM's tensor parallel size must divide it."""
    kv_heads: int
    """``num_key_value_heads`` (grouped-query attention: fewer than the attention heads)."""
    head_dim: int
    """``hidden_size / num_attention_heads`` (or ``head_dim`` where the config states it)."""
    max_context: int
    """``max_position_embeddings``: the longest ``--max-model-len`` vLLM accepts without rope scaling."""

    @property
    def params(self) -> float:
        return self.params_b * 1e9


_MODELS = (
    # meta-llama/Llama-3.1-8B-Instruct config.json: 32 layers, 32 heads, 8 KV heads, hidden 4096, 131072 positions;
    # model card: 8.03B parameters.
    LlmModel("llama-3.1-8b", "meta-llama/Llama-3.1-8B-Instruct", 8.03, 32, 32, 8, 128, 131072),
    # meta-llama/Llama-3.1-70B-Instruct: 80 layers, 64 heads, 8 KV heads, hidden 8192; 70.6B parameters.
    LlmModel("llama-3.1-70b", "meta-llama/Llama-3.1-70B-Instruct", 70.6, 80, 64, 8, 128, 131072),
    # meta-llama/Llama-3.1-405B-Instruct: 126 layers, 128 heads, 8 KV heads, hidden 16384; 405.9B parameters.
    LlmModel("llama-3.1-405b", "meta-llama/Llama-3.1-405B-Instruct", 405.9, 126, 128, 8, 128, 131072),
    # Qwen/Qwen2.5-7B-Instruct: 28 layers, 28 heads, 4 KV heads, hidden 3584, 32768 positions; 7.61B parameters.
    LlmModel("qwen2.5-7b", "Qwen/Qwen2.5-7B-Instruct", 7.61, 28, 28, 4, 128, 32768),
    # Qwen/Qwen2.5-72B-Instruct: 80 layers, 64 heads, 8 KV heads, hidden 8192, 32768 positions; 72.7B parameters.
    LlmModel("qwen2.5-72b", "Qwen/Qwen2.5-72B-Instruct", 72.7, 80, 64, 8, 128, 32768),
    # mistralai/Mistral-7B-Instruct-v0.3: 32 layers, 32 heads, 8 KV heads, head_dim 128, 32768 positions; 7.25B.
    LlmModel("mistral-7b", "mistralai/Mistral-7B-Instruct-v0.3", 7.25, 32, 32, 8, 128, 32768),
    # mistralai/Mixtral-8x7B-Instruct-v0.1: 32 layers, 32 heads, 8 KV heads, hidden 4096, 32768 positions; 46.7B
    # parameters (every expert held in memory, 12.9B active per token).
    LlmModel("mixtral-8x7b", "mistralai/Mixtral-8x7B-Instruct-v0.1", 46.7, 32, 32, 8, 128, 32768),
)

LLM_MODELS: dict[str, LlmModel] = {m.key: m for m in _MODELS}
"""The catalog by short key."""


def find_model(name: str) -> LlmModel | None:
    """The catalog entry for a short key or a Hugging Face ID (case-insensitive), else ``None``."""
    wanted = name.lower().removeprefix("hf://")
    for model in _MODELS:
        if wanted in (model.key, model.hf_id.lower()):
            return model
    return None
