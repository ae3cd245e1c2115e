"""The observability plan: the metrics path of the chosen backend, the rules and the dashboards.

- ``kube-prometheus-stack``: the Prometheus Operator CRDs in their own release (kept on removal), then the
  stack with its CRD subchart off, selectors that pick up every ServiceMonitor and ``PrometheusRule`` in the
  cluster (the GPU Operator's and Kueue's carry no release label), and kube-state-metrics exporting the node
  and pod labels the rules join on.
- ``prometheus-operator``: the same objects for a Prometheus Operator already in the cluster.
- ``gke-managed-prometheus``: a ``ClusterPodMonitoring`` for the DCGM exporter and ``ClusterRules`` for the
  hardware alerts (GMP evaluates rules over what it collects; it runs no kube-state-metrics of its own).

The GPU Operator's and Kueue's side of the path (``dcgm_exporter_values``, ``kueue_values``) is merged into
their plans by the stack layer, so each chart keeps one set of values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.addons import NODE_PROBLEM_DETECTOR
from gpu_platform.plans.dashboards import dashboard_config_maps
from gpu_platform.plans.gpu_health import GpuHealthPlan, gpu_health_plan
from gpu_platform.plans.gpu_rules import (
    DCGM_METRICS_CONFIG_MAP,
    KSM_NODE_LABELS,
    KSM_POD_LABELS,
    RuleGroup,
    dcgm_metrics_csv,
    rule_groups,
)
from gpu_platform.plans.helm import deep_merge
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.observability import ObservabilitySpec

PROMETHEUS_RULE_NAME = "gpu-platform-gpu-rules"
DCGM_EXPORTER_APP = "nvidia-dcgm-exporter"
"""The ``app`` label of the GPU Operator's DCGM exporter pods (v26.7.0 ``assets/state-dcgm-exporter``)."""
DCGM_EXPORTER_PORT = "metrics"
"""Its container port name (9400)."""
SELECT_ALL = (
    "ruleSelectorNilUsesHelmValues",
    "serviceMonitorSelectorNilUsesHelmValues",
    "podMonitorSelectorNilUsesHelmValues",
    "probeSelectorNilUsesHelmValues",
    "scrapeConfigSelectorNilUsesHelmValues",
)
"""False: Prometheus selects these objects from every namespace, not only those labelled for this release."""


@dataclass(frozen=True)
class ObservabilityPlan:
    spec: ObservabilitySpec
    namespace: str
    groups: tuple[RuleGroup, ...]
    crds_values: Mapping[str, Any] = field(default_factory=dict)
    stack_values: Mapping[str, Any] = field(default_factory=dict)
    objects: tuple[dict[str, Any], ...] = ()
    """Custom resources created after the CRDs (``PrometheusRule`` or GMP objects)."""
    config_maps: tuple[dict[str, Any], ...] = ()
    """Grafana dashboards (not on the GKE managed path, which has no Grafana sidecar)."""
    secret_values: bool = False
    health: GpuHealthPlan | None = None
    """node-problem-detector with the GPU Xid monitor and the tainting remedy, or ``None`` when switched off."""


def ksm_allowlist() -> list[str]:
    """kube-state-metrics ``--metric-labels-allowlist`` entries (chart ``metricLabelsAllowlist``)."""
    return [f"nodes=[{','.join(KSM_NODE_LABELS)}]", f"pods=[{','.join(KSM_POD_LABELS)}]"]


def stack_values(spec: ObservabilitySpec) -> dict[str, Any]:
    typed: dict[str, Any] = {
        "crds": {"enabled": False},  # the prometheus-operator-crds release owns them
        "prometheus": {"prometheusSpec": dict.fromkeys(SELECT_ALL, False)},
        "kube-state-metrics": {"metricLabelsAllowlist": ksm_allowlist()},
        "grafana": {"enabled": spec.grafana},
    }
    return deep_merge(dict(spec.values), typed)


def dcgm_servicemonitor_relabelings() -> list[dict[str, Any]]:
    """The exporter's own ``namespace``/``pod``/``container`` are the workload's (pod-resources mapping):
    the scrape target's are dropped so an idle GPU is not charged to the exporter pod, and the node name
    becomes ``node``, which the rules and kube-state-metrics join on."""
    return [
        {"action": "labeldrop", "regex": "(pod|namespace|container)"},
        {
            "sourceLabels": ["__meta_kubernetes_pod_node_name"],
            "targetLabel": "node",
            "action": "replace",
        },
    ]


def dcgm_exporter_values(spec: ObservabilitySpec) -> dict[str, Any]:
    """GPU Operator chart values for this metrics path: the counters the rules need, and on Prometheus
    Operator paths the ServiceMonitor with ``honorLabels`` (the exporter's pod labels win)."""
    values: dict[str, Any] = {
        "dcgmExporter": {
            "config": {"name": DCGM_METRICS_CONFIG_MAP, "create": True, "data": dcgm_metrics_csv()},
        }
    }
    if spec.prometheus_operator:
        values["dcgmExporter"]["serviceMonitor"] = {
            "enabled": True,
            "honorLabels": True,
            "relabelings": dcgm_servicemonitor_relabelings(),
        }
    return values


def kueue_values(spec: ObservabilitySpec) -> dict[str, Any]:
    """Kueue chart values: its ServiceMonitor and the Role Prometheus reads the metrics Service with."""
    if not spec.prometheus_operator:
        return {}
    return {"enablePrometheus": True, "metrics": {"prometheusNamespace": spec.namespace}}


def prometheus_rule(spec: ObservabilitySpec, groups: tuple[RuleGroup, ...]) -> dict[str, Any]:
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": PROMETHEUS_RULE_NAME, "namespace": spec.namespace},
        "spec": {"groups": [g.as_object() for g in groups]},
    }


def gmp_objects(spec: ObservabilitySpec, groups: tuple[RuleGroup, ...]) -> list[dict[str, Any]]:
    """GKE managed collection: scrape the exporter pods cluster-wide, keep only ``node`` of the target
    labels (the exporter's own namespace/pod/container are the workload's), evaluate the DCGM-only rules."""
    monitoring = {
        "apiVersion": "monitoring.googleapis.com/v1",
        "kind": "ClusterPodMonitoring",
        "metadata": {"name": DCGM_EXPORTER_APP},
        "spec": {
            "selector": {"matchLabels": {"app": DCGM_EXPORTER_APP}},
            "endpoints": [{"port": DCGM_EXPORTER_PORT, "interval": "30s"}],
            "targetLabels": {"metadata": ["node"]},
        },
    }
    rules = {
        "apiVersion": "monitoring.googleapis.com/v1",
        "kind": "ClusterRules",
        "metadata": {"name": PROMETHEUS_RULE_NAME},
        "spec": {"groups": [_gmp_group(g) for g in groups if not g.needs_cluster_metrics]},
    }
    return [monitoring, rules]


def _gmp_group(group: RuleGroup) -> dict[str, Any]:
    out = group.as_object()
    out.setdefault("interval", "30s")  # GMP's Rules schema requires the interval
    return out


def observability_plan(
    spec: ObservabilitySpec, secret: bool = False, pools: Sequence[GpuPool] = ()
) -> ObservabilityPlan:
    """``pools``: the stack's GPU pools, whose taints the health checks tolerate (without them: the library's
    own GPU-node taints)."""
    groups = rule_groups(spec.gpu_operator_namespace)
    if spec.prometheus_operator:
        objects: tuple[dict[str, Any], ...] = (prometheus_rule(spec, groups),)
        maps = tuple(dashboard_config_maps(spec.namespace))
    else:
        objects, maps = tuple(gmp_objects(spec, groups)), ()
    return ObservabilityPlan(
        spec=spec,
        namespace=spec.namespace,
        groups=groups,
        crds_values={},
        stack_values=stack_values(spec) if spec.installs_stack else {},
        objects=objects,
        config_maps=maps,
        secret_values=secret,
        health=gpu_health_plan(NODE_PROBLEM_DETECTOR.namespace, pools) if spec.health_checks else None,
    )
