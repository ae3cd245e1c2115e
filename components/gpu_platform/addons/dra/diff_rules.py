"""What ``gpu-platform diff`` flags in the DRA driver this add-on installs (``gpu_platform.diff_rule``): without
its kubelet plugin no node publishes the driver's ResourceSlices, so no ResourceClaim for its DeviceClasses is
allocated again (Kubernetes "Dynamic Resource Allocation": a driver's plugin publishes the devices a claim is
allocated from)."""

from __future__ import annotations

from gpu_platform.diff_rule import DiffRule, chart, gone
from gpu_platform.releases import DRA_DRIVER

DIFF_RULES: tuple[DiffRule, ...] = (
    gone(
        chart(DRA_DRIVER.chart_name),
        "strands queued work",
        "the NVIDIA DRA driver's kubelet plugin leaves the nodes: pods claiming GPUs or ComputeDomains through "
        "its DeviceClasses are no longer scheduled",
    ),
)
