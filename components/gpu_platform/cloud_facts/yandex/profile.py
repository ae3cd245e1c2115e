"""Yandex Managed Service for Kubernetes: GPU platforms, the two GPU environments of a node group and who owns
the driver on each, and what a declared pool must say.

Node groups are made elsewhere (Terraform's ``yandex_kubernetes_node_group``, the console or ``yc``) and
declared here as pools of an existing cluster: the library depends on no Yandex SDK (the PyPI
``pulumi-yandex`` is 0.13.0 from 2022, docs/yandex.md). A pool's ``image`` is the node group's
``gpu_settings.gpu_environment``:

- ``runc_drivers_cuda`` (Yandex's default): the node image ships the NVIDIA driver, CUDA and the container
  runtime, and GPU pods get ``nvidia.com/gpu`` with nothing installed (yandex-cloud/docs
  ``_tutorials/k8s/running-pod-gpu.md``), so Yandex also runs the device plugin: owner ``cloud``.
- ``runc``: no driver; the GPU Operator installs driver and toolkit (``_tutorials/k8s/driverless-gpu.md``,
  which asks for driver 550.144.03 or newer on Kubernetes 1.30+): owner ``operator``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from gpu_platform.catalog.drivers import DriverVersion
from gpu_platform.catalog.machines import MachineType
from gpu_platform.cloud_facts.profile import CloudProfile, NodeImage
from gpu_platform.cloud_facts.yandex import machines as table
from gpu_platform.driver import DriverPlan, DriverPlanError
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool

DRIVERS_PREINSTALLED = "runc_drivers_cuda"
DRIVERLESS = "runc"
DRIVERLESS_MIN_DRIVER = "550.144.03"
"""Yandex's driverless tutorial: older drivers fail to compile on node groups of Kubernetes 1.30+."""
ALLOCATABLE_KEYS = frozenset({"cpus_per_node", "memory_gib_per_node"})


class YandexProfile(CloudProfile):
    name = "yandex"
    display = "Yandex Managed Kubernetes"
    creates_nodes = False
    machines: ClassVar[Mapping[str, MachineType]] = table.MACHINES
    images: ClassVar[Mapping[str, NodeImage]] = {
        DRIVERS_PREINSTALLED: NodeImage(DRIVERS_PREINSTALLED, "ubuntu", device_plugin="cloud"),
        DRIVERLESS: NodeImage(DRIVERLESS, "ubuntu"),
    }
    default_image = DRIVERS_PREINSTALLED
    machine_shape = table.MACHINE_NAME
    declared_node_keys = ALLOCATABLE_KEYS
    mig_manager_reboot = True

    @classmethod
    def machine(cls, name: str, pool: Mapping[str, Any] | None = None) -> MachineType | None:
        pool = pool or {}
        return table.configuration(name, pool.get("gpus_per_node"), pool.get("cpus_per_node"))

    @classmethod
    def plan_driver(
        cls, image: str | None, owner: str, operator: DriverVersion, host: DriverVersion | None
    ) -> DriverPlan:
        environment = image or DRIVERS_PREINSTALLED
        if environment == DRIVERLESS:
            if owner == "cloud":
                raise DriverPlanError(
                    f"gpu_environment '{DRIVERLESS}' nodes have no driver; use owner 'operator' (or 'auto'), or "
                    f"image '{DRIVERS_PREINSTALLED}'"
                )
            if operator < DriverVersion.parse(DRIVERLESS_MIN_DRIVER):
                raise DriverPlanError(
                    f"driver {operator} is older than {DRIVERLESS_MIN_DRIVER}, the oldest Yandex supports on "
                    f"'{DRIVERLESS}' nodes; set {{{{driver.version}}}} to {DRIVERLESS_MIN_DRIVER} or newer",
                    key="version",
                )
            return DriverPlan("operator", "operator", "operator", operator)
        if owner == "operator":
            raise DriverPlanError(
                f"'{DRIVERS_PREINSTALLED}' nodes ship the driver and Yandex's device plugin; the operator cannot "
                f"replace them. Use owner 'cloud' (or 'auto'), or image '{DRIVERLESS}' (driverless node group)"
            )
        if host is None:
            raise DriverPlanError(
                f"owner 'cloud' on '{DRIVERS_PREINSTALLED}' nodes needs {{{{driver.host_version}}}} (run "
                "nvidia-smi on a node): Yandex does not publish the preinstalled driver"
            )
        return DriverPlan("cloud", "cloud", "cloud", host)

    @classmethod
    def pool_problems(cls, pool: GpuPool, p: Problems) -> None:
        if pool.image is not None and pool.image not in cls.images:
            p.add(
                ("image",),
                f"'{pool.image}' is not a Yandex gpu_environment; valid: {', '.join(cls.images)}",
            )
        machine = pool.machine
        if machine is None:
            return
        for key, declared, most, unit in (
            ("cpus_per_node", pool.vcpus, machine.vcpus, "vCPUs"),
            ("memory_gib_per_node", pool.memory_gib, machine.memory_gib, "GiB"),
        ):
            if declared is not None and declared > most:
                p.add(
                    (key,),
                    f"{declared} is more than {machine.name} with {machine.gpus} GPU(s) has ({most} {unit}); "
                    "declare the node's allocatable",
                )

    @classmethod
    def dra_pool_problems(cls, pool: GpuPool, p: Problems) -> None:
        if (pool.image or DRIVERS_PREINSTALLED) == DRIVERS_PREINSTALLED:
            p.add(
                ("image",),
                f"'{DRIVERS_PREINSTALLED}' nodes run Yandex's device plugin, and a device plugin never runs "
                f"next to DRA: use image '{DRIVERLESS}' for DRA pools",
            )


PROFILE = YandexProfile()
