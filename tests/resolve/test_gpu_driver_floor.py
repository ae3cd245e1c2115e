"""A driver that cannot run a pool's GPU is refused where it is set: the GPU Operator's (explicit or its chart's
default) and the one the user states for the cloud (``host_version``, GKE ``installer_version``); a cloud's own
default driver is left alone."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.addons.gpu_operator.checks import resolve_gpu_operator
from gpu_platform.catalog.drivers import DriverVersion
from gpu_platform.catalog.gpus import GPUS
from gpu_platform.driver import operator_driver_version
from gpu_platform.errors import ArgumentsError
from gpu_platform.versions import GPU_OPERATOR

B200 = {"name": "b200", "machine_type": "a4-highgpu-8g", "max_nodes": 2}
L4 = {"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 2}
GB200 = {
    "name": "gb200",
    "machine_type": "a4x-highgpu-4g",
    "max_nodes": 2,
    "zones": ["us-central1-b"],
    "capacity": [{"source": "reservation", "reservation": "gb200-block"}],
}
UBUNTU = {"image": "UBUNTU_CONTAINERD"}


def _problems(pools: list[dict[str, Any]], driver: dict[str, Any]) -> list[tuple[str, str]]:
    try:
        resolve_gpu_operator({"cloud": "gke", "pools": pools, "driver": driver})  # type: ignore[typeddict-item]
    except ArgumentsError as err:
        return list(err.problems)
    return []


def test_nvidia_s_documented_floors_are_in_the_catalog() -> None:
    assert GPUS["b200-180gb"].min_driver == "570.133.20"
    assert GPUS["gb200-186gb"].min_driver == "570.124.06"
    assert GPUS["h100-80gb"].min_driver is None


def test_the_pinned_operator_s_default_driver_runs_every_catalog_gpu() -> None:
    default = operator_driver_version(GPU_OPERATOR.version, None)
    floors = [DriverVersion.parse(g.min_driver) for g in GPUS.values() if g.min_driver]
    assert floors and all(default >= f for f in floors)
    assert _problems([{**B200, **UBUNTU}], {"owner": "operator"}) == []


@pytest.mark.parametrize(
    ("driver", "key"),
    [
        ({"owner": "operator", "version": "550.163.01"}, "driver.version"),
        ({"host_version": "550.163.01"}, "driver.host_version"),
        ({"installer_version": "550.163.01"}, "driver.installer_version"),
    ],
)
def test_a_driver_too_old_for_b200_is_refused_where_it_is_set(driver: dict[str, Any], key: str) -> None:
    pool = {**B200, **UBUNTU} if driver.get("owner") == "operator" else B200
    [(path, reason)] = _problems([pool], driver)
    assert path == key
    assert "B200 180GB" in reason and "'b200'" in reason and ">= 570.133.20" in reason


def test_only_the_pools_whose_gpu_it_cannot_run_are_named() -> None:
    [(path, reason)] = _problems([B200, GB200, L4], {"host_version": "570.130.00"})
    assert path == "driver.host_version"
    assert "'b200'" in reason and "'gb200'" not in reason and "'l4'" not in reason
    assert _problems([GB200, L4], {"host_version": "570.130.00"}) == []


def test_the_cloud_s_own_default_driver_is_not_second_guessed() -> None:
    assert _problems([B200, L4], {}) == []
    assert _problems([L4], {"host_version": "535.230.02"}) == []
