"""A plan's work grows linearly with the config: no step may visit every pool (or queue, team, service) once per
pool. Timing cannot show that reliably on a shared machine, so this counts calls instead: every Python function
that runs during a plan is counted for a stack scaled to ``N`` and to ``2N`` copies of its pools (each with its
own queue, team and inference services), and none may be called more than ``MAX_GROWTH`` times as often at
``2N``. Linear work doubles, ``n log n`` work a little more; work that visits every pair grows fourfold."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import pytest
import yaml

from gpu_platform.offline.runner import run_plan
from tests.conftest import REPO

MAX_GROWTH = 3.0
"""At most this many times as many calls at ``2n`` as at ``n`` (pairs give 4, sorting 2 x log(2n)/log(n))."""
MIN_CALLS = 48
"""Functions called fewer times at ``2n`` are left out: fixed costs and noise, not growth."""
N = 4


STACK_FILES = [
    "stacks/Pulumi.dev.yaml",
    "stacks/Pulumi.staging.yaml",
    "stacks/Pulumi.prod.yaml",
    "examples/topology-aware-training/Pulumi.example.yaml",
    "examples/topology-aware-training/Pulumi.gke-a3-mega.yaml",
    "examples/topology-aware-training/Pulumi.gke-a4x.yaml",
    "examples/topology-aware-training/Pulumi.aks-nd-h100.yaml",
    "examples/existing-cluster/Pulumi.example.yaml",
    "examples/openshift-olm/Pulumi.example.yaml",
    "examples/yandex-gpu-node-groups/Pulumi.example.yaml",
]
"""The three clouds' stacks and the examples planned from a stack file: EFA, GPUDirect, DRA with ComputeDomains,
InfiniBand, an existing cluster, OpenShift and Yandex."""


def scaled(stack_file: str, n: int) -> dict[str, Any]:
    """The stack file's config with ``n`` copies of each GPU pool, a ClusterQueue per pool (cohorts of 4), a
    team per queue and, when the stack serves models, a copy of each service per copy of its pool."""
    raw = yaml.safe_load(Path(REPO, stack_file).read_text())["config"]
    config: dict[str, Any] = {k: v for k, v in raw.items() if not k.startswith("gpu-platform:")}
    config.update({k.split(":", 1)[1]: v for k, v in raw.items() if k.startswith("gpu-platform:")})
    pools = [{**p, "name": f"{p['name'][:20]}-{i}"} for i in range(n) for p in config["gpuPools"]]
    # A time-sliced or MPS pool reached by several teams is refused (no memory isolation): those queues lend none.
    queues = [
        {"name": f"q{i}", "pools": [p["name"]]}
        | ({} if p.get("sharing", {}).get("mode") in ("time-slicing", "mps") else {"cohort": f"c{i // 4}"})
        for i, p in enumerate(pools)
    ]
    teams = [{"name": f"team-{i}", "clusterQueue": q["name"]} for i, q in enumerate(queues)]
    kueue = {**config.get("kueue", {}), "clusterQueues": queues, "teams": teams}
    config.update(gpuPools=pools, kueue=kueue)
    index = {p["name"]: i for i, p in enumerate(pools)}
    services = config.get("kserve", {}).get("services", [])
    if services:
        copies = []
        for i in range(n):
            for svc in services:
                pool = f"{svc['pool'][:20]}-{i}"
                own = {k: v for k, v in svc.items() if k != "queue"}
                copies.append(
                    {**own, "name": f"{svc['name']}-{i}", "pool": pool, "namespace": f"team-{index[pool]}"}
                )
        config["kserve"] = {**config["kserve"], "services": copies}
    return {f"gpu-platform:{k}" if ":" not in k else k: v for k, v in config.items()}


def calls_per_function(config: dict[str, Any]) -> Counter[CodeType]:
    """How often each Python function ran while the stack was planned with ``config``."""
    counts: Counter[CodeType] = Counter()

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event == "call":
            counts[frame.f_code] += 1

    sys.setprofile(profile)
    try:
        run_plan(REPO, "dev", config_override=config)
    finally:
        sys.setprofile(None)
    return counts


@pytest.mark.parametrize("stack_file", STACK_FILES)
def test_no_function_runs_once_per_pair_of_pools(stack_file: str) -> None:
    run_plan(
        REPO, "dev", config_override=scaled(stack_file, 1)
    )  # imports and caches, so they are not counted
    small = calls_per_function(scaled(stack_file, N))
    large = calls_per_function(scaled(stack_file, 2 * N))
    grown = {
        f"{code.co_filename.split('site-packages/')[-1]}:{code.co_firstlineno} {code.co_name}": (
            small[code],
            count,
        )
        for code, count in large.items()
        if count >= MIN_CALLS and count > MAX_GROWTH * small[code]
    }
    assert grown == {}, f"called (at {N} pools, at {2 * N}) more than {MAX_GROWTH}x as often: {grown}"
