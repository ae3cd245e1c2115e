"""Volcano never schedules an isolated pool: HAMi's webhook leaves pods bound for Volcano alone, no node advertises
``nvidia.com/gpumem``, and HAMi's device plugin allocates only pods its own scheduler placed. The pool is refused
at its sharing mode wherever Volcano would get it; a pool Kueue owns stays isolated next to Volcano."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.addons.volcano.checks import resolve_volcano_args
from gpu_platform.errors import ArgumentsError
from gpu_platform.stack import load_platform
from tests.support.refusals import config_problems

ISOLATED = {
    "name": "l4",
    "gpu": "l4",
    "gpusPerNode": 1,
    "cpusPerNode": 8,
    "memoryGibPerNode": 32,
    "maxNodes": 2,
}


def _raw(kueue: dict[str, Any]) -> dict[str, Any]:
    return {
        "cloud": "existing",
        "cluster": {"name": "c", "kubeconfig": "apiVersion: v1", "kubernetesVersion": "1.34"},
        "gpuOperator": {"driver": {"owner": "operator"}},
        "gpuPools": [
            {
                "name": "h100",
                "gpu": "h100-80gb",
                "gpusPerNode": 8,
                "cpusPerNode": 192,
                "memoryGibPerNode": 1800,
                "maxNodes": 2,
            },
            {**ISOLATED, "sharing": {"mode": "isolated", "replicas": 4}},
        ],
        "kueue": kueue,
        "volcano": {"enabled": True},
    }


def test_an_isolated_pool_volcano_would_schedule_is_refused_naming_both_settings() -> None:
    found = config_problems(_raw({"enabled": False}))
    assert list(found) == ["gpu-platform:gpuPools[1].sharing.mode"]
    reason = found["gpu-platform:gpuPools[1].sharing.mode"]
    assert reason.startswith(
        "pool 'l4' is isolated, and with volcano.enabled Volcano schedules every GPU pool"
    )
    assert "schedulerName volcano" in reason and "nvidia.com/gpumem" in reason
    assert "kueue.clusterQueues" in reason


def test_an_isolated_pool_kueue_owns_stays_isolated_next_to_volcano() -> None:
    platform = load_platform(_raw({"clusterQueues": [{"name": "serving", "pools": ["l4"]}]}))
    assert [p.sharing.mode for p in platform.pools] == ["none", "isolated"]
    assert platform.volcano is not None
    assert [p.name for p in platform.volcano.pools] == ["h100"]


def test_the_volcano_component_refuses_an_isolated_pool_too() -> None:
    pool: dict[str, Any] = {"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 2, "min_nodes": 1}
    isolated: Any = {"cloud": "gke", "pools": [{**pool, "sharing": {"mode": "isolated", "replicas": 4}}]}
    with pytest.raises(ArgumentsError) as err:
        resolve_volcano_args(isolated)
    (path,) = [path for path, _ in err.value.problems]
    assert path == "pools[0].sharing.mode"
    whole: Any = {"cloud": "gke", "pools": [pool]}
    assert [p.name for p in resolve_volcano_args(whole).pools] == ["l4"]
