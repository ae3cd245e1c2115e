"""Observability arguments: where GPU metrics go, and the dashboards, alerts and health checks on them.

One definition for the stack file (``observability``) and ``GpuObservabilityArgs``. No
``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

import enum
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypeAlias

from pulumi import Input
from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform.args.common import Cloud
from gpu_platform.args.mirror import MirrorArgs
from gpu_platform.args.validate import ARGS_CONFIG


class MetricsBackend(enum.StrEnum):
    """What scrapes the DCGM exporter, kube-state-metrics and Kueue, and evaluates the rules."""

    KUBE_PROMETHEUS_STACK = "kube-prometheus-stack"
    """Installed by the library (pinned, any cluster): Prometheus Operator, Prometheus, Alertmanager,
    Grafana, kube-state-metrics and node-exporter; the Prometheus Operator CRDs in their own release."""
    PROMETHEUS_OPERATOR = "prometheus-operator"
    """The cluster already runs the Prometheus Operator (and Grafana's dashboard sidecar): the library adds
    only the ServiceMonitors, ``PrometheusRule`` and dashboard ConfigMaps."""
    GKE_MANAGED_PROMETHEUS = "gke-managed-prometheus"
    """GKE only: Google Cloud Managed Service for Prometheus (managed collection, on by default on GKE): a
    ``ClusterPodMonitoring`` for the DCGM exporter and ``ClusterRules`` for the GPU hardware alerts."""
    AMAZON_MANAGED_PROMETHEUS = "amazon-managed-prometheus"
    """EKS only: Amazon Managed Service for Prometheus. A workspace (or ``workspace``, an existing one's ARN),
    kube-prometheus-stack remote-writing to it with SigV4 as an IAM role Prometheus gets through EKS Pod Identity,
    and the GPU rules evaluated by the workspace (a rule group namespace)."""
    AZURE_MANAGED_PROMETHEUS = "azure-managed-prometheus"
    """AKS only: Azure Monitor managed service for Prometheus. An Azure Monitor workspace (or ``workspace``, an
    existing one's resource ID), the data collection endpoint, rule and association, the cluster's metrics
    add-on, an ``azmonitoring.coreos.com`` ServiceMonitor for the DCGM exporter and the GPU rules as Prometheus
    rule groups."""


MetricsBackendName = Literal[
    "kube-prometheus-stack",
    "prometheus-operator",
    "gke-managed-prometheus",
    "amazon-managed-prometheus",
    "azure-managed-prometheus",
]
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
    """``kube-prometheus-stack`` (default), ``prometheus-operator``, or the cloud's managed Prometheus:
    ``gke-managed-prometheus`` (GKE), ``amazon-managed-prometheus`` (EKS), ``azure-managed-prometheus`` (AKS)."""
    workspace: NotRequired[str]
    """``amazon-managed-prometheus``: an existing workspace's ARN (``arn:aws:aps:<region>:<account>:workspace/ws-...``);
    ``azure-managed-prometheus``: an existing Azure Monitor workspace's resource ID
    (``/subscriptions/.../providers/Microsoft.Monitor/accounts/<name>``). Default: the library creates one."""
    grafana: NotRequired[bool]
    """kube-prometheus-stack only: install Grafana with the dashboards (default true)."""
    health_checks: NotRequired[bool]
    """GPU health checks on every GPU node (default true; OpenShift: false, see docs/observability.md):
    node-problem-detector reads the kernel log for Xids, and a node with one that needs the GPU reset or the node
    drained gets the ``status-taint.cluster-autoscaler.kubernetes.io/gpu-unhealthy`` NoSchedule taint."""
    values: NotRequired[Mapping[str, Any]]
    """The backends that install kube-prometheus-stack (``kube-prometheus-stack``, ``amazon-managed-prometheus``)
    only: extra chart values (upstream ``values.yaml`` keys); the library's selectors, CRD handling,
    kube-state-metrics label allowlist and remote write win."""


@with_config(ARGS_CONFIG)
class ObservabilitySection(ObservabilitySettings):
    """``observability``: GPU metrics, dashboards, alerts and GPU hours per team (docs/observability.md)."""

    enabled: NotRequired[bool]
    """Default true."""
    node_auto_repair: NotRequired[bool]
    """The cloud's node auto-repair for GPU nodes (default true): on EKS the node monitoring agent add-on and
    node repair on every GPU managed node group; GKE node pools always auto-repair and AKS repairs nodes by
    itself (what each covers for GPUs: docs/observability.md)."""


@with_config(ARGS_CONFIG)
class ManagedPrometheusCluster(TypedDict):
    """The cluster a managed Prometheus backend collects from (``amazon-managed-prometheus``,
    ``azure-managed-prometheus``); the stack fills it from the cluster it creates or attaches to."""

    name: Input[str]
    """The cluster's name: on EKS Prometheus's Pod Identity association is made on it; on AKS the rule groups
    name it (``clusterName``)."""
    region: NotRequired[Input[str]]
    """EKS: the workspace's region (SigV4), default the AWS provider's. AKS (required): the location of the
    workspace, data collection endpoint and rule, and rule groups."""
    resource_id: NotRequired[Input[str]]
    """AKS (required): the managed cluster's resource ID, which the data collection rule is associated with and
    the rule groups are scoped to."""
    resource_group_name: NotRequired[Input[str]]
    """AKS (required): the resource group the workspace, data collection endpoint and rule, and rule groups go
    into."""


class GpuObservabilityArgs(ObservabilitySettings):
    """GPU metrics path, dashboards and rules (``GpuObservability``)."""

    cloud: Cloud
    """The cluster's cloud: ``gke-managed-prometheus`` needs ``gke``, ``amazon-managed-prometheus`` ``eks``,
    ``azure-managed-prometheus`` ``aks``."""
    cluster: NotRequired[ManagedPrometheusCluster]
    """The managed Prometheus backends (required there): the cluster metrics are collected from."""
    namespace: NotRequired[str]
    """Namespace of the monitoring stack, rules and dashboards; default ``monitoring``."""
    gpu_operator_namespace: NotRequired[str]
    """Where the GPU Operator runs (its validator and DCGM exporter pods); default ``gpu-operator``."""
    mirror: NotRequired[MirrorArgs]
    """Pull the charts and their images (node-problem-detector's too) from a mirror; default: upstream."""
