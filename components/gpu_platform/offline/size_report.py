"""``gpu-platform size``: the sizing step for one model over pools given on the command line or a stack file's.

The arithmetic is ``addons.kserve.llm_sizing``; this module only reads the inputs and prints the answer, so a
platform team sees before planning which pool, slice and parallelism a model gets and with what vLLM arguments.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gpu_platform.addons.kserve.llm_sizing import (
    GB,
    Request,
    Sizing,
    SizingError,
    describe_request,
    kv_bytes_per_token,
    size_model,
)
from gpu_platform.catalog.llm_models import LLM_MODELS, LlmModel, find_model
from gpu_platform.errors import NAMESPACE
from gpu_platform.offline.runner import load_project, stack_config
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cluster_pools import resolve_pools

FLAGS = {
    "params_b": "--params",
    "layers": "--layers",
    "attention_heads": "--heads",
    "kv_heads": "--kv-heads",
    "head_dim": "--head-dim",
    "max_context": "--max-context",
}
"""The numbers a model outside the catalog is given by, and their command-line flags."""
ARCHITECTURE = tuple(FLAGS)


def model_of(name: str, numbers: dict[str, Any]) -> LlmModel:
    """The catalog's model, or one built from ``numbers`` (all of ``ARCHITECTURE``); ``SizingError`` otherwise."""
    given = {k: v for k, v in numbers.items() if v is not None}
    found = find_model(name)
    if found is not None and not given:
        return found
    missing = [k for k in ARCHITECTURE if k not in given]
    if missing:
        known = ", ".join(LLM_MODELS)
        raise SizingError(
            f"{name}: not in the catalog ({known}); give {', '.join(FLAGS.values())} from its config.json "
            f"(missing: {', '.join(FLAGS[k] for k in missing)})"
        )
    return LlmModel(name, name, float(given["params_b"]), *(int(given[k]) for k in ARCHITECTURE[1:]))


def cli_pools(specs: Sequence[str]) -> list[GpuPool]:
    """``GPU:GPUS_PER_NODE[:MAX_NODES]`` (``h100-80gb:8:2``) as whole-GPU pools named after themselves."""
    raw = []
    for spec in specs:
        parts = spec.split(":")
        if len(parts) not in (2, 3) or not all(p.isdigit() for p in parts[1:]):
            raise SizingError(f"--pool {spec!r}: expected GPU:GPUS_PER_NODE[:MAX_NODES], e.g. h100-80gb:8:2")
        nodes = int(parts[2]) if len(parts) == 3 else 1
        raw.append(
            {
                "name": spec.replace(":", "-"),
                "gpu": parts[0],
                "gpus_per_node": int(parts[1]),
                "max_nodes": nodes,
            }
        )
    return resolve_pools("existing", raw, path="--pool")


def stack_raw(project: str | Path, stack: str, config_file: str | None, env: bool) -> dict[str, Any]:
    """A stack file's ``gpu-platform:`` settings as the stack program reads them (objects parsed from JSON), for
    ``stack.load_platform`` to check and resolve."""
    config, _ = stack_config(load_project(project), stack, config_file, env)
    raw: dict[str, Any] = {}
    for key, text in config.items():
        if key.startswith(f"{NAMESPACE}:"):
            try:
                value = json.loads(text)
            except ValueError:
                value = text
            raw[key.split(":", 1)[1]] = value if isinstance(value, (dict, list)) else text
    return raw


def render(s: Sizing, fmt: str) -> str:
    """The answer as text (one fact a line) or JSON."""
    r, shape = s.request, s.shape
    facts: dict[str, Any] = {
        "model": r.model.key,
        "precision": r.precision,
        "max_model_len": r.max_model_len,
        "concurrency": r.concurrency,
        "weights_gb": round(s.weights / GB, 1),
        "kv_cache_per_token_kib": kv_bytes_per_token(r.model) / 1024,
        "kv_cache_gb": round(s.kv_cache / GB, 1),
        "pool": shape.pool,
        "device": shape.device,
        "mig_profile": shape.mig_profile,
        "gpus": shape.gpus,
        "nodes": s.nodes,
        "need_per_gpu_gb": round(s.need_per_gpu / GB, 1),
        "budget_per_gpu_gb": round(shape.budget / GB, 1),
        "vllm_args": s.vllm_args(),
    }
    if fmt == "json":
        return json.dumps(facts, indent=2)
    head = f"{describe_request(r)} -> pool '{shape.pool}': {shape.gpus} x {shape.device}"
    lines = [head + (f" over {s.nodes} nodes" if s.nodes > 1 else "")]
    lines += [
        f"  {k}: {' '.join(v) if isinstance(v, list) else v}" for k, v in facts.items() if v is not None
    ]
    return "\n".join(lines)


def size_report(request: Request, pools: Sequence[GpuPool], fmt: str) -> str:
    return render(size_model(request, pools), fmt)
