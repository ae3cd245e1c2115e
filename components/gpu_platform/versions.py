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
