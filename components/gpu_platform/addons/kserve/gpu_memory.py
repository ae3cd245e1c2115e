"""How much of a GPU's memory each model server may take, so servers sharing one GPU do not OOM each other.

Time-slicing shares a GPU's time, not its memory (NVIDIA k8s-device-plugin ``README.md``, "With CUDA Time-Slicing").
MPS holds each client to the card's memory divided by the replicas (k8s-device-plugin v0.20.0
``cmd/mps-control-daemon/mps/daemon.go``, ``perDevicePinnedDeviceMemoryLimits``; GKE sets the same
``CUDA_MPS_PINNED_DEVICE_MEM_LIMIT``). vLLM takes ``--gpu-memory-utilization`` times the GPU's memory for this
instance, 0.9 by default, and refuses to start when less than that is free (vllm-project/vllm engine args;
``vllm/v1/worker/gpu_worker.py`` ``init_device``: "Free memory on device ... is less than desired GPU memory
utilization"). With the default, the second vLLM on a GPU never starts, or the first runs out of memory.

A server whose runtime has a memory-fraction flag therefore gets ``floor(0.9 / replicas, 2)`` on a time-sliced
or MPS pool unless it sets its own fraction. Any ``replicas`` pods may share one GPU, so that sum stays within
0.9 of the card, and under MPS each fraction stays within the client's cap whatever total CUDA reports. The
remaining 10% covers the CUDA contexts vLLM does not count.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool

SHARED_GPU_MEMORY = 0.9
"""The share of one GPU's memory that all the model servers on it may claim together: vLLM's default for one
instance, so a shared GPU is never filled further than an unshared one."""
VLLM_FLAG = "--gpu-memory-utilization"
"""vLLM's engine argument: the fraction of the GPU's memory this instance takes (vllm-project/vllm
``vllm/engine/arg_utils.py``)."""
TF_SERVING_FLAG = "--per_process_gpu_memory_fraction"
"""TensorFlow Serving's flag: the fraction of the GPU's memory the server process takes (tensorflow/serving
``tensorflow_serving/model_servers/main.cc``)."""
RUNTIME_FLAGS = {
    "kserve-huggingfaceserver": VLLM_FLAG,
    "kserve-huggingfaceserver-multinode": VLLM_FLAG,
    "kserve-vllmserver": VLLM_FLAG,
    "kserve-tensorflow-serving": TF_SERVING_FLAG,
}
"""The ClusterServingRuntimes of KServe v0.20.0 (``kserve-runtime-configs``, ``files/runtimes/resources.yaml``)
whose server takes a memory fraction. The Hugging Face server adds vLLM's arguments when it serves with vLLM and
ignores them otherwise (kserve ``python/huggingfaceserver/huggingfaceserver/__main__.py``, ``parse_known_args``).
Triton, TorchServe and the other runtimes have no such flag."""
FORMAT_RUNTIMES = {"huggingface": "kserve-huggingfaceserver", "vLLM": "kserve-vllmserver"}
"""Model formats whose runtimes KServe picks when ``runtime`` is not set all take vLLM's flag. ``tensorflow`` is
not listed: KServe may pick Triton for it, and Triton refuses an unknown flag."""
SURGE = 0.25
"""KServe v0.20.0 rolls a Standard-mode predictor out with ``maxSurge: 25%``, rounded up by the Deployment
controller (``pkg/controller/v1beta1/inferenceservice/reconcilers/deployment/deployment_reconciler.go``,
``setDefaultDeploymentSpec``). For a while, a new pod runs beside the old one."""


@dataclass(frozen=True)
class GpuMemory:
    """The memory fraction of one service's model server, and where it comes from."""

    flag: str | None
    """The runtime's memory-fraction flag, or ``None`` when the library knows none for it."""
    fraction: float | None
    """The fraction the server takes, or ``None`` for the server's own default."""
    source: str = "none"
    """``default`` (the library's, for a shared pool), ``setting`` (``gpu_memory_utilization``), ``args`` (the
    flag in the service's ``args``) or ``none``."""

    @property
    def added_arg(self) -> str | None:
        """The argument the plan puts before the service's own: none when the user wrote the flag."""
        if self.flag is None or self.fraction is None or self.source == "args":
            return None
        return f"{self.flag}={self.fraction:g}"


UNSET_GPU_MEMORY = GpuMemory(None, None)
"""A server the library sets no memory fraction for."""


def memory_flag(model_format: Any, runtime: Any) -> str | None:
    """The flag the service's runtime takes, ``None`` when the library knows none (or either is an Output)."""
    if runtime is not None:
        return RUNTIME_FLAGS.get(runtime) if isinstance(runtime, str) else None
    runtime_for_format = FORMAT_RUNTIMES.get(model_format) if isinstance(model_format, str) else None
    return RUNTIME_FLAGS.get(runtime_for_format) if runtime_for_format else None


def shared_replicas(pool: GpuPool) -> int | None:
    """How many pods may share one GPU of the pool (time-slicing and MPS replicas), ``None`` when none do."""
    s = pool.sharing
    return s.replicas if s.mode in ("time-slicing", "mps") and s.replicas > 1 else None


def default_fraction(replicas: int) -> float:
    """``floor(0.9 / replicas, 2)``: what each of ``replicas`` servers on one GPU may take."""
    return math.floor(SHARED_GPU_MEMORY * 100 / replicas) / 100


def fraction_in_args(args: Any, flag: str | None) -> tuple[float | None, str | None]:
    """The fraction a plain ``args`` list already gives with ``flag`` (``--flag=0.3`` or ``--flag 0.3``; vLLM
    also reads ``_`` for ``-``), and why it cannot be read, if so."""
    if flag is None or not isinstance(args, (list, tuple)) or not all(isinstance(a, str) for a in args):
        return None, None
    spellings = {flag, flag.replace("_", "-"), "--" + flag[2:].replace("-", "_")}
    found: str | None = None
    for i, arg in enumerate(args):
        name, sep, value = arg.partition("=")
        if name in spellings:
            found = value if sep else (args[i + 1] if i + 1 < len(args) else "")
    if found is None:
        return None, None
    try:
        value = float(found)
    except ValueError:
        return None, f"{flag} {found!r} is not a fraction of the GPU's memory"
    return value, None


def resolve_gpu_memory(raw: Mapping[str, Any], pool: GpuPool, p: Problems) -> GpuMemory:
    """The service's memory fraction: its ``gpu_memory_utilization``, the flag in its ``args``, or on a shared
    pool the library's default; problems for a fraction out of range, given twice, or for a runtime without
    the flag."""
    flag = memory_flag(raw.get("model_format"), raw.get("runtime"))
    setting = raw.get("gpu_memory_utilization")
    in_args, unreadable = fraction_in_args(raw.get("args"), flag)
    if unreadable:
        p.add(("args",), unreadable)
    if setting is not None and flag is None:
        p.add(
            ("gpu_memory_utilization",),
            f"the runtime has no memory-fraction flag the library knows (it knows {', '.join(RUNTIME_FLAGS)}, and "
            f"model formats {' and '.join(FORMAT_RUNTIMES)} without {{{{runtime}}}}); cap the server's memory in "
            "its own configuration and remove this setting",
        )
    if setting is not None and in_args is not None:
        p.add(("gpu_memory_utilization",), f"also given as {flag} in {{{{args}}}}: set it once")
    for key, value in (("gpu_memory_utilization", setting), ("args", in_args)):
        if value is not None and not 0 < value <= 1:
            p.add((key,), f"{value:g} is not a fraction of the GPU's memory (more than 0, at most 1)")
    if setting is not None:
        return GpuMemory(flag, setting, "setting")
    if in_args is not None:
        return GpuMemory(flag, in_args, "args")
    replicas = shared_replicas(pool)
    if flag is not None and replicas is not None:
        return GpuMemory(flag, default_fraction(replicas), "default")
    return GpuMemory(flag, None)


def pods_at_most(max_replicas: int) -> int:
    """The predictor's pods during a rollout: its replicas and the surge beside them."""
    return max_replicas + math.ceil(max_replicas * SURGE)


def over_budget(fractions: Sequence[float], replicas: int) -> tuple[float, ...] | None:
    """The largest ``replicas`` fractions (the pods one GPU can hold) when they sum past the budget, else None."""
    worst = tuple(sorted(fractions, reverse=True)[:replicas])
    return worst if sum(worst) > SHARED_GPU_MEMORY + 1e-9 else None


def budget_reason(pool: GpuPool, worst: Sequence[float], whose: str) -> str:
    """Why these fractions cannot share one GPU of ``pool``, and what fits."""
    replicas = shared_replicas(pool) or 1
    total = " + ".join(f"{f:g}" for f in worst)
    return (
        f"pool '{pool.name}' shares each GPU {replicas} ways, and {whose} can put {len(worst)} model servers on one "
        f"GPU taking {total} = {sum(worst):.2f} of its memory, past {SHARED_GPU_MEMORY:g}; lower the fractions "
        f"({default_fraction(replicas):g} each always fits: floor(0.9 / {replicas}, 2)), or give the pool fewer "
        "replicas"
    )
