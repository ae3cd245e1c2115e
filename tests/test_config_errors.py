"""Invalid stack configs stop before anything is registered, with one line naming the key."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpu_platform.config import ConfigError, load_platform

BASE: dict[str, Any] = {
    "cloud": "gke",
    "cluster": {"name": "c1", "project": "p", "region": "us-central1"},
    "gpuPools": [
        {
            "name": "l4",
            "machineType": "g2-standard-8",
            "maxNodes": 2,
            "sharing": {"mode": "time-slicing", "replicas": 4},
        },
        {
            "name": "h100",
            "machineType": "a3-highgpu-8g",
            "maxNodes": 2,
            "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb"}},
        },
    ],
}


def with_change(path: list[str | int], value: Any) -> dict[str, Any]:
    cfg = copy.deepcopy(BASE)
    node = cfg
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return cfg


def error_of(cfg: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as err:
        load_platform(cfg)
    return str(err.value)


def test_base_config_is_valid() -> None:
    spec = load_platform(BASE)
    assert [p.name for p in spec.pools] == ["l4", "h100"]


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (
            ["cloud"],
            "azure",
            "gpu-platform:cloud: 'azure' is not valid; valid: 'gke', 'eks', 'aks', 'existing'",
        ),
        (
            ["gpuPools", 0, "machineType"],
            "g2-standard-5",
            "gpu-platform:gpuPools[0].machineType: 'g2-standard-5' is not a GKE GPU machine type; valid: g2-standard-4",
        ),
        (
            ["gpuPools", 0, "sharing"],
            {"mode": "mig", "mig": {"layout": "all-1g.10gb"}},
            "gpu-platform:gpuPools[0].sharing.mode: L4 24GB is not MIG-capable",
        ),
        (
            ["gpuPools", 1, "sharing", "mig", "layout"],
            ["3g.40gb", "2g.25gb"],
            "gpu-platform:gpuPools[1].sharing.mig.layout[1]: '2g.25gb' is not a MIG profile of H100 80GB; valid: ",
        ),
        (
            ["gpuPools", 1, "sharing", "mig", "layout"],
            "2g.25gb",
            "gpu-platform:gpuPools[1].sharing.mig.layout: '2g.25gb' is not a MIG layout of H100 80GB",
        ),
        (
            ["gpuPools", 1, "sharing", "mig", "layout"],
            ["4g.40gb", "2g.20gb", "2g.20gb"],
            "gpu-platform:gpuPools[1].sharing.mig.layout: 4g.40gb + 2g.20gb + 2g.20gb does not fit on one H100 80GB",
        ),
        (
            ["gpuPools", 1, "sharing", "mig"],
            {"layout": "all-balanced", "strategy": "single"},
            "gpu-platform:gpuPools[1].sharing.mig.strategy: 'single' needs one profile on every GPU",
        ),
        (
            ["gpuPools", 0, "sharing", "replicas"],
            1,
            "gpu-platform:gpuPools[0].sharing.replicas: time-slicing needs replicas >= 2 (got 1)",
        ),
        (["gpuPools", 0, "minNodes"], 3, "gpu-platform:gpuPools[0].minNodes: 3 is more than maxNodes 2"),
        (
            ["gpuPools", 0, "maxNodes"],
            -1,
            "gpu-platform:gpuPools[0].maxNodes: Input should be greater than or equal to 0",
        ),
        (
            ["gpuPools", 0, "minNodes"],
            -2,
            "gpu-platform:gpuPools[0].minNodes: Input should be greater than or equal to 0",
        ),
        (["gpuPools", 0, "gpuz"], 1, "gpu-platform:gpuPools[0].gpuz: unknown key"),
        (
            ["gpuPools", 0, "sharing", "timeslicing"],
            True,
            "gpu-platform:gpuPools[0].sharing.timeslicing: unknown key",
        ),
        (["extra"], 1, "gpu-platform:extra: unknown key"),
        (["gpuPools", 1, "name"], "l4", "gpu-platform:gpuPools[1].name: 'l4' is used by more than one pool"),
        (
            ["gpuPools", 0, "isolationRequired"],
            True,
            "gpu-platform:gpuPools[0].sharing.mode: time-slicing gives no memory or fault isolation",
        ),
        (["gpuPools", 0, "capacityType"], "SPOT", "gpu-platform:gpuPools[0].capacityType: EKS only"),
        (
            ["gpuPools", 0, "cudaVersion"],
            "12.7",
            "gpu-platform:gpuPools[0].cudaVersion: '12.7' is not a CUDA release",
        ),
        (
            ["gpuPools", 0, "taints"],
            [{"key": "nvidia.com/gpu", "value": "present", "effect": "PreferNoSchedule"}],
            "gpu-platform:gpuPools[0].taints[0].effect: the nvidia.com/gpu taint is always NoSchedule",
        ),
        (
            ["gpuPools", 0, "labels"],
            {"gpu-platform.io/pool": "x"},
            "gpu-platform:gpuPools[0].labels.gpu-platform.io/pool: set by the library",
        ),
        (
            ["gpuPools", 0, "image"],
            "WINDOWS_LTSC",
            "gpu-platform:gpuPools[0].image: 'WINDOWS_LTSC' is not a GPU image",
        ),
    ],
)
def test_invalid_config_names_the_key(path: list[str | int], value: Any, expected: str) -> None:
    message = error_of(with_change(path, value))
    assert expected in message
    assert len(message.splitlines()) == 1, message


def test_missing_required_key() -> None:
    cfg = copy.deepcopy(BASE)
    del cfg["gpuPools"][0]["maxNodes"]
    assert error_of(cfg) == "gpu-platform:gpuPools[0].maxNodes: required key is missing"


def test_every_problem_is_reported_at_once() -> None:
    cfg = with_change(["gpuPools", 0, "minNodes"], 5)
    cfg["gpuPools"][1]["sharing"]["mig"]["layout"] = ["7g.80gb", "1g.10gb"]
    lines = error_of(cfg).splitlines()
    assert any(line.startswith("gpu-platform:gpuPools[0].minNodes") for line in lines)
    assert any(line.startswith("gpu-platform:gpuPools[1].sharing.mig.layout") for line in lines)


def test_conflicting_mig_strategies_across_pools() -> None:
    cfg = copy.deepcopy(BASE)
    cfg["gpuPools"].append(
        {
            "name": "h100b",
            "machineType": "a3-highgpu-8g",
            "maxNodes": 1,
            "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb", "strategy": "single"}},
        }
    )
    assert "gpu-platform:gpuPools[2].sharing.mig.strategy: 'single' conflicts with 'mixed'" in error_of(cfg)


def test_existing_cluster_needs_gpu_facts_and_driver_owner() -> None:
    cfg = {
        "cloud": "existing",
        "cluster": {"name": "c"},
        "gpuPools": [{"name": "a", "gpu": "l5", "maxNodes": 1}],
    }
    assert "gpu-platform:gpuPools[0].gpu: 'l5' is not a GPU model; valid: t4" in error_of(cfg)
    cfg["gpuPools"][0].update(gpu="l4", gpusPerNode=1, cpusPerNode=8, memoryGibPerNode=32)
    assert (
        "gpu-platform:gpuOperator.driver.owner: an existing cluster must declare who owns the driver"
        in error_of(cfg)
    )
