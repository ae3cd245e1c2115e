"""Yandex Managed Kubernetes (issue 26): the platform catalog, driver ownership per GPU environment, declared
allocatable, the GPU taint, MIG and Kueue quotas, all from the stack file of an existing cluster."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.addons.kueue.plan import pool_capacity
from gpu_platform.cloud_facts import profile_of
from gpu_platform.cloud_facts.yandex import machines as table
from gpu_platform.pools import GPU_TAINT
from gpu_platform.scheduling import pool_tolerations
from gpu_platform.stack import load_platform
from tests.support.refusals import config_problems

YANDEX = profile_of("yandex")


def a100(**extra: Any) -> dict[str, Any]:
    return {
        "name": "a100",
        "machineType": "gpu-standard-v3",
        "image": "runc",
        "gpusPerNode": 4,
        "cpusPerNode": 110,
        "memoryGibPerNode": 460,
        "maxNodes": 2,
        **extra,
    }


def stack(*pools: dict[str, Any], **driver: Any) -> dict[str, Any]:
    version = {} if "hostVersion" in driver else {"version": "580.105.08"}
    return {
        "cloud": "yandex",
        "cluster": {"name": "yc", "kubeconfig": "apiVersion: v1"},
        "gpuPools": list(pools) or [a100()],
        "gpuOperator": {"driver": {"owner": "auto", **version, **driver}},
        "kueue": {"teams": [{"name": "ml", "clusterQueue": "gpu"}]},
    }


@pytest.mark.parametrize(
    ("platform", "gpu", "shapes"),
    [
        ("gpu-standard-v3", "a100-80gb", [(1, 28, 119), (2, 56, 238), (4, 112, 476), (8, 224, 952)]),
        ("gpu-standard-v3i", "a100-80gb", [(1, 18, 144), (2, 36, 288), (4, 72, 576), (8, 180, 1440)]),
        ("gpu-standard-v4", "h200-141gb", [(1, 22, 220), (2, 44, 440), (4, 88, 880), (8, 180, 1800)]),
        ("standard-v3-t4", "t4", [(1, 4, 16), (1, 8, 32), (1, 16, 64), (1, 32, 128)]),
    ],
)
def test_catalog_is_yandex_published_configurations(platform: str, gpu: str, shapes: list[Any]) -> None:
    rows = table.CONFIGURATIONS[platform]
    assert [(m.gpus, m.vcpus, m.memory_gib) for m in rows] == shapes
    assert {m.gpu_key for m in rows} == {gpu} and {m.cloud for m in rows} == {"yandex"}
    assert YANDEX.machines[platform] == rows[-1]


def test_gpu_count_and_vcpus_pick_the_configuration() -> None:
    assert (m := YANDEX.machine("gpu-standard-v3", {"gpus_per_node": 2})) and m.vcpus == 56
    assert (m := YANDEX.machine("standard-v3-t4", {"cpus_per_node": 15})) and m.vcpus == 16
    assert (m := YANDEX.machine("standard-v3-t4", {"cpus_per_node": 99})) and m.vcpus == 32
    assert YANDEX.machine("gpu-standard-v1") is None


def test_driverless_pool_the_operator_owns_the_driver_and_kueue_counts_declared_allocatable() -> None:
    spec = load_platform(stack())
    pool = spec.pools[0]
    assert (pool.gpu.key, pool.gpus_per_node, pool.vcpus, pool.memory_gib) == ("a100-80gb", 4, 110, 460)
    assert pool.machine is not None and pool.machine.vcpus == 112
    driver = spec.driver[0] if isinstance(spec.driver, dict) else spec.driver
    assert (driver.driver, driver.toolkit, driver.device_plugin) == ("operator", "operator", "operator")
    assert spec.kueue is not None
    quota = pool_capacity(pool, spec.kueue.capacity_basis, spec.pools)
    assert quota["nvidia.com/gpu"] == 8
    # The declared allocatable, less the library's operand requests: never more than the VM.
    assert isinstance(quota["cpu"], str) and int(quota["cpu"].rstrip("m")) < 2 * 110 * 1000


def test_preinstalled_environment_is_the_cloud_s_driver_and_device_plugin() -> None:
    pool = a100(image="runc_drivers_cuda")
    spec = load_platform(stack(pool, hostVersion="550.144.03"))
    driver = spec.driver[0] if isinstance(spec.driver, dict) else spec.driver
    assert (driver.driver, driver.toolkit, driver.device_plugin) == ("cloud", "cloud", "cloud")
    default = {k: v for k, v in a100().items() if k != "image"}  # runc_drivers_cuda is Yandex's default
    assert load_platform(stack(default, hostVersion="550.144.03")).pools[0].image is None


def test_every_pool_carries_and_tolerates_the_gpu_taint() -> None:
    pool = load_platform(stack()).pools[0]
    assert {"key": GPU_TAINT.key, "operator": "Exists", "effect": GPU_TAINT.effect} in pool_tolerations(pool)


def test_mig_on_a100_and_h200_not_on_t4() -> None:
    mig = {"mode": "mig", "mig": {"strategy": "single", "profiles": ["1g.10gb"] * 7}}
    assert load_platform(stack(a100(sharing=mig))).pools[0].sharing.mode == "mig"
    t4 = {"name": "t4", "machineType": "standard-v3-t4", "image": "runc", "cpusPerNode": 15}
    t4 |= {"memoryGibPerNode": 60, "maxNodes": 1, "sharing": mig}
    assert "gpuPools[0].sharing.mode" in " ".join(config_problems(stack(t4)))


@pytest.mark.parametrize(
    ("pool", "driver", "key", "says"),
    [
        ({**a100(), "gpusPerNode": 3}, {}, "gpusPerNode", "1, 2, 4, 8"),
        ({**a100(), "cpusPerNode": 200}, {}, "cpusPerNode", "112 vCPUs"),
        ({k: v for k, v in a100().items() if k != "memoryGibPerNode"}, {}, "memoryGibPerNode", "allocatable"),
        ({**a100(), "image": "docker"}, {}, "image", "runc_drivers_cuda, runc"),
        ({**a100(), "machineType": "gpu-standard-v1"}, {}, "machineType", "gpu-standard-v4"),
        ({**a100(), "image": "runc_drivers_cuda"}, {"owner": "operator"}, "owner", "runc"),
        ({**a100(), "image": "runc_drivers_cuda"}, {}, "driver", "driver.hostVersion"),
        (a100(), {"version": "535.230.02"}, "driver", "550.144.03 or newer"),
    ],
)
def test_bad_input_names_the_setting_and_what_is_valid(
    pool: dict[str, Any], driver: dict[str, Any], key: str, says: str
) -> None:
    found = config_problems(stack(pool, **driver))
    assert any(key in where and says in why for where, why in found.items()), found
