"""Invalid stack configs stop before anything is registered, with one line naming the key."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpu_platform.stack import load_platform
from tests.support.refusals import config_error

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
            "minNodes": 1,  # operator MIG cannot scale up from 0 on GKE
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


def test_base_config_is_valid() -> None:
    spec = load_platform(BASE)
    assert [p.name for p in spec.pools] == ["l4", "h100"]


@pytest.mark.parametrize(
    ("path", "value", "where", "words"),
    [
        (["cloud"], "azure", "cloud", ["'azure' is not valid", "gke, eks, aks, existing"]),
        (
            ["gpuPools", 0, "machineType"],
            "g2-standard-5",
            "gpuPools[0].machineType",
            ["'g2-standard-5' is not a GKE GPU machine type", "g2-standard-8"],
        ),
        (
            ["gpuPools", 0, "machineType"],
            "x1-bogus",
            "gpuPools[0].machineType",
            ["'x1-bogus' is not a GKE GPU machine type", "valid: ", "g2-standard-4"],
        ),
        (
            ["gpuPools", 0, "sharing"],
            {"mode": "mig", "mig": {"layout": "all-1g.10gb"}},
            "gpuPools[0].sharing.mode",
            ["L4 24GB is not MIG-capable"],
        ),
        (
            ["gpuPools", 1, "sharing", "mig"],
            {"profiles": ["3g.40gb", "2g.25gb"]},
            "gpuPools[1].sharing.mig.profiles[1]",
            ["'2g.25gb' is not a MIG profile of H100 80GB", "valid: ", "3g.40gb"],
        ),
        (
            ["gpuPools", 1, "sharing", "mig", "layout"],
            "2g.25gb",
            "gpuPools[1].sharing.mig.layout",
            ["'2g.25gb' is not a MIG layout of H100 80GB", "all-1g.10gb"],
        ),
        (
            ["gpuPools", 1, "sharing", "mig"],
            {"profiles": ["4g.40gb", "2g.20gb", "2g.20gb"]},
            "gpuPools[1].sharing.mig.profiles",
            ["4g.40gb + 2g.20gb + 2g.20gb does not fit on one H100 80GB"],
        ),
        (
            # The old spelling of an explicit list: refused with a pointer to the new key.
            ["gpuPools", 1, "sharing", "mig", "layout"],
            ["3g.40gb", "2g.20gb", "2g.20gb"],
            "gpuPools[1].sharing.mig.layout",
            ["mig.profiles"],
        ),
        (
            ["gpuPools", 1, "sharing", "mig"],
            {"layout": "all-1g.10gb", "profiles": ["7g.80gb"]},
            "gpuPools[1].sharing.mig.profiles",
            ["not both"],
        ),
        (
            ["gpuPools", 1, "sharing", "mig"],
            {"layout": "all-balanced", "strategy": "single"},
            "gpuPools[1].sharing.mig.strategy",
            ["'single' needs one profile on every GPU"],
        ),
        (
            ["gpuPools", 0, "sharing", "replicas"],
            1,
            "gpuPools[0].sharing.replicas",
            ["time-slicing needs replicas >= 2 (got 1)"],
        ),
        (["gpuPools", 0, "minNodes"], 3, "gpuPools[0].minNodes", ["3 is more than", "2"]),
        (["gpuPools", 0, "maxNodes"], -1, "gpuPools[0].maxNodes", ["-1 is out of range"]),
        (["gpuPools", 0, "minNodes"], -2, "gpuPools[0].minNodes", ["-2 is out of range"]),
        # Strict kinds: no coercion of booleans to numbers or of numbers to text.
        (["gpuPools", 0, "maxNodes"], True, "gpuPools[0].maxNodes", ["not a whole number"]),
        (["gpuPools", 0, "cudaVersion"], 12.1, "gpuPools[0].cudaVersion", ["not text", "quote it"]),
        (["gpuPools", 0, "gpuz"], 1, "gpuPools[0].gpuz", ["unknown key 'gpuz'", "did you mean 'gpu'"]),
        (
            ["gpuPools", 0, "sharing", "timeslicing"],
            True,
            "gpuPools[0].sharing.timeslicing",
            ["unknown key 'timeslicing'"],
        ),
        (["extra"], 1, "extra", ["unknown key 'extra'"]),
        (["gpuPools", 1, "name"], "l4", "gpuPools[1].name", ["'l4' is used by more than one pool"]),
        (
            ["gpuPools", 0, "isolationRequired"],
            True,
            "gpuPools[0].sharing.mode",
            ["time-slicing gives no memory or fault isolation"],
        ),
        (["gpuPools", 0, "capacityType"], "SPOT", "gpuPools[0].capacityType", ["EKS only"]),
        (["gpuPools", 0, "cudaVersion"], "12.7", "gpuPools[0].cudaVersion", ["'12.7' is not a CUDA release"]),
        (
            ["gpuPools", 0, "taints"],
            [{"key": "nvidia.com/gpu", "value": "present", "effect": "PreferNoSchedule"}],
            "gpuPools[0].taints[0].effect",
            ["the nvidia.com/gpu taint is always NoSchedule"],
        ),
        (
            ["gpuPools", 0, "labels"],
            {"gpu-platform.io/pool": "x"},
            "gpuPools[0].labels.gpu-platform.io/pool",
            ["set by the library"],
        ),
        (
            ["gpuPools", 0, "image"],
            "WINDOWS_LTSC",
            "gpuPools[0].image",
            ["'WINDOWS_LTSC' is not a GPU image"],
        ),
    ],
)
def test_invalid_config_names_the_key(
    path: list[str | int], value: Any, where: str, words: list[str]
) -> None:
    message = config_error(with_change(path, value))
    assert len(message.splitlines()) == 1, message
    key, _, reason = message.partition(": ")
    assert key == f"gpu-platform:{where}", message
    for word in words:
        assert word in reason, message


def test_missing_required_key() -> None:
    cfg = copy.deepcopy(BASE)
    del cfg["gpuPools"][0]["maxNodes"]
    assert config_error(cfg) == "gpu-platform:gpuPools[0].maxNodes: required key is missing"


def test_every_problem_is_reported_at_once() -> None:
    cfg = with_change(["gpuPools", 0, "minNodes"], 5)
    cfg["gpuPools"][1]["sharing"]["mig"] = {"profiles": ["7g.80gb", "1g.10gb"]}
    cfg["extra"] = 1
    lines = config_error(cfg).splitlines()
    assert sorted(line.partition(": ")[0] for line in lines) == [
        "gpu-platform:extra",
        "gpu-platform:gpuPools[0].minNodes",
        "gpu-platform:gpuPools[1].sharing.mig.profiles",
    ]


def test_conflicting_mig_strategies_across_pools() -> None:
    cfg = copy.deepcopy(BASE)
    cfg["gpuPools"].append(
        {
            "name": "h100b",
            "machineType": "a3-highgpu-8g",
            "minNodes": 1,
            "maxNodes": 1,
            "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb", "strategy": "single"}},
        }
    )
    assert "gpu-platform:gpuPools[2].sharing.mig.strategy: 'single' conflicts with 'mixed'" in config_error(
        cfg
    )


def test_existing_cluster_needs_gpu_facts_and_driver_owner() -> None:
    cfg = {
        "cloud": "existing",
        "cluster": {"name": "c"},
        "gpuPools": [{"name": "a", "gpu": "l5", "maxNodes": 1}],
    }
    assert "gpu-platform:gpuPools[0].gpu: 'l5' is not a GPU model; valid: t4" in config_error(cfg)
    cfg["gpuPools"][0].update(gpu="l4", gpusPerNode=1, cpusPerNode=8, memoryGibPerNode=32)
    assert (
        "gpu-platform:gpuOperator.driver.owner: an existing cluster must declare who owns the driver"
        in config_error(cfg)
    )
