"""Who owns the NVIDIA driver, toolkit and device plugin on a cloud's node images, and what the GPU Operator and
the DRA driver need adjusted for it.

A part of ``CloudProfile`` (``gpu_platform.cloud_facts.profile``); a cloud's profile overrides what differs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from gpu_platform.cloud_facts.parts.base import ProfileBase
from gpu_platform.driver import DriverPlan, DriverPlanError
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool

if TYPE_CHECKING:
    from gpu_platform.catalog.drivers import DriverVersion
    from gpu_platform.versions import UpstreamFile


@dataclass(frozen=True)
class NodeImage:
    """A GPU node image a cloud offers, and what it brings with it."""

    name: str
    """The cloud's own spelling (GKE ``image_type``, EKS ``ami_type``, AKS ``os_sku``)."""
    os: str
    """``cos``, ``ubuntu``, ``al2023``, ``bottlerocket`` or ``azurelinux``."""
    device_plugin: str = "operator"
    """Who runs the NVIDIA device plugin on it: ``operator`` or ``cloud`` (Bottlerocket ships its own)."""
    root_device: str | None = None
    """Block device of the root volume, where the cloud's launch template must name it (EKS)."""


@dataclass(frozen=True)
class OperatorObject:
    """A Kubernetes object the GPU Operator's release needs first on a cloud (``gpu_operator_objects``)."""

    suffix: str
    """Its resource name after the component's (``<component>-<suffix>``)."""
    kind: str
    """``ResourceQuota`` or ``DaemonSet``."""
    metadata: Mapping[str, Any]
    spec: Mapping[str, Any]
    in_operator_namespace: bool = False
    """Created in the operator's namespace (its ``metadata`` has no namespace); else where ``metadata`` says."""


class DriverFacts(ProfileBase):
    """Node images, driver ownership and the GPU Operator's and DRA driver's adjustments."""

    images: ClassVar[Mapping[str, NodeImage]] = {}
    default_image: ClassVar[str | None] = None
    host_driver_floor: ClassVar[str | None] = None
    driver_installer_nodes: ClassVar[str | None] = None
    """The nodes the cloud's own driver installer serves (``driver.installer_version``), for messages; ``None``:
    the cloud has no installer of its own."""
    """Oldest driver the cloud's GPU images ship (the CUDA check's floor for cloud-owned drivers)."""

    @classmethod
    def image(cls, pool: GpuPool) -> NodeImage | None:
        name = pool.image or cls.default_image
        return cls.images.get(name) if name else None

    @classmethod
    def driver(
        cls,
        image: str | None,
        owner: str,
        operator_version: str,
        driver_version: str | None = None,
        host_version: str | None = None,
    ) -> DriverPlan:
        """Who owns the driver, toolkit and device plugin on this cloud's ``image`` (``DriverPlanError`` names
        what is supported when the ownership is not)."""
        from gpu_platform.catalog.drivers import DriverVersion
        from gpu_platform.driver import operator_driver_version

        op_version = operator_driver_version(operator_version, driver_version)
        host = DriverVersion.parse(host_version) if host_version else None
        return cls.plan_driver(image, owner, op_version, host)

    @classmethod
    def image_ships_device_plugin(cls, name: str) -> bool:
        """Nodes of this image run the cloud's own NVIDIA device plugin (also for images outside the table,
        as the policy pack sees programs that are not the library's)."""
        image = cls.images.get(name)
        return image is not None and image.device_plugin == "cloud"

    @classmethod
    def operator_device_plugin_images(cls) -> str:
        """The node images whose device plugin the GPU Operator runs, for a message: ``image 'A' or 'B'``."""
        names = [f"'{name}'" for name, image in cls.images.items() if image.device_plugin == "operator"]
        return f"image {' or '.join(names)}" if names else "an image without its own device plugin"

    @classmethod
    def plan_driver(
        cls, image: str | None, owner: str, operator: DriverVersion, host: DriverVersion | None
    ) -> DriverPlan:
        raise DriverPlanError(f"no driver rules for cloud {cls.name!r}")

    @classmethod
    def driver_installer(cls, pool: GpuPool) -> UpstreamFile | None:
        """The cloud's driver-installer manifest for ``pool``'s nodes, deployed when the driver plan says
        ``cloud_installer``; ``None``: the cloud has none."""
        return None

    @classmethod
    def gpu_operator_objects(
        cls, pools: Sequence[GpuPool], driver: DriverPlan, installer_version: str | None
    ) -> list[OperatorObject]:
        """What the GPU Operator's release needs first on this cloud, beyond its own ConfigMaps (GKE: the quota
        that admits its critical-priority pods, and the cloud's driver installer when the driver plan says
        ``cloud_installer``); ``installer_version``: ``gpuOperator.driver.installerVersion``."""
        return []

    @classmethod
    def driver_root(cls, driver: DriverPlan) -> str:
        """Where the driver's files are on the host (the DRA plugin's ``nvidiaDriverRoot``)."""
        return "/"

    @classmethod
    def gpu_operator_values(cls, values: dict[str, Any], driver: DriverPlan) -> None:
        """Adjust the GPU Operator's values to how the cloud ships the driver and toolkit (in place)."""

    @classmethod
    def dra_values(cls, values: dict[str, Any]) -> None:
        """Adjust the NVIDIA DRA driver's chart values to the cloud (in place)."""

    @classmethod
    def gpu_operator_setting_problems(cls, settings: Mapping[str, Any], p: Problems) -> None:
        """``gpu_operator`` settings that would do nothing on this platform (``p`` is at the section)."""

    @classmethod
    def auto_pool_driver_problem(cls, driver: DriverPlan) -> str | None:
        """Why a pool the cloud's auto-provisioner creates cannot run under the cluster's driver plan (AKS NAP
        with the operator's driver); ``None``: it can. One message for the stack and the component."""
        return None
