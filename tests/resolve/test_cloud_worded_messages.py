"""Messages that name the clouds where a setting works: generic checks word them from the clouds' profiles
(``display``, ``efa_machines``, ``driver_installer_nodes``, ``cloud_mig_setting``, ``dra_cloud_mig``), and the
words stay what they were when each check named its cloud itself."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.errors import ConfigError
from gpu_platform.stack import load_platform

REGIONS = {"gke": "us-central1", "eks": "us-east-1", "aks": "eastus"}


def problems(cloud: str, pool: dict[str, Any], **extra: Any) -> list[tuple[str, str]]:
    raw: dict[str, Any] = {
        "cloud": cloud,
        "cluster": {"name": "c", "region": REGIONS[cloud], "kubernetesVersion": "1.34.2"},
        "gpuPools": [{"name": "p", "maxNodes": 2, **pool}],
        "kueue": {"enabled": False},
        **extra,
    }
    with pytest.raises(ConfigError) as err:
        load_platform(raw)
    return list(err.value.problems)


def test_gpudirect_elsewhere_names_the_clouds_of_each_fabric() -> None:
    assert problems("eks", {"machineType": "p5.48xlarge", "gpudirect": True}) == [
        (
            "gpu-platform:gpuPools[0].gpudirect",
            "GKE only (the GPUDirect-TCPX/TCPXO/RDMA NICs of A3 and A4 machines); between nodes EKS pools get fast "
            "networking with efa, AKS pools with infiniband",
        )
    ]


def test_efa_elsewhere_names_the_efa_machines() -> None:
    assert problems("gke", {"machineType": "a3-highgpu-8g", "efa": True}) == [
        (
            "gpu-platform:gpuPools[0].efa",
            "EFA needs an EKS instance type with EFA interfaces (p4d, p4de, p5, p5e, p5en, ...)",
        )
    ]


def test_a_reservation_without_a_capacity_block_names_the_cloud() -> None:
    pool = {"machineType": "p5.48xlarge", "capacityType": "ON_DEMAND", "reservation": "cr-0123456789abcdef0"}
    assert problems("eks", pool) == [
        (
            "gpu-platform:gpuPools[0].reservation",
            "on EKS only with capacityType CAPACITY_BLOCK (the Capacity Block ID)",
        )
    ]


def test_an_installer_version_without_a_cloud_installer_names_its_nodes() -> None:
    found = problems(
        "eks", {"machineType": "p5.48xlarge"}, gpuOperator={"driver": {"installerVersion": "570.124.06"}}
    )
    assert found == [
        (
            "gpu-platform:gpuOperator.driver.installerVersion",
            "only for GKE COS nodes, where Google's installer puts the driver",
        )
    ]


def test_cloud_mig_with_the_operators_driver_names_the_clouds_setting() -> None:
    pool = {
        "machineType": "Standard_ND96asr_v4",
        "minNodes": 1,
        "sharing": {"mode": "mig", "managedBy": "cloud", "mig": {"layout": "all-3g.20gb"}},
    }
    assert problems("aks", pool, gpuOperator={"driver": {"owner": "operator"}}) == [
        (
            "gpu-platform:gpuOperator.driver.owner",
            "pool 'p': AKS partitions GPUs (gpu_instance_profile) with the driver it installs: use owner 'cloud', "
            "or let the GPU Operator's MIG manager do MIG (sharing.managedBy: operator)",
        )
    ]


def test_operator_mig_on_a_dra_pool_points_to_cloud_partitioned_mig() -> None:
    pool = {
        "machineType": "Standard_ND96asr_v4",
        "allocation": "dra",
        "sharing": {"mode": "mig", "managedBy": "operator", "mig": {"profiles": ["3g.20gb"]}},
    }
    found = [reason for _, reason in problems("aks", pool, dra={"enabled": True})]
    assert len(found) == 1 and found[0].endswith(
        "supports only preconfigured MIG devices with DRA. Use AKS-partitioned MIG (sharing.managedBy: cloud on "
        "AKS), or allocation 'device-plugin' for operator-managed MIG"
    )


def _sharing_problems(raw: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(ConfigError) as err:
        load_platform(raw)
    return [p for p in err.value.problems if p[0].endswith("sharing.mode")]


def test_sharing_on_an_image_with_its_own_device_plugin_names_this_clouds_other_images() -> None:
    """The hint names the images of the pool's cloud whose device plugin the operator runs: EKS's AL2023 for a
    Bottlerocket pool, Yandex's driverless ``runc`` for a preinstalled-driver pool (it named AL2023 there too)."""
    eks = {
        "cloud": "eks",
        "cluster": {"name": "c", "region": "us-east-1"},
        "gpuPools": [
            {
                "name": "p",
                "machineType": "g5.xlarge",
                "maxNodes": 2,
                "image": "BOTTLEROCKET_x86_64_NVIDIA",
                "sharing": {"mode": "time-slicing", "replicas": 2},
            }
        ],
    }
    ((_, eks_message),) = _sharing_problems(eks)
    assert eks_message.endswith(
        "ships its own device plugin; use image 'AL2023_x86_64_NVIDIA' or mode 'none'"
    )
    yandex = {
        "cloud": "yandex",
        "cluster": {"name": "c", "kubeconfig": "apiVersion: v1"},
        "gpuPools": [
            {
                "name": "t4",
                "machineType": "standard-v3-t4",
                "cpusPerNode": 15,
                "memoryGibPerNode": 60,
                "maxNodes": 2,
                "sharing": {"mode": "isolated"},
            }
        ],
        "gpuOperator": {"driver": {"owner": "auto", "hostVersion": "550.144.03"}},
        "kueue": {"enabled": False},
    }
    ((_, yandex_message),) = _sharing_problems(yandex)
    assert "AL2023" not in yandex_message
    assert yandex_message.endswith("which nothing turns off; use image 'runc' or another mode"), (
        yandex_message
    )
