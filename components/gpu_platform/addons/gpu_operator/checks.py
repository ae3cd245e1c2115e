"""The GPU Operator's settings with their defaults, and every check of them, written once for the stack
file's ``gpuOperator`` and ``GpuOperatorArgs``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.args.operators import GpuOperatorArgs
from gpu_platform.args.validate import check_arguments
from gpu_platform.catalog.drivers import GPU_OPERATOR_DEFAULT_DRIVER
from gpu_platform.driver import DriverPlan
from gpu_platform.errors import Problems
from gpu_platform.mirror import Mirror
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cluster_pools import resolve_cluster_pools
from gpu_platform.resolve.driver import DriverLocations, resolve_driver
from gpu_platform.resolve.mirror import resolve_mirror
from gpu_platform.resolve.pools import check_cuda_default
from gpu_platform.versions import GPU_OPERATOR

CHART_VERSION = re.compile(r"^v\d+\.\d+\.\d+$")


@dataclass(frozen=True)
class GpuOperatorSpec:
    """The operator's settings with every default applied: the only place those defaults are written."""

    enabled: bool = True
    version: str = GPU_OPERATOR.version
    driver: Mapping[str, Any] = field(default_factory=dict)
    """``DriverArgs`` as given: who installs the driver and which version."""
    dcgm_exporter: bool = True
    service_monitor: bool = False
    values: Mapping[str, Any] = field(default_factory=dict)
    """The user's escape-hatch chart values."""

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> GpuOperatorSpec:
        """From the stack file's ``gpu_operator`` section or the component's checked arguments."""
        dcgm = settings.get("dcgm_exporter", {})
        return cls(
            enabled=settings.get("enabled", cls.enabled),
            version=settings.get("version", cls.version),
            driver=dict(settings.get("driver", {})),
            dcgm_exporter=dcgm.get("enabled", cls.dcgm_exporter),
            service_monitor=dcgm.get("service_monitor", cls.service_monitor),
            values=dict(settings.get("values", {})),
        )

    @property
    def installer_version(self) -> str | None:
        """The version Google's COS installer is pinned to (GKE COS nodes only)."""
        return self.driver.get("installer_version")


@dataclass(frozen=True)
class ResolvedGpuOperator:
    """What the GPU Operator plan is made from: checked settings, resolved pools and the one driver plan."""

    cloud: str
    pools: tuple[GpuPool, ...]
    driver: DriverPlan
    settings: GpuOperatorSpec
    namespace: str
    mirror: Mirror | None = None
    """Where the chart and its images come from instead of upstream."""


def check_operator_settings(settings: Mapping[str, Any], p: Problems) -> None:
    """The operator's own settings (shared by the stack file's ``gpuOperator`` and ``GpuOperatorArgs``)."""
    spec = GpuOperatorSpec.from_settings(settings)
    version = spec.version
    if not CHART_VERSION.match(version):
        p.add(("version",), f"{version!r} is not a chart version like {GPU_OPERATOR.version}")
    elif version not in GPU_OPERATOR_DEFAULT_DRIVER and not spec.driver.get("version"):
        known = ", ".join(GPU_OPERATOR_DEFAULT_DRIVER)
        p.add(
            ("version",),
            f"the default driver of GPU Operator {version} is not in the catalog; set driver.version (known: {known})",
        )
    if spec.service_monitor and not spec.dcgm_exporter:
        p.add(
            ("dcgm_exporter", "service_monitor"),
            "needs {{dcgm_exporter.enabled}} (the ServiceMonitor scrapes it)",
        )


def resolve_gpu_operator(args: GpuOperatorArgs) -> ResolvedGpuOperator:
    """``GpuOperator``'s arguments checked and resolved like the stack file; ``ArgumentsError`` lists every
    problem with its argument path."""
    p = Problems()
    checked = check_arguments(GpuOperatorArgs, args, p)
    if checked is None:
        p.raise_for_arguments()
    assert checked is not None
    check_operator_settings(checked, p)
    settings = GpuOperatorSpec.from_settings(checked)
    check_cuda_default(checked.get("cuda_version"), p.at("cuda_version"))
    if not checked["pools"]:
        p.add(("pools",), "at least one GPU pool is required")
    cloud = checked["cloud"]
    resolved = resolve_cluster_pools(
        cloud, checked["pools"], checked.get("cuda_version"), lambda i: p.at("pools", i)
    )
    driver = None
    if not p and len(resolved.pools) == len(checked["pools"]):
        where = DriverLocations(
            p.at("driver"), lambda i: p.at("pools", i), p.at("pools"), p.at("cuda_version")
        )
        driver = resolve_driver(cloud, resolved.pools, settings.driver, settings.version, where)
    mirror = resolve_mirror(checked.get("mirror"), p.at("mirror"))
    p.raise_for_arguments()
    assert driver is not None
    namespace = checked.get("namespace", GPU_OPERATOR.namespace)
    return ResolvedGpuOperator(cloud, tuple(resolved.pools), driver, settings, namespace, mirror)
