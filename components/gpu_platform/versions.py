"""Every chart, repository and image version the library installs: the one place to bump them.

Each constant is cited by the component that uses it and asserted by a test, so prose and
code cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChartPin:
    """A Helm chart at a pinned version from a pinned repository."""

    chart: str
    version: str
    repo: str | None
    """Classic Helm repository URL; ``None`` when ``chart`` is a full ``oci://`` reference."""
    namespace: str


GPU_OPERATOR = ChartPin(
    chart="gpu-operator",
    version="v26.7.0",
    repo="https://helm.ngc.nvidia.com/nvidia",
    namespace="gpu-operator",
)
KUEUE = ChartPin(
    chart="oci://registry.k8s.io/kueue/charts/kueue",
    version="0.19.2",
    repo=None,
    namespace="kueue-system",
)
CERT_MANAGER = ChartPin(
    chart="cert-manager",
    version="v1.21.1",
    repo="https://charts.jetstack.io",
    namespace="cert-manager",
)
KSERVE_CRD = ChartPin(
    chart="oci://ghcr.io/kserve/charts/kserve-crd",
    version="v0.20.0",
    repo=None,
    namespace="kserve",
)
KSERVE_RESOURCES = ChartPin(
    chart="oci://ghcr.io/kserve/charts/kserve-resources",
    version="v0.20.0",
    repo=None,
    namespace="kserve",
)

ALL_CHARTS: tuple[ChartPin, ...] = (GPU_OPERATOR, KUEUE, CERT_MANAGER, KSERVE_CRD, KSERVE_RESOURCES)

# Kueue's own image at the chart's release: the chart's values.yaml at the tag still points at
# the staging image (see shared/upstream/SOURCES.md), so the library pins the release image.
KUEUE_IMAGE_REPOSITORY = "registry.k8s.io/kueue/kueue"
KUEUE_IMAGE_TAG = "v0.19.2"

# Google's COS driver installer (NVIDIA's GKE path A): GoogleCloudPlatform/container-engine-accelerators
# ``nvidia-driver-installer/cos/daemonset-preloaded.yaml`` (apps/v1 revision). The installer image is
# preloaded on COS GPU nodes (pull policy Never); partition-gpus applies GKE's gpu_partition_size.
GKE_COS_DRIVER_INSTALLER_IMAGE = "cos-nvidia-installer:fixed"
GKE_PARTITION_GPU_IMAGE = "gcr.io/gke-release/nvidia-partition-gpu@sha256:c54fd003948fac687c2a93a55ea6e4d47ffbd641278a9191e75e822fe72471c2"
GKE_DRIVER_INSTALLER_PAUSE_IMAGE = "registry.k8s.io/pause:3.10"

# KServe's ClusterServingRuntimes (kserve-huggingfaceserver, ...) ship in their own chart since v0.17;
# operators.kserve installs it after kserve-resources, whose webhooks validate them.
KSERVE_RUNTIME_CONFIGS = ChartPin(
    chart="oci://ghcr.io/kserve/charts/kserve-runtime-configs",
    version="v0.20.0",
    repo=None,
    namespace="kserve",
)
ALL_CHARTS = (*ALL_CHARTS, KSERVE_RUNTIME_CONFIGS)
