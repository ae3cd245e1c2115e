"""Config schema for the GPU Operator."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from gpu_platform.config.model import ConfigModel
from gpu_platform.versions import GPU_OPERATOR


class DriverConfig(ConfigModel):
    owner: Literal["auto", "operator", "cloud"] = "auto"
    """Who installs the NVIDIA driver. ``auto`` follows each cloud's documented path:
    GKE: Google's COS installer on COS, the operator on UBUNTU_CONTAINERD; EKS: the NVIDIA AMI;
    AKS: the operator (AKS driver install skipped)."""
    version: str | None = None
    """Operator-managed driver version (default: the chart's default driver)."""
    host_version: str | None = None
    """Cloud-managed driver version on the node image, for the CUDA check (default: catalog floor)."""


class DcgmExporterConfig(ConfigModel):
    enabled: bool = True
    service_monitor: bool = False
    """Create a ServiceMonitor; needs the Prometheus Operator CRDs in the cluster."""


class GpuOperatorConfig(ConfigModel):
    enabled: bool = True
    version: str = GPU_OPERATOR.version
    driver: DriverConfig = Field(default_factory=DriverConfig)
    dcgm_exporter: DcgmExporterConfig = Field(default_factory=DcgmExporterConfig)
    values: dict[str, Any] = Field(default_factory=dict)
    """Escape hatch merged under the library's values (the library's keys win)."""
