"""The cloud side of the managed Prometheus backends whose workspace, credentials and rules live outside the
cluster: ``amazon-managed-prometheus`` (EKS) and ``azure-managed-prometheus`` (AKS). GKE's managed backend is
in-cluster objects only (``plan.py``). Each installer is imported when its backend is chosen, so a stack on
another cloud never loads that cloud's SDK."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gpu_platform.addons.observability.plan import ObservabilityPlan
    from gpu_platform.component import PlannedComponent

Installer = Callable[["PlannedComponent[Any]", str, "ObservabilityPlan"], dict[str, Any]]
"""``install(component, name, plan)``: creates the cloud side as children of ``GpuObservability``; returns
``values`` (laid over kube-prometheus-stack's), ``depends_on`` and ``workspace``."""


def _amazon() -> Installer:
    from gpu_platform.addons.observability import amazon_managed_prometheus

    return amazon_managed_prometheus.install


def _azure() -> Installer:
    from gpu_platform.addons.observability import azure_managed_prometheus

    return azure_managed_prometheus.install


CLOUD_SIDE: dict[str, Callable[[], Installer]] = {
    "amazon-managed-prometheus": _amazon,
    "azure-managed-prometheus": _azure,
}
"""Backend name (a cloud profile's ``managed_prometheus``) -> its installer's loader."""


def has_cloud_side(backend: str) -> bool:
    """The backend needs resources outside the cluster, which the stack creates with the cloud's SDK."""
    return backend in CLOUD_SIDE
