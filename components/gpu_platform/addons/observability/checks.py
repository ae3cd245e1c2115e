"""The ``observability`` section resolved, and every check on it written once."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from gpu_platform.addons.observability.settings import (
    DEFAULT_BACKEND,
    DEFAULT_NAMESPACE,
    GpuObservabilityArgs,
    MetricsBackend,
)
from gpu_platform.args.validate import check_arguments
from gpu_platform.cloud_facts import profile_of
from gpu_platform.errors import Problems
from gpu_platform.formats.secret import is_stand_in
from gpu_platform.mirror import Mirror
from gpu_platform.releases import GPU_OPERATOR, KUBE_PROMETHEUS_STACK
from gpu_platform.resolve.mirror import resolve_mirror


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
    """node-problem-detector's GPU Xid monitor and the tainting remedy on the GPU nodes (``addons.observability.gpu_health``)."""
    workspace: str | None = None
    """The managed backends: an existing workspace (AMP ARN, Azure Monitor workspace ID); ``None``: created."""
    cluster: Mapping[str, Any] = field(default_factory=dict)
    """The managed backends: ``ManagedPrometheusCluster`` (values may be Outputs)."""
    mirror: Mirror | None = None
    """Where the component's charts and images come from instead of upstream (the stack passes its own)."""

    @property
    def installs_stack(self) -> bool:
        """The library installs kube-prometheus-stack (and the Prometheus Operator CRDs)."""
        return self.backend in STACK_BACKENDS

    @property
    def platform_namespace_labels(self) -> Mapping[str, str] | None:
        """The labels of the namespace the library creates for its rules where the platform's own monitoring
        reads them (OpenShift); ``None``: the rules go in a namespace that exists or the stack's own."""
        profile = profile_of(self.cloud)
        if self.installs_stack or self.namespace != profile.platform_monitoring_namespace:
            return None
        return dict(profile.platform_monitoring_labels)

    @property
    def prometheus_operator(self) -> bool:
        """ServiceMonitors (``monitoring.coreos.com``) are what scrapes (installed or already there)."""
        return self.backend in OPERATOR_BACKENDS

    @property
    def rules_in_cluster(self) -> bool:
        """The cluster's Prometheus evaluates the rules (a ``PrometheusRule``); the managed backends' services
        evaluate them instead, so nothing is recorded or alerted twice."""
        return self.backend in (MetricsBackend.KUBE_PROMETHEUS_STACK, MetricsBackend.PROMETHEUS_OPERATOR)


STACK_BACKENDS = frozenset({MetricsBackend.KUBE_PROMETHEUS_STACK, MetricsBackend.AMAZON_MANAGED_PROMETHEUS})
"""Backends the library installs kube-prometheus-stack for (Amazon's: it is the collector that remote-writes)."""
OPERATOR_BACKENDS = STACK_BACKENDS | {MetricsBackend.PROMETHEUS_OPERATOR}
"""Backends whose scraping is the Prometheus Operator's ServiceMonitors."""
MANAGED = {
    MetricsBackend.GKE_MANAGED_PROMETHEUS: "GKE's managed collection",
    MetricsBackend.AMAZON_MANAGED_PROMETHEUS: "Amazon Managed Service for Prometheus, configured on EKS",
    MetricsBackend.AZURE_MANAGED_PROMETHEUS: "Azure Monitor managed Prometheus, configured on AKS",
}
"""Each cloud's managed backend, for the message when another cloud names it (the profile says whose it is)."""
WORKSPACE_PATTERNS = {
    MetricsBackend.AMAZON_MANAGED_PROMETHEUS: (
        re.compile(r"arn:aws[a-z-]*:aps:[a-z0-9-]+:[0-9]{12}:workspace/ws-[A-Za-z0-9-]+"),
        "an AMP workspace ARN, arn:aws:aps:<region>:<account>:workspace/ws-<id>",
    ),
    MetricsBackend.AZURE_MANAGED_PROMETHEUS: (
        re.compile(
            r"/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.Monitor/accounts/[^/]+", re.I
        ),
        "an Azure Monitor workspace resource ID, "
        "/subscriptions/<id>/resourceGroups/<group>/providers/Microsoft.Monitor/accounts/<name>",
    ),
}
"""What ``workspace`` names on each backend that takes one."""
CLUSTER_KEYS = {
    MetricsBackend.AMAZON_MANAGED_PROMETHEUS: ("name",),
    MetricsBackend.AZURE_MANAGED_PROMETHEUS: ("name", "region", "resource_id", "resource_group_name"),
}
"""``GpuObservabilityArgs.cluster`` keys each managed backend needs."""


def default_backend(cloud: str) -> str:
    """``prometheus-operator`` where the platform runs its own (OpenShift), else ``DEFAULT_BACKEND``."""
    if profile_of(cloud).platform_monitoring_namespace:
        return MetricsBackend.PROMETHEUS_OPERATOR.value
    return DEFAULT_BACKEND


def check_observability(cloud: str, section: Mapping[str, Any], p: Problems) -> None:
    """Checks across the section's keys (types and choices are the schema's)."""
    backend = section.get("backend", default_backend(cloud))
    profile = profile_of(cloud)
    if profile.platform_monitoring_namespace and backend in STACK_BACKENDS:
        p.add(
            ("backend",),
            f"{backend} installs the Prometheus Operator CRDs, which {profile.display}'s cluster monitoring owns "
            "(Helm cannot adopt them, so the install fails); use prometheus-operator (the default here): "
            "ServiceMonitors and rules for the platform's own monitoring",
        )
    managed = profile.managed_prometheus
    if backend in MANAGED and backend != managed:
        valid = ", ".join(
            [MetricsBackend.KUBE_PROMETHEUS_STACK.value, MetricsBackend.PROMETHEUS_OPERATOR.value]
            + ([managed] if managed else [])
        )
        p.add(
            ("backend",), f"{backend} is {MANAGED[backend]} and this cloud is {cloud}; valid choices: {valid}"
        )
    if backend != MetricsBackend.KUBE_PROMETHEUS_STACK and "grafana" in section:
        p.add(("grafana",), f"applies to the kube-prometheus-stack backend only, and backend is {backend}")
    if backend not in STACK_BACKENDS and "values" in section:
        p.add(
            ("values",),
            "applies to the backends that install kube-prometheus-stack (kube-prometheus-stack, "
            f"amazon-managed-prometheus) only, and backend is {backend}",
        )
    if section.get("node_auto_repair") is False and (why := profile.node_repair) is not None:
        p.add(("node_auto_repair",), f"false has no effect on {profile.display}: {why}; remove it")
    _check_workspace(str(backend), section, p)


def _check_workspace(backend: str, section: Mapping[str, Any], p: Problems) -> None:
    if "workspace" not in section:
        return
    if backend not in WORKSPACE_PATTERNS:
        p.add(
            ("workspace",),
            "applies to amazon-managed-prometheus and azure-managed-prometheus only, and backend is "
            + backend,
        )
        return
    pattern, what = WORKSPACE_PATTERNS[MetricsBackend(backend)]
    if not pattern.fullmatch(str(section["workspace"])) and not is_stand_in(section["workspace"]):
        p.add(("workspace",), f"{section['workspace']!r} is not {what}")


def _check_cluster(backend: str, args: Mapping[str, Any], p: Problems) -> None:
    """``GpuObservability``'s ``cluster``: the keys its managed backend needs (the stack fills them itself)."""
    needed = CLUSTER_KEYS.get(MetricsBackend(backend), ()) if backend in CLUSTER_KEYS else ()
    cluster = args.get("cluster")
    if cluster is not None and not needed:
        p.add(("cluster",), f"applies to the managed backends of EKS and AKS only, and backend is {backend}")
    for key in needed:
        if (cluster or {}).get(key) is None:
            p.add(("cluster", key), f"is required with backend {backend}")


def observability_spec(
    cloud: str, section: Mapping[str, Any], namespace: str | None = None
) -> ObservabilitySpec:
    profile = profile_of(cloud)
    return ObservabilitySpec(
        cloud=cloud,
        backend=str(section.get("backend", default_backend(cloud))),
        grafana=bool(section.get("grafana", True)),
        values=dict(section.get("values", {})),
        namespace=namespace or profile.platform_monitoring_namespace or KUBE_PROMETHEUS_STACK.namespace,
        gpu_operator_namespace=str(
            section.get("gpu_operator_namespace", profile.gpu_operator_namespace or GPU_OPERATOR.namespace)
        ),
        node_auto_repair=bool(section.get("node_auto_repair", True)),
        health_checks=bool(section.get("health_checks", not profile_of(cloud).privileged_pods_need_scc)),
        workspace=section.get("workspace"),
        cluster=dict(section.get("cluster") or {}),
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
    _check_cluster(str(checked.get("backend", default_backend(str(checked["cloud"])))), checked, p)
    mirror = resolve_mirror(checked.get("mirror"), p.at("mirror"))
    p.raise_for_arguments()
    return replace(
        observability_spec(str(checked["cloud"]), checked, checked.get("namespace")), mirror=mirror
    )
