"""Observability arguments: where GPU metrics go, and the dashboards, alerts and health checks on them.

One definition for the stack file (``observability``) and ``GpuObservabilityArgs``. No
``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

import enum
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypeAlias

from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform.args.common import Cloud
from gpu_platform.args.validate import ARGS_CONFIG


class MetricsBackend(enum.StrEnum):
    """What scrapes the DCGM exporter, kube-state-metrics and Kueue, and evaluates the rules."""

    KUBE_PROMETHEUS_STACK = "kube-prometheus-stack"
    """Installed by the library (pinned, any cluster): Prometheus Operator, Prometheus, Alertmanager,
    Grafana, kube-state-metrics and node-exporter; the Prometheus Operator CRDs in their own release."""
    PROMETHEUS_OPERATOR = "prometheus-operator"
    """The cluster already runs the Prometheus Operator (and Grafana's dashboard sidecar): the library adds
    only the ServiceMonitors, ``PrometheusRule`` and dashboard ConfigMaps. Also the path to Amazon Managed
    Service for Prometheus and Azure Monitor managed Prometheus (docs/observability.md)."""
    GKE_MANAGED_PROMETHEUS = "gke-managed-prometheus"
    """GKE only: Google Cloud Managed Service for Prometheus (managed collection, on by default on GKE): a
    ``ClusterPodMonitoring`` for the DCGM exporter and ``ClusterRules`` for the GPU hardware alerts."""


MetricsBackendName = Literal["kube-prometheus-stack", "prometheus-operator", "gke-managed-prometheus"]
"""``MetricsBackend``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    MetricsBackendValue: TypeAlias = MetricsBackend | MetricsBackendName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    MetricsBackendValue = MetricsBackend


DEFAULT_BACKEND = MetricsBackend.KUBE_PROMETHEUS_STACK.value
DEFAULT_NAMESPACE = "monitoring"


@with_config(ARGS_CONFIG)
class ObservabilitySettings(TypedDict):
    """Observability settings shared by the stack file (``observability``) and ``GpuObservabilityArgs``."""

    backend: NotRequired[MetricsBackendValue]
    """``kube-prometheus-stack`` (default), ``prometheus-operator`` or ``gke-managed-prometheus`` (GKE)."""
    grafana: NotRequired[bool]
    """kube-prometheus-stack only: install Grafana with the dashboards (default true)."""
    health_checks: NotRequired[bool]
    """GPU health checks on every GPU node (default true; OpenShift: false, see docs/observability.md):
    node-problem-detector reads the kernel log for Xids, and a node with one that needs the GPU reset or the node
    drained gets the ``status-taint.cluster-autoscaler.kubernetes.io/gpu-unhealthy`` NoSchedule taint."""
    values: NotRequired[Mapping[str, Any]]
    """kube-prometheus-stack only: extra chart values (upstream ``values.yaml`` keys); the library's
    selectors, CRD handling and kube-state-metrics label allowlist win."""


@with_config(ARGS_CONFIG)
class ObservabilitySection(ObservabilitySettings):
    """``observability``: GPU metrics, dashboards, alerts and GPU hours per team (docs/observability.md)."""

    enabled: NotRequired[bool]
    """Default true."""
    node_auto_repair: NotRequired[bool]
    """The cloud's node auto-repair for GPU nodes (default true): on EKS the node monitoring agent add-on and
    node repair on every GPU managed node group; GKE node pools always auto-repair and AKS repairs nodes by
    itself (what each covers for GPUs: docs/observability.md)."""


class GpuObservabilityArgs(ObservabilitySettings):
    """GPU metrics path, dashboards and rules (``GpuObservability``)."""

    cloud: Cloud
    """The cluster's cloud: ``gke-managed-prometheus`` needs ``gke``."""
    namespace: NotRequired[str]
    """Namespace of the monitoring stack, rules and dashboards; default ``monitoring``."""
    gpu_operator_namespace: NotRequired[str]
    """Where the GPU Operator runs (its validator and DCGM exporter pods); default ``gpu-operator``."""
