"""Who owns the NVIDIA driver, toolkit and device plugin: decided once, applied on both sides.

The node pool (GKE ``gpu_driver_installation_config``, EKS AMI type, AKS ``gpu_profile.driver``)
and the GPU Operator values both read the same ``DriverPlan``, so they can never disagree and a
driver is never installed twice (GPU_PLATFORM_FACTS.md section 2.1, pitfall 3).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_platform.catalog.drivers import CLOUD_IMAGE_DRIVER, GPU_OPERATOR_DEFAULT_DRIVER, DriverVersion

GKE_IMAGES = ("COS_CONTAINERD", "UBUNTU_CONTAINERD")
EKS_IMAGES = ("AL2023_x86_64_NVIDIA", "BOTTLEROCKET_x86_64_NVIDIA")
AKS_IMAGES = ("Ubuntu", "Ubuntu2204", "AzureLinux")
DEFAULT_IMAGE = {"gke": "COS_CONTAINERD", "eks": "AL2023_x86_64_NVIDIA", "aks": "Ubuntu"}
IMAGES = {"gke": GKE_IMAGES, "eks": EKS_IMAGES, "aks": AKS_IMAGES}

GKE_DRIVER_DIR = "/home/kubernetes/bin/nvidia"


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
    gke_driver_version: str | None = None
    """GKE ``gpu_driver_installation_config.gpu_driver_version``."""
    gke_google_installer: bool = False
    """GKE: the library deploys Google's driver-installer DaemonSet (NVIDIA's documented path)."""
    aks_gpu_driver: str | None = None
    """AKS ``gpu_profile.driver``: ``None`` (operator installs) or ``Install`` (AKS installs)."""


class DriverPlanError(ValueError):
    """The requested ownership is not supported on this cloud/image; message says what is."""


def operator_driver_version(operator_version: str, override: str | None) -> DriverVersion:
    if override:
        return DriverVersion.parse(override)
    if operator_version not in GPU_OPERATOR_DEFAULT_DRIVER:
        raise DriverPlanError(
            f"the default driver of GPU Operator {operator_version} is not in the catalog; set driver.version "
            f"(known releases: {', '.join(GPU_OPERATOR_DEFAULT_DRIVER)})"
        )
    return DriverVersion.parse(GPU_OPERATOR_DEFAULT_DRIVER[operator_version])


def _gke(image: str | None, owner: str, op: DriverVersion, host: DriverVersion | None) -> DriverPlan:
    image = image or DEFAULT_IMAGE["gke"]
    if owner == "operator" or (owner == "auto" and image == "UBUNTU_CONTAINERD"):
        # NVIDIA's GKE path B: the operator's driver manager, supported on Ubuntu images only.
        if image != "UBUNTU_CONTAINERD":
            raise DriverPlanError(
                "the GPU Operator can install the driver on GKE only on UBUNTU_CONTAINERD images; "
                f"'{image}' needs owner 'cloud' (Google's installer)"
            )
        return DriverPlan("operator", "operator", "operator", op, gke_driver_version="INSTALLATION_DISABLED")
    if image == "UBUNTU_CONTAINERD":
        # Google's Ubuntu installer manifest depends on GPU model and node version; only the COS
        # installer is deployed by the library.
        raise DriverPlanError(
            "owner 'cloud' on GKE uses Google's COS driver installer; UBUNTU_CONTAINERD nodes need "
            "owner 'operator' (or 'auto'): NVIDIA's driver manager path for Ubuntu"
        )
    # NVIDIA's GKE path A: GKE's own install disabled, Google's COS installer DaemonSet puts the
    # driver under /home/kubernetes/bin/nvidia; the operator only adds toolkit/plugin/DCGM.
    floor = host or DriverVersion.parse(CLOUD_IMAGE_DRIVER["gke"])
    return DriverPlan(
        "cloud",
        "operator",
        "operator",
        floor,
        gke_driver_version="INSTALLATION_DISABLED",
        gke_google_installer=True,
    )


def _eks(image: str | None, owner: str, op: DriverVersion, host: DriverVersion | None) -> DriverPlan:
    image = image or DEFAULT_IMAGE["eks"]
    if owner == "operator":
        raise DriverPlanError(
            f"EKS {image} nodes ship the NVIDIA driver and container toolkit; the operator cannot "
            "replace a host driver. Use owner 'cloud' (or 'auto')"
        )
    plugin = "cloud" if image.startswith("BOTTLEROCKET") else "operator"
    return DriverPlan("cloud", "cloud", plugin, host or DriverVersion.parse(CLOUD_IMAGE_DRIVER["eks"]))


def _aks(image: str | None, owner: str, op: DriverVersion, host: DriverVersion | None) -> DriverPlan:
    if owner == "cloud":
        floor = host or DriverVersion.parse(CLOUD_IMAGE_DRIVER["aks"])
        return DriverPlan("cloud", "cloud", "operator", floor, aks_gpu_driver="Install")
    return DriverPlan("operator", "operator", "operator", op, aks_gpu_driver="None")


def _existing(image: str | None, owner: str, op: DriverVersion, host: DriverVersion | None) -> DriverPlan:
    # Nothing is known about the nodes' images: the owner must be declared.
    if owner == "auto":
        raise DriverPlanError(
            "an existing cluster must declare who owns the driver: 'operator' or 'cloud' (preinstalled)"
        )
    if owner == "cloud":
        if host is None:
            raise DriverPlanError("owner 'cloud' on an existing cluster needs {{driver.host_version}}")
        return DriverPlan("cloud", "cloud", "operator", host)
    return DriverPlan("operator", "operator", "operator", op)


_CLOUDS = {"gke": _gke, "eks": _eks, "aks": _aks, "existing": _existing}


def plan_driver(
    cloud: str,
    image: str | None,
    owner: str,
    operator_version: str,
    driver_version: str | None = None,
    host_version: str | None = None,
) -> DriverPlan:
    """The one decision table for driver ownership per cloud and node image."""
    op_version = operator_driver_version(operator_version, driver_version)
    host = DriverVersion.parse(host_version) if host_version else None
    return _CLOUDS[cloud](image, owner, op_version, host)
