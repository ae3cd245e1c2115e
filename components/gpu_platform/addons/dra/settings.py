"""Dynamic Resource Allocation: the NVIDIA DRA driver for the pools with ``allocation: dra``.

The stack file's ``dra`` section and the ``DraDriver`` component share ``DraSettings``. No
``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

from collections.abc import Mapping, Sequence
from typing import Any, NotRequired

from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform.args.common import CloudValue, DriverArgs
from gpu_platform.args.mirror import MirrorArgs
from gpu_platform.args.pool import GpuPoolArgs
from gpu_platform.args.validate import ARGS_CONFIG

DEFAULT_CLAIM_NAMESPACES = ("default",)
"""Namespaces that get the library's ResourceClaimTemplates when none are named."""


@with_config(ARGS_CONFIG)
class DraSettings(TypedDict):
    """The NVIDIA DRA driver's settings, shared by the stack file (``dra``) and ``DraDriverArgs``."""

    version: NotRequired[str]
    """Chart version of ``dra-driver-nvidia-gpu``; default ``versions.DRA_DRIVER.version`` (0.4.1)."""
    compute_domains: NotRequired[bool]
    """Also run the ComputeDomain controller and plugin (Multi-Node NVLink, GB200 NVL72 class systems; needs
    driver >= 570.158.01 and GPU Feature Discovery). Default false: the chart's default is on, but it only
    serves MNNVL hardware (dra-driver-nvidia-gpu v0.4.1 docs/prerequisites.md)."""
    claim_namespaces: NotRequired[Sequence[str]]
    """Namespaces (must exist) that get the library's ResourceClaimTemplates (``gpu``, ``gpu-<n>``,
    ``mig-<profile>``); default ``DEFAULT_CLAIM_NAMESPACES``."""
    values: NotRequired[Mapping[str, Any]]
    """Escape hatch: chart values merged under the library's; the library's typed values win."""


class DraDriverArgs(DraSettings):
    """The NVIDIA DRA driver, its DeviceClasses and ResourceClaimTemplates (``DraDriver``)."""

    cloud: CloudValue
    """``gke``, ``eks``, ``aks`` or ``existing``."""
    pools: Sequence[GpuPoolArgs]
    """The cluster's GPU pools, exactly as given to the node pools and the GPU Operator; the driver serves
    those with ``allocation: dra``."""
    kubernetes_version: str
    """The cluster's Kubernetes version (``"1.34"``, ``"1.34.2"``); below 1.34.2 DRA is refused."""
    driver: NotRequired[DriverArgs]
    """Who installs the NVIDIA driver, as given to the node pools and the GPU Operator (it decides the DRA
    driver's ``nvidiaDriverRoot``)."""
    operator_version: NotRequired[str]
    """GPU Operator chart version (default ``versions.GPU_OPERATOR``), for the driver it installs."""
    cuda_version: NotRequired[str]
    """CUDA ``major.minor`` of the images, for pools without their own ``cuda_version``."""
    namespace: NotRequired[str]
    """Namespace created for the driver; default ``versions.DRA_DRIVER.namespace``."""
    mirror: NotRequired[MirrorArgs]
    """Pull the chart and its image from a mirror; default: upstream."""
