"""CUDA vs driver: a pool whose images need a newer driver than the one that will run there is refused.

The same rule is enforced by the stack config (``load_platform``) and by the component's own args,
for operator-installed drivers (chart default or ``driver.version``) and cloud-image drivers.

GPU vs driver: a driver that cannot run a pool's GPU is refused where it is set: the GPU Operator's (explicit or its
chart's default) and the one the user states for the cloud (``host_version``, GKE ``installer_version``); a cloud's
own default driver is left alone.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.addons.gpu_operator.checks import resolve_gpu_operator
from gpu_platform.addons.gpu_operator.plan import gpu_operator_plan
from gpu_platform.catalog.drivers import DriverVersion
from gpu_platform.catalog.gpus import GPUS
from gpu_platform.cloud_facts.gke.driver_installer import gke_driver_installer
from gpu_platform.driver import operator_driver_version
from gpu_platform.errors import ArgumentsError, ConfigError
from gpu_platform.stack import load_platform
from gpu_platform.versions import GPU_OPERATOR

A100 = {"name": "a100", "machine_type": "Standard_NC24ads_A100_v4", "max_nodes": 2}


def refused(args: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(ArgumentsError) as err:
        gpu_operator_plan(resolve_gpu_operator(args))  # type: ignore[arg-type]
    return err.value.problems


# --- component args --------------------------------------------------------------------------------


def test_cuda_13_on_a_570_operator_driver_is_refused_naming_the_pool_key() -> None:
    problems = refused(
        {"cloud": "aks", "driver": {"version": "570.124.06"}, "pools": [{**A100, "cuda_version": "13.0"}]}
    )
    assert len(problems) == 1
    path, reason = problems[0]
    assert path == "pools[0].cuda_version"
    assert "CUDA 13.0 needs driver >= 580.65.06" in reason
    assert "570.124.06 (GPU Operator driver)" in reason and "driver.version" in reason


def test_stack_wide_cuda_version_is_named_when_the_pool_does_not_declare_one() -> None:
    problems = refused(
        {"cloud": "aks", "driver": {"version": "570.124.06"}, "cuda_version": "13.0", "pools": [A100]}
    )
    assert [p for p, _ in problems] == ["cuda_version"]


def test_cuda_12_8_on_570_124_06_is_accepted() -> None:
    plan = gpu_operator_plan(
        resolve_gpu_operator(
            {"cloud": "aks", "driver": {"version": "570.124.06"}, "pools": [{**A100, "cuda_version": "12.8"}]}
        )
    )
    driver = plan.values["driver"]
    assert (driver["enabled"], driver["version"]) == (True, "570.124.06")


def test_the_chart_default_driver_is_what_gets_checked() -> None:
    # v25.3.0 ships 570.124.06 by default: too old for CUDA 13.0; v26.7.0 ships 595.91.07.
    assert [
        p for p, _ in refused({"cloud": "aks", "version": "v25.3.0", "cuda_version": "13.0", "pools": [A100]})
    ] == ["cuda_version"]
    plan = gpu_operator_plan(resolve_gpu_operator({"cloud": "aks", "cuda_version": "13.2", "pools": [A100]}))
    assert plan.values["driver"]["version"] == "595.91.07"


def test_unknown_cuda_release_names_the_key_and_the_valid_ones() -> None:
    problems = refused({"cloud": "aks", "cuda_version": "12.7", "pools": [A100]})
    assert [p for p, _ in problems] == ["cuda_version"]
    assert "12.8" in problems[0][1] and "13.0" in problems[0][1]


# --- cloud image drivers ---------------------------------------------------------------------------


def test_eks_image_driver_floor_runs_cuda_13() -> None:
    plan = gpu_operator_plan(
        resolve_gpu_operator(
            {
                "cloud": "eks",
                "pools": [
                    {"name": "l4", "machine_type": "g6.xlarge", "max_nodes": 1, "cuda_version": "13.0"}
                ],
            }
        )
    )
    assert plan.driver.driver == "cloud"


def test_eks_declared_older_image_driver_is_refused() -> None:
    problems = refused(
        {
            "cloud": "eks",
            "driver": {"host_version": "570.124.06"},
            "pools": [{"name": "l4", "machine_type": "g6.xlarge", "max_nodes": 1, "cuda_version": "13.0"}],
        }
    )
    path, reason = problems[0]
    assert path == "pools[0].cuda_version"
    assert "570.124.06 (cloud image driver)" in reason


def test_component_cuda_error_names_the_component_argument_to_raise() -> None:
    problems = refused(
        {
            "cloud": "eks",
            "driver": {"host_version": "570.124.06"},
            "pools": [{"name": "l4", "machine_type": "g6.xlarge", "max_nodes": 1, "cuda_version": "13.0"}],
        }
    )
    reason = problems[0][1]
    assert "driver.host_version" in reason and "hostVersion" not in reason


def test_aks_managed_driver_is_too_old_for_cuda_12_8() -> None:
    problems = refused(
        {"cloud": "aks", "driver": {"owner": "cloud"}, "pools": [{**A100, "cuda_version": "12.8"}]}
    )
    assert problems[0][0] == "pools[0].cuda_version"
    assert "550.144.03 (cloud image driver)" in problems[0][1]


def test_gke_google_installer_default_vs_declared_version() -> None:
    l4 = {"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 1, "cuda_version": "12.8"}
    assert refused({"cloud": "gke", "pools": [l4]})[0][0] == "pools[0].cuda_version"
    # hostVersion is only the input of the CUDA check: it installs nothing, the COS default stays.
    plan = gpu_operator_plan(
        resolve_gpu_operator({"cloud": "gke", "driver": {"host_version": "570.172.08"}, "pools": [l4]})
    )
    assert plan.installer_version is None
    script = gke_driver_installer(plan.installer_version)["spec"]["template"]["spec"]["initContainers"][0]
    assert "/cos-gpu-installer install ||" in script["command"][-1]
    # An explicit installer version is its own key, and pins what Google's installer installs.
    pinned = {"host_version": "570.172.08", "installer_version": "570.172.08"}
    plan = gpu_operator_plan(resolve_gpu_operator({"cloud": "gke", "driver": pinned, "pools": [l4]}))
    script = gke_driver_installer(plan.installer_version)["spec"]["template"]["spec"]["initContainers"][0]
    assert "/cos-gpu-installer install --version=570.172.08 ||" in script["command"][-1]


# --- the stack config refuses the same ---------------------------------------------------------------


def stack(cuda_at: str, cuda: str, driver: str) -> dict[str, Any]:
    pool = {"name": "a100", "machineType": "Standard_NC24ads_A100_v4", "maxNodes": 2}
    raw: dict[str, Any] = {
        "cloud": "aks",
        "cluster": {"name": "c"},
        "gpuPools": [pool],
        "gpuOperator": {"driver": {"version": driver}},
        "kueue": {"enabled": False},
    }
    if cuda_at == "pool":
        pool["cudaVersion"] = cuda
    else:
        raw["cudaVersion"] = cuda
    return raw


def test_stack_config_refuses_cuda_13_on_570() -> None:
    with pytest.raises(ConfigError) as err:
        load_platform(stack("pool", "13.0", "570.124.06"))
    assert [p for p, _ in err.value.problems] == ["gpu-platform:gpuPools[0].cudaVersion"]
    assert "580.65.06" in err.value.problems[0][1]
    assert "gpuOperator.driver.version" in err.value.problems[0][1]


@pytest.mark.parametrize(
    ("cuda_at", "cuda", "driver", "ok"),
    [
        ("pool", "13.0", "570.124.06", False),
        ("stack", "13.0", "570.124.06", False),
        ("pool", "12.8", "570.124.06", True),
        ("stack", "12.8", "570.124.06", True),
        ("pool", "13.0", "580.65.06", True),
    ],
)
def test_stack_and_component_agree(cuda_at: str, cuda: str, driver: str, ok: bool) -> None:
    raw = stack(cuda_at, cuda, driver)
    if ok:
        load_platform(raw)
    else:
        with pytest.raises(ConfigError) as err:
            load_platform(raw)
        assert all("cudaVersion" in p for p, _ in err.value.problems)
    args: dict[str, Any] = {"cloud": "aks", "driver": {"version": driver}, "pools": [{**A100}]}
    if cuda_at == "pool":
        args["pools"][0]["cuda_version"] = cuda
    else:
        args["cuda_version"] = cuda
    if ok:
        gpu_operator_plan(resolve_gpu_operator(args))  # type: ignore[arg-type]
    else:
        assert refused(args)[0][0] == ("pools[0].cuda_version" if cuda_at == "pool" else "cuda_version")


# --- the GPU's driver floor ------------------------------------------------------------------------


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
