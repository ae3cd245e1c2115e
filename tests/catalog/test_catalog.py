"""The GPU catalog: machine types resolve to the right GPU and count; tables are self-consistent."""

from __future__ import annotations

import pytest

from gpu_platform.catalog import GPUS, MIG_TABLES
from gpu_platform.catalog.drivers import (
    CUDA_MIN_DRIVER,
    GPU_OPERATOR_DEFAULT_DRIVER,
    DriverVersion,
    min_driver_for_cuda,
)
from gpu_platform.cloud_facts import PROFILES, profile_of
from gpu_platform.versions import GPU_OPERATOR


@pytest.mark.parametrize(
    ("cloud", "machine", "gpu", "count", "accelerator"),
    [
        ("gke", "g2-standard-8", "l4", 1, "nvidia-l4"),
        ("gke", "g2-standard-96", "l4", 8, "nvidia-l4"),
        ("gke", "a2-highgpu-4g", "a100-40gb", 4, "nvidia-tesla-a100"),
        ("gke", "a2-megagpu-16g", "a100-40gb", 16, "nvidia-tesla-a100"),
        ("gke", "a2-ultragpu-8g", "a100-80gb", 8, "nvidia-a100-80gb"),
        ("gke", "a3-highgpu-8g", "h100-80gb", 8, "nvidia-h100-80gb"),
        ("gke", "a3-megagpu-8g", "h100-80gb", 8, "nvidia-h100-mega-80gb"),
        ("gke", "a3-ultragpu-8g", "h200-141gb", 8, "nvidia-h200-141gb"),
        ("gke", "n1-standard-8", "t4", 1, "nvidia-tesla-t4"),
        ("eks", "g4dn.xlarge", "t4", 1, None),
        ("eks", "g4dn.12xlarge", "t4", 4, None),
        ("eks", "g5.48xlarge", "a10g", 8, None),
        ("eks", "g6.xlarge", "l4", 1, None),
        ("eks", "g6e.12xlarge", "l40s", 4, None),
        ("eks", "p4d.24xlarge", "a100-40gb", 8, None),
        ("eks", "p4de.24xlarge", "a100-80gb", 8, None),
        ("eks", "p5.48xlarge", "h100-80gb", 8, None),
        ("eks", "p5e.48xlarge", "h200-141gb", 8, None),
        ("eks", "p5en.48xlarge", "h200-141gb", 8, None),
        ("aks", "Standard_NC4as_T4_v3", "t4", 1, None),
        ("aks", "Standard_NC64as_T4_v3", "t4", 4, None),
        ("aks", "Standard_NC24ads_A100_v4", "a100-80gb", 1, None),
        ("aks", "Standard_ND96asr_v4", "a100-40gb", 8, None),
        ("aks", "Standard_ND96amsr_A100_v4", "a100-80gb", 8, None),
        ("aks", "Standard_NC40ads_H100_v5", "h100-94gb", 1, None),
        ("aks", "Standard_ND96isr_H100_v5", "h100-80gb", 8, None),
        ("aks", "Standard_ND96isr_H200_v5", "h200-141gb", 8, None),
    ],
)
def test_machine_resolves_to_gpu(
    cloud: str, machine: str, gpu: str, count: int, accelerator: str | None
) -> None:
    m = profile_of(cloud).machine(machine)
    assert m is not None
    assert (m.gpu_key, m.gpus, m.accelerator_type) == (gpu, count, accelerator)


def test_every_machine_names_a_known_gpu_and_has_capacity() -> None:
    for cloud, machines in ((n, p.machines) for n, p in PROFILES.items()):
        for m in machines.values():
            assert m.gpu_key in GPUS, (cloud, m.name)
            assert m.vcpus > 0 and m.memory_gib > 0 and m.gpus > 0


def test_efa_only_where_the_instance_has_it() -> None:
    assert profile_of("eks").machine("p5.48xlarge").efa_interfaces == 32
    assert profile_of("eks").machine("p5en.48xlarge").efa_interfaces == 16
    assert profile_of("eks").machine("p4d.24xlarge").efa_interfaces == 4
    assert profile_of("eks").machine("g6.xlarge").efa_interfaces == 0


def test_mig_capability_matches_the_mig_tables() -> None:
    capable = {k for k, g in GPUS.items() if g.mig_capable}
    assert capable == {
        "a30-24gb",
        "a100-40gb",
        "a100-80gb",
        "h100-80gb",
        "h100-94gb",
        "h200-141gb",
        "b200-180gb",
        "gb200-186gb",
    }
    for key in capable:
        assert GPUS[key].mig_table in MIG_TABLES
    for key in ("t4", "a10g", "l4", "l40s"):
        assert not GPUS[key].mig_capable


def test_driver_versions_compare_numerically() -> None:
    assert DriverVersion.parse("570.26") < DriverVersion.parse("570.124.06")
    assert DriverVersion.parse("580.65.06") > DriverVersion.parse("575.57.08")
    assert str(DriverVersion.parse("580.65.06")) == "580.65.06"


@pytest.mark.parametrize(
    ("cuda", "driver"),
    [
        ("12.2", "535.54.03"),
        ("12.4", "550.54.14"),
        ("12.8", "570.26"),
        ("13.0", "580.65.06"),
        ("13.2", "595.45.04"),
    ],
)
def test_cuda_minimum_driver(cuda: str, driver: str) -> None:
    assert str(min_driver_for_cuda(cuda)) == driver


def test_no_cuda_12_7_row_exists() -> None:
    assert "12.7" not in CUDA_MIN_DRIVER
    with pytest.raises(KeyError):
        min_driver_for_cuda("12.7")


def test_pinned_operator_default_driver_is_in_the_table() -> None:
    assert GPU_OPERATOR_DEFAULT_DRIVER[GPU_OPERATOR.version] == "595.91.07"
