"""Sizing a language model for vLLM: the memory it needs, its parallelism and the smallest declared GPU that holds it.

The memory a vLLM replica needs is its weights, its KV cache and a runtime headroom:

- weights: parameters x bytes per parameter (bf16/fp16 2, fp8 1, int4 0.5);
- KV cache: ``2 (K and V) x layers x KV heads x head dim x 2 bytes`` per token (vLLM's ``--kv-cache-dtype auto``
  keeps the cache in the model's 16-bit activation dtype, also for fp8 and int4 weights: vllm-project/vllm
  ``vllm/config/cache.py``), times ``max-model-len x concurrent sequences`` tokens (every sequence at its full
  context: what the target load may hold at once);
- headroom: activations of the forward pass, CUDA graphs and NCCL buffers, which vLLM's profiling run measures
  inside its budget (``vllm/v1/worker/gpu_worker.py`` ``determine_available_memory``); the library takes
  ``HEADROOM_FRACTION`` of the shard plus ``HEADROOM_BYTES`` per GPU.

vLLM takes ``--gpu-memory-utilization`` of each GPU (0.9 by default, the rest left to the CUDA context), so a
shard fits when ``weights/(tp x pp) + KV/(tp x pp) + headroom <= utilization x GPU memory``; tensor parallelism
splits the KV heads (a GPU holds at least one: vLLM replicates them past the KV head count), pipeline
parallelism the layers. The tensor parallel size must divide the attention heads (vLLM ``vllm/config/parallel.py``
``_verify_args`` via ``ModelConfig.verify_with_parallel_config``); it stays within one node (NVLink), pipeline
stages span nodes (one LeaderWorkerSet group). A MIG slice or a time-sliced share is one device of its own: no
tensor parallelism over slices (NCCL has no peer-to-peer between MIG instances: NVIDIA MIG User Guide,
"Application Considerations").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from gpu_platform.addons.kserve.gpu_memory import SHARED_GPU_MEMORY, default_fraction, shared_replicas
from gpu_platform.catalog.gpus import GPUS
from gpu_platform.catalog.llm_models import LlmModel
from gpu_platform.pools import GpuPool

GB = 1e9
"""GPU memory and weights are counted in decimal gigabytes, as the catalog and the model cards state them."""
BYTES_PER_PARAM = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int4": 0.5}
"""Bytes per weight by precision: 16-bit, FP8 (vLLM ``--quantization fp8``), 4-bit (AWQ/GPTQ)."""
KV_BYTES = 2
"""Bytes per KV cache element at vLLM's default ``--kv-cache-dtype auto`` (16-bit)."""
HEADROOM_FRACTION = 0.10
"""Activation and runtime headroom, as a share of the weights and KV cache a GPU holds (the library's estimate)."""
HEADROOM_BYTES = 1 * GB
"""Fixed per-GPU headroom beyond ``HEADROOM_FRACTION``: CUDA graphs, NCCL and sampler buffers (the library's)."""
UTILIZATION = SHARED_GPU_MEMORY
"""``--gpu-memory-utilization`` on a GPU or MIG slice of its own: vLLM's default, 0.9."""


class SizingError(ValueError):
    """The model fits none of the pools, or its request is not valid; the message says which and why."""


@dataclass(frozen=True)
class Request:
    """What to size: a model at a precision, for a context length and a number of concurrent sequences."""

    model: LlmModel
    precision: str = "bf16"
    context: int | None = None
    """``--max-model-len``; default the model's ``max_context``."""
    concurrency: int = 1
    """Sequences held at once at full context (vLLM's ``--max-num-seqs`` upper bound)."""

    @property
    def max_model_len(self) -> int:
        return self.context if self.context is not None else self.model.max_context


def weight_bytes(model: LlmModel, precision: str) -> float:
    """Parameters x bytes per parameter."""
    return model.params * BYTES_PER_PARAM[precision]


def kv_bytes_per_token(model: LlmModel, tp: int = 1, pp: int = 1) -> int:
    """``2 x layers x KV heads x head dim x 2 bytes`` per token, for the share one GPU of ``tp x pp`` holds."""
    layers = math.ceil(model.layers / pp)
    heads = math.ceil(model.kv_heads / tp)
    return 2 * layers * heads * model.head_dim * KV_BYTES


def check_request(r: Request) -> None:
    """Refuse a precision, context or concurrency the sizing cannot take."""
    name = r.model.key
    if r.precision not in BYTES_PER_PARAM:
        raise SizingError(f"{name}: precision {r.precision!r} is not one of {', '.join(BYTES_PER_PARAM)}")
    if not 0 < r.max_model_len <= r.model.max_context:
        raise SizingError(
            f"{name}: context {r.max_model_len} is not within 1..{r.model.max_context} (the model's "
            "max_position_embeddings)"
        )
    if r.concurrency < 1:
        raise SizingError(f"{name}: concurrency {r.concurrency} must be at least 1")


@dataclass(frozen=True)
class Shape:
    """Where one replica runs: a pool, the device (a GPU, a MIG slice or a share of a GPU) and how many."""

    pool: str
    device: str
    """``H100 80GB``, ``MIG 3g.40gb of H100 80GB``, ``1/4 of L4 24GB (time-slicing)``."""
    device_bytes: float
    """Memory of one device (the whole GPU for a share: vLLM's fraction is of what the card reports)."""
    utilization: float
    tp: int = 1
    pp: int = 1
    mig_profile: str | None = None

    @property
    def gpus(self) -> int:
        return self.tp * self.pp

    @property
    def budget(self) -> float:
        """The bytes vLLM may take on each device."""
        return self.device_bytes * self.utilization

    @property
    def footprint(self) -> float:
        """What the shape ties up, to order shapes smallest first."""
        return self.budget * self.gpus


def per_gpu_need(r: Request, tp: int, pp: int) -> float:
    """Weights, KV cache and headroom one GPU of a ``tp x pp`` replica holds."""
    weights = weight_bytes(r.model, r.precision) / (tp * pp)
    kv = kv_bytes_per_token(r.model, tp, pp) * r.max_model_len * r.concurrency
    return (weights + kv) * (1 + HEADROOM_FRACTION) + HEADROOM_BYTES


def tp_sizes(model: LlmModel, gpus_per_node: int) -> list[int]:
    """Powers of two up to the node's GPUs that divide the attention heads."""
    sizes, tp = [], 1
    while tp <= gpus_per_node:
        if model.attention_heads % tp == 0:
            sizes.append(tp)
        tp *= 2
    return sizes


def _mig_gb(profile: str) -> float:
    """``3g.40gb`` / ``1g.10gb+me`` -> 40 / 10: the slice's memory as NVIDIA names it."""
    return float(profile.split(".")[1].split("+")[0].removesuffix("gb"))


def pool_shapes(model: LlmModel, pool: GpuPool) -> list[Shape]:
    """Every way one replica of ``model`` can sit on ``pool``: one MIG slice, one share of a shared GPU, or
    ``tp`` GPUs of a node times ``pp`` nodes; none on a DRA pool or a memory-isolated one."""
    gpu = pool.gpu
    if pool.dra or pool.sharing.mode not in ("none", "mig", "time-slicing", "mps"):
        return []  # DRA claims and memory-isolated shares are not sized yet (docs/serving.md)
    if pool.sharing.mode == "mig":
        return [
            Shape(pool.name, f"MIG {p} of {gpu.display}", _mig_gb(p) * GB, UTILIZATION, mig_profile=p)
            for p in dict.fromkeys(pool.sharing.mig_profiles)
        ]
    replicas = shared_replicas(pool)
    if replicas is not None:
        device = f"1/{replicas} of {gpu.display} ({pool.sharing.mode})"
        return [Shape(pool.name, device, gpu.memory_gb * GB, default_fraction(replicas))]
    sizes = tp_sizes(model, pool.gpus_per_node)
    shapes = [Shape(pool.name, gpu.display, gpu.memory_gb * GB, UTILIZATION, tp=tp) for tp in sizes]
    for pp in range(2, min(pool.max_nodes, model.layers) + 1):
        shapes.append(Shape(pool.name, gpu.display, gpu.memory_gb * GB, UTILIZATION, tp=sizes[-1], pp=pp))
    return shapes


@dataclass(frozen=True)
class Sizing:
    """The answer: where a replica runs and vLLM's arguments for it."""

    request: Request
    shape: Shape
    need_per_gpu: float

    @property
    def weights(self) -> float:
        return weight_bytes(self.request.model, self.request.precision)

    @property
    def kv_cache(self) -> float:
        r = self.request
        return kv_bytes_per_token(r.model) * r.max_model_len * r.concurrency

    @property
    def nodes(self) -> int:
        """Nodes one replica spans (its pipeline stages)."""
        return self.shape.pp

    def vllm_args(self) -> list[str]:
        """vLLM's engine arguments that match the sizing (vllm-project/vllm ``vllm/engine/arg_utils.py``)."""
        s = self.shape
        return [
            f"--tensor-parallel-size={s.tp}",
            f"--pipeline-parallel-size={s.pp}",
            f"--max-model-len={self.request.max_model_len}",
            f"--gpu-memory-utilization={s.utilization:g}",
        ]


def _smallest(s: Shape) -> tuple[int, float, int]:
    """Order of preference: fewest nodes (pipeline stages cost latency), then least memory tied up, then GPUs."""
    return (s.pp, s.footprint, s.gpus)


def _fits(r: Request, shape: Shape) -> bool:
    return per_gpu_need(r, shape.tp, shape.pp) <= shape.budget


def size_model(r: Request, pools: Sequence[GpuPool]) -> Sizing:
    """The smallest shape of the declared pools that holds one replica (fewest nodes, least memory tied up, fewest
    GPUs, then the pools' order); ``SizingError`` naming the model and the nearest fit when none does."""
    check_request(r)
    shapes = [s for pool in pools for s in pool_shapes(r.model, pool)]
    fitting = [s for s in shapes if _fits(r, s)]
    if not fitting:
        raise SizingError(refusal(r, shapes))
    best = min(fitting, key=_smallest)
    return Sizing(r, best, per_gpu_need(r, best.tp, best.pp))


def describe_request(r: Request) -> str:
    return f"{r.model.key} ({r.precision}, {r.max_model_len} tokens x {r.concurrency} sequences)"


def refusal(r: Request, shapes: Sequence[Shape]) -> str:
    """Why ``r`` fits none of ``shapes``: the declared shape that comes closest and a pool shape that would fit."""
    text = f"{describe_request(r)} fits none of the declared pools"
    if shapes:
        near = min(shapes, key=lambda s: per_gpu_need(r, s.tp, s.pp) / s.budget)
        need = per_gpu_need(r, near.tp, near.pp)
        text += (
            f"; nearest: pool '{near.pool}' ({_shape_text(near)}) needs {need / GB:.1f} GB per GPU of "
            f"{near.budget / GB:.1f} GB"
        )
    would = catalog_fit(r)
    text += f"; it would fit {_shape_text(would)}" if would else "; no catalog GPU holds it on 8 nodes of 8"
    return text + " (or lower the context, the concurrency or the precision)"


def _shape_text(s: Shape) -> str:
    per_node = f"{s.tp} x {s.device}" if s.mig_profile is None else s.device
    return per_node + (f" on each of {s.pp} nodes" if s.pp > 1 else "")


def catalog_fit(r: Request, gpus_per_node: int = 8, max_nodes: int = 8) -> Shape | None:
    """The smallest whole-GPU shape of any catalog GPU (nodes of ``gpus_per_node``) that holds ``r``."""
    shapes = []
    for gpu in GPUS.values():
        sizes = tp_sizes(r.model, gpus_per_node)
        for tp, pp in [(tp, 1) for tp in sizes] + [(sizes[-1], pp) for pp in range(2, max_nodes + 1)]:
            shape = Shape(f"{tp} x {gpu.key}", gpu.display, gpu.memory_gb * GB, UTILIZATION, tp=tp, pp=pp)
            if _fits(r, shape):
                shapes.append(shape)
    return min(shapes, key=_smallest, default=None)
