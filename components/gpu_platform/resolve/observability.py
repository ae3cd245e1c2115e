"""The ``observability`` section resolved, and every check on it written once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.addons import GPU_OPERATOR, KUBE_PROMETHEUS_STACK
from gpu_platform.args.observability import (
    DEFAULT_BACKEND,
    DEFAULT_NAMESPACE,
    GpuObservabilityArgs,
    MetricsBackend,
)
from gpu_platform.args.validate import check_arguments
from gpu_platform.clouds import profile_of
from gpu_platform.errors import Problems


@dataclass(frozen=True)
class ObservabilitySpec:
    """The observability settings with every default applied."""

    cloud: str
    backend: str = DEFAULT_BACKEND
    grafana: bool = True
    values: Mapping[str, Any] = field(default_factory=dict)
    namespace: str = DEFAULT_NAMESPACE
    gpu_operator_namespace: str = GPU_OPERATOR.namespace
    node_auto_repair: bool = True
    """The stack turns on the cloud's node auto-repair where it is a setting (EKS)."""
    health_checks: bool = True
    """node-problem-detector's GPU Xid monitor and the tainting remedy on the GPU nodes (``plans.gpu_health``)."""

    @property
    def installs_stack(self) -> bool:
        """The library installs kube-prometheus-stack (and the Prometheus Operator CRDs)."""
        return self.backend == MetricsBackend.KUBE_PROMETHEUS_STACK

    @property
    def prometheus_operator(self) -> bool:
        """ServiceMonitors and ``PrometheusRule`` are what scrapes and alerts (installed or already there)."""
        return self.backend != MetricsBackend.GKE_MANAGED_PROMETHEUS


def check_observability(cloud: str, section: Mapping[str, Any], p: Problems) -> None:
    """Checks across the section's keys (types and choices are the schema's)."""
    backend = section.get("backend", DEFAULT_BACKEND)
    managed = profile_of(cloud).managed_prometheus
    if backend == MetricsBackend.GKE_MANAGED_PROMETHEUS and backend != managed:
        p.add(
            ("backend",),
            f"gke-managed-prometheus is GKE's managed collection and this cloud is {cloud}; valid choices: "
            "kube-prometheus-stack, prometheus-operator (Amazon and Azure managed Prometheus: docs/observability.md)",
        )
    if backend != MetricsBackend.KUBE_PROMETHEUS_STACK:
        for key in ("grafana", "values"):
            if key in section:
                p.add((key,), f"applies to the kube-prometheus-stack backend only, and backend is {backend}")


def observability_spec(
    cloud: str, section: Mapping[str, Any], namespace: str | None = None
) -> ObservabilitySpec:
    return ObservabilitySpec(
        cloud=cloud,
        backend=str(section.get("backend", DEFAULT_BACKEND)),
        grafana=bool(section.get("grafana", True)),
        values=dict(section.get("values", {})),
        namespace=namespace or KUBE_PROMETHEUS_STACK.namespace,
        gpu_operator_namespace=str(section.get("gpu_operator_namespace", GPU_OPERATOR.namespace)),
        node_auto_repair=bool(section.get("node_auto_repair", True)),
        health_checks=bool(section.get("health_checks", not profile_of(cloud).privileged_pods_need_scc)),
    )


def resolve_observability(cloud: str, section: Mapping[str, Any], p: Problems) -> ObservabilitySpec | None:
    """The stack file's ``observability`` (``p`` is at it); ``None`` when switched off."""
    if not section.get("enabled", True):
        return None
    check_observability(cloud, section, p)
    return observability_spec(cloud, section)


def resolve_observability_args(args: GpuObservabilityArgs) -> ObservabilitySpec:
    """``GpuObservability``'s arguments checked like the stack file's section; ``ArgumentsError`` lists
    every problem with its argument path."""
    p = Problems()
    checked = check_arguments(GpuObservabilityArgs, args, p)
    if checked is None:
        p.raise_for_arguments()
    assert checked is not None
    check_observability(str(checked["cloud"]), checked, p)
    p.raise_for_arguments()
    return observability_spec(str(checked["cloud"]), checked, checked.get("namespace"))
