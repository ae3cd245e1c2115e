"""Who owns the NVIDIA driver, toolkit and device plugin: decided once, applied on both sides.

The node pool (GKE ``gpu_driver_installation_config``, EKS AMI type, AKS ``gpu_profile.driver``)
and the GPU Operator values both read the same ``DriverPlan``, so they can never disagree and a
driver is never installed twice (NVIDIA/cloud-native-docs ``gpu-operator/google-gke.rst``,
``amazon-eks.rst``, ``microsoft-aks.rst``; NVIDIA/gpu-operator#525, #126). Each cloud's decision
table is its profile's ``plan_driver`` (``gpu_platform/clouds/<cloud>/profile.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from gpu_platform.catalog.drivers import GPU_OPERATOR_DEFAULT_DRIVER, DriverVersion
from gpu_platform.packaged_data import packaged_yaml
from gpu_platform.versions import UpstreamFile


@dataclass(frozen=True)
class DriverPlan:
    driver: str
    """``operator`` (driver containers) or ``cloud`` (on the image / installed by the cloud)."""
    toolkit: str
    """Who configures the NVIDIA Container Toolkit: ``operator`` or ``cloud``."""
    device_plugin: str
    """``operator`` or ``cloud`` (Bottlerocket ships its own device plugin)."""
    driver_version: DriverVersion
    """The driver that will run on the nodes (for the CUDA check)."""
    pool_driver: str | None = None
    """The node pool's own driver setting, where the cloud has one (GKE
    ``gpu_driver_installation_config.gpu_driver_version``, AKS ``gpu_profile.driver``)."""
    cloud_installer: bool = False
    """The library deploys the cloud's driver-installer DaemonSets (GKE: Google's COS installer, NVIDIA's
    documented path; on A4X nodes Google's A4X installer), the one each pool's nodes need (the profile's
    ``driver_installer``)."""


INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"


def installer_manifest(file: UpstreamFile) -> dict[str, Any]:
    """A packaged installer DaemonSet as upstream ships it (a fresh copy: callers rename and pin it)."""
    obj: dict[str, Any] = packaged_yaml(file.file)
    return obj


@cache
def installer_machine_types(file: UpstreamFile) -> frozenset[str]:
    """The machine types an installer selects by ``node.kubernetes.io/instance-type`` in its own node affinity;
    empty for one that selects every GPU node. Read from the manifest, so the machines Google wrote into it are
    the ones the library gives it."""
    spec = installer_manifest(file)["spec"]["template"]["spec"]
    terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    return frozenset(
        value
        for term in terms
        for expr in term["matchExpressions"]
        if expr["key"] == INSTANCE_TYPE_LABEL and expr["operator"] == "In"
        for value in expr["values"]
    )


class DriverPlanError(ValueError):
    """The requested ownership is not supported on this cloud/image; message says what is. ``key`` is the driver
    setting to name (``owner``, or ``version`` for a driver too old for the platform)."""

    def __init__(self, message: str, key: str = "owner") -> None:
        super().__init__(message)
        self.key = key


def operator_driver_version(operator_version: str, override: str | None) -> DriverVersion:
    if override:
        return DriverVersion.parse(override)
    if operator_version not in GPU_OPERATOR_DEFAULT_DRIVER:
        raise DriverPlanError(
            f"the default driver of GPU Operator {operator_version} is not in the catalog; set driver.version "
            f"(known releases: {', '.join(GPU_OPERATOR_DEFAULT_DRIVER)})"
        )
    return DriverVersion.parse(GPU_OPERATOR_DEFAULT_DRIVER[operator_version])
