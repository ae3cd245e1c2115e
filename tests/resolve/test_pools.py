"""A setting that names a pool when no pool resolved (``gpuPools`` renamed, misspelt or all invalid) says where the
pools should be, never an empty "valid:" list."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.errors import ConfigError
from gpu_platform.stack import load_platform

POOL = {"name": "l4", "machineType": "g2-standard-8", "maxNodes": 2}


def problems(**sections: Any) -> list[tuple[str, str]]:
    raw = {"cloud": "gke", "cluster": {"name": "c", "project": "p", "region": "us-central1"}, **sections}
    with pytest.raises(ConfigError) as exc:
        load_platform(raw)
    return exc.value.problems


def by_path(found: list[tuple[str, str]]) -> dict[str, str]:
    return {path.removeprefix("gpu-platform:"): reason for path, reason in found}


def test_after_a_renamed_pools_section_pool_names_point_at_gpu_pools() -> None:
    found = problems(
        pools=[POOL],  # the section's old or misspelt name
        kueue={
            "clusterQueues": [{"name": "q", "pools": ["l4"]}],
            "teams": [{"name": "a", "clusterQueue": "q"}],
        },
        kserve={"enabled": True, "services": [{"name": "m", "pool": "l4", "modelFormat": "huggingface"}]},
        volcano={"enabled": True, "teams": [{"name": "b", "pools": ["l4"]}]},
    )
    assert not [f"{p}: {r}" for p, r in found if r.rstrip().endswith("valid:")]
    reasons = by_path(found)
    assert reasons["pools"] == "unknown key 'pools'; did you mean 'gpuPools'?"
    for path in ("kueue.clusterQueues[0].pools[0]", "kserve.services[0].pool", "volcano.teams[0].pools[0]"):
        assert reasons[path] == "'l4' is not a GPU pool; no GPU pool is defined (under gpuPools)", path


def test_slurm_without_pools_and_without_gpu_pools_names_both() -> None:
    reasons = by_path(problems(gpuPool=[POOL], slurm={"enabled": True}))
    assert reasons["slurm.pools"] == (
        "required: the GPU pools Slurm owns (at least one); no GPU pool is defined (under gpuPools)"
    )
    reasons = by_path(problems(gpuPool=[POOL], slurm={"enabled": True, "pools": ["l4"]}))
    assert reasons["slurm.pools[0]"] == "'l4' is not a GPU pool; no GPU pool is defined (under gpuPools)"


def test_with_pools_the_valid_names_are_listed() -> None:
    reasons = by_path(
        problems(
            gpuPools=[POOL, {**POOL, "name": "l4b"}],
            kserve={
                "enabled": True,
                "services": [{"name": "m", "pool": "l40", "modelFormat": "huggingface"}],
            },
        )
    )
    assert reasons["kserve.services[0].pool"] == "'l40' is not a GPU pool; valid: l4, l4b"
