"""Kueue checks stay linear: the cohort index gives the answers of a brute-force reference, and a
1,000-queue invalid config is refused with work proportional to its size (counted, not timed).

``kueue.waitForPodsReady.timeout`` is a ``metav1.Duration`` in Kueue's configuration: every form Go's
``time.ParseDuration`` reads plans (``1h30m``, ``1.5h``, ``90s``) and reaches the configuration as given; what Go
refuses, or a wait of zero, is refused naming the key."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import pytest

from gpu_platform.addons.kueue import checks as rk
from gpu_platform.addons.kueue.checks import ClusterQueue, QueueIndex, cohort_peers, queue_pools
from gpu_platform.errors import ConfigError
from gpu_platform.pools import GpuPool
from gpu_platform.stack import load_platform
from tests.support.refusals import config_problems
from tests.support.stacks import existing


@dataclass(frozen=True)
class _Pool:
    name: str


def _brute_force_peers(
    queue: ClusterQueue, queues: Sequence[ClusterQueue], pools: Sequence[GpuPool]
) -> list[GpuPool]:
    """The cohort rule as first written: every other queue of the cohort, rescanned for each queue."""
    if queue.cohort is None:
        return []
    own = {p.name for p in queue_pools(queue, pools)}
    out: list[GpuPool] = []
    for other in queues:
        if other.name == queue.name or other.cohort != queue.cohort:
            continue
        out += [p for p in queue_pools(other, pools) if p.name not in own and p not in out]
    return out


def _random_case(rng: random.Random) -> tuple[list[ClusterQueue], list[GpuPool]]:
    pools = [cast(GpuPool, _Pool(f"p{i}")) for i in range(rng.randint(0, 7))]
    names = [p.name for p in pools] + ["missing"]
    queues = []
    for i in range(rng.randint(1, 6)):
        listed = tuple(rng.sample(names, rng.randint(0, min(3, len(names)))))
        cohort = rng.choice([None, "a", "b"])
        # ``None``: every pool; ``()``: none (a queue that only borrows in its cohort).
        queues.append(ClusterQueue(f"q{i}", rng.choice([listed, listed, None]), cohort))
    return queues, pools


def test_cohort_index_matches_the_brute_force_reference_on_random_small_cohorts() -> None:
    rng = random.Random(22)
    for _ in range(2000):
        queues, pools = _random_case(rng)
        index = QueueIndex(queues, pools)
        for q in queues:
            expected = _brute_force_peers(q, queues, pools)
            assert index.peers(q) == expected, (q, queues, pools)
            assert cohort_peers(q, queues, pools) == expected
            assert index.own(q) == queue_pools(q, pools)
            assert index.flavor_count(q) == len(queue_pools(q, pools)) + len(expected)


def _one_cohort(n: int) -> dict[str, Any]:
    """``n`` pools, each the quota of its own queue, every queue in one cohort: each queue would list
    ``n`` flavors, more than Kueue's 64, so every queue is refused."""
    pools = [
        {
            "name": f"a{i}",
            "gpu": "h100-80gb",
            "gpusPerNode": 8,
            "cpusPerNode": 208,
            "memoryGibPerNode": 1872,
            "maxNodes": 1,
        }
        for i in range(n)
    ]
    queues = [{"name": f"q{i}", "pools": [f"a{i}"], "cohort": "all"} for i in range(n)]
    teams = [{"name": f"t{i}", "clusterQueue": f"q{i}"} for i in range(n)]
    return {
        "cloud": "existing",
        "cluster": {"name": "c", "kubeconfig": "k"},
        "gpuPools": pools,
        "gpuOperator": {"enabled": False},
        "kueue": {"clusterQueues": queues, "teams": teams},
    }


def test_a_thousand_queues_in_one_cohort_are_refused_with_linear_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[int] = []
    real = rk.covered_resources

    def counting(pools: Sequence[GpuPool], compute_domains: bool = False) -> list[str]:
        seen.append(len(pools))
        return real(pools, compute_domains)

    monkeypatch.setattr(rk, "covered_resources", counting)
    n = 1000
    with pytest.raises(ConfigError) as err:
        load_platform(_one_cohort(n))
    flavors = [reason for path, reason in err.value.problems if "64 flavors" in reason]
    assert len(flavors) == n and all(r.startswith("1000 pools") for r in flavors)
    # The cohort's resources are gathered once, not once per queue over every peer (that was n^2 pools).
    assert sum(seen) <= 2 * n, sum(seen)


WAIT_KEY = "gpu-platform:kueue.waitForPodsReady.timeout"


def _wait_stack(timeout: Any) -> dict[str, Any]:
    raw = existing()
    return {**raw, "kueue": {**raw["kueue"], "waitForPodsReady": {"timeout": timeout}}}


@pytest.mark.parametrize("timeout", ["10m", "1h30m", "1.5h", "90s", "2h45m30s", "45m0s"])
def test_every_go_duration_plans(timeout: str) -> None:
    spec = load_platform(_wait_stack(timeout))
    assert spec.kueue is not None and spec.kueue.wait_for_pods_ready.timeout == timeout


@pytest.mark.parametrize("timeout", ["10", "1d", "0s", "-5m", "m", "1h 30m", "2562048h"])
def test_what_go_refuses_or_a_zero_wait_is_refused(timeout: str) -> None:
    assert WAIT_KEY in config_problems(_wait_stack(timeout))
