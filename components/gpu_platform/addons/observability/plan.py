"""The observability plan: the metrics path of the chosen backend, the rules and the dashboards.

- ``kube-prometheus-stack``: the Prometheus Operator CRDs in their own release (kept on removal), then the
  stack with its CRD subchart off, selectors that pick up every ServiceMonitor and ``PrometheusRule`` in the
  cluster (the GPU Operator's and Kueue's carry no release label), and kube-state-metrics exporting the node
  and pod labels the rules join on.
- ``prometheus-operator``: the same objects for a Prometheus Operator already in the cluster.
- ``gke-managed-prometheus``: a ``ClusterPodMonitoring`` for the DCGM exporter and ``ClusterRules`` for the
  hardware alerts (GMP evaluates rules over what it collects; it runs no kube-state-metrics of its own).
- ``amazon-managed-prometheus``: kube-prometheus-stack as above, remote-writing to the workspace (the URL and
  region are the cloud side's outputs: ``remote_write``) as a fixed service account EKS Pod Identity gives a role;
  no Alertmanager, Grafana or ``PrometheusRule``: the workspace evaluates the rules (``gpu_rules.rule_file``).
- ``azure-managed-prometheus``: an ``azmonitoring.coreos.com`` ServiceMonitor for the DCGM exporter, the group the
  AKS metrics add-on reads; the rules become Azure Prometheus rule groups on the cloud side.

The cloud side of the managed backends (workspace, IAM or data collection, rule groups) is planned in
``amazon_managed_prometheus_plan`` and ``azure_managed_prometheus_plan`` and created by their installers
(``cloud_side``).

The GPU Operator's and Kueue's side of the path (``dcgm_exporter_values``, ``kueue_values``) is merged into
their plans by the stack layer, so each chart keeps one set of values.

With isolated (HAMi) pools, every backend also scrapes HAMi's device plugin monitor (per-container GPU memory used
and limit) and its scheduler (memory handed out per card), with the workload's ``namespace``/``pod``/``container``
labels kept as for the DCGM exporter (``hami_scrape_objects``); the chart's own ServiceMonitors stay off, since
they cannot be told to honour those labels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.addons.hami.plan import isolated_pools
from gpu_platform.addons.observability.checks import ObservabilitySpec
from gpu_platform.addons.observability.dashboards import dashboard_config_maps
from gpu_platform.addons.observability.gpu_health import GpuHealthPlan, gpu_health_plan
from gpu_platform.addons.observability.rules import (
    DCGM_METRICS_CONFIG_MAP,
    KSM_NODE_LABELS,
    KSM_POD_LABELS,
    RuleGroup,
    dcgm_metrics_csv,
    rule_groups,
)
from gpu_platform.addons.observability.settings import MetricsBackend
from gpu_platform.cloud_facts import profile_of
from gpu_platform.mirror import Mirror
from gpu_platform.plans.helm import deep_merge
from gpu_platform.pools import GpuPool
from gpu_platform.releases import HAMI, NODE_PROBLEM_DETECTOR
from gpu_platform.sharing import card_memory_mib

PROMETHEUS_RULE_NAME = "gpu-platform-gpu-rules"
DCGM_EXPORTER_APP = "nvidia-dcgm-exporter"
"""The ``app`` label of the GPU Operator's DCGM exporter pods (v26.7.0 ``assets/state-dcgm-exporter``)."""
DCGM_EXPORTER_PORT = "metrics"
"""Its container port name (9400)."""
DCGM_SERVICE_PORT = "gpu-metrics"
"""The port name of its Service ``nvidia-dcgm-exporter`` (v26.7.0 ``assets/state-dcgm-exporter/0400_service.yaml``)."""
AZURE_MONITOR_NAMESPACE = "kube-system"
"""Where the ``azmonitoring.coreos.com`` ServiceMonitor goes: the metrics add-on's namespace, which always exists
(the GPU Operator's is made by its release, after this)."""
PROMETHEUS_SERVICE_ACCOUNT = "gpu-platform-prometheus"
"""kube-prometheus-stack's Prometheus service account on the Amazon path: fixed, since the Pod Identity
association names it (the chart's default is derived from the release name)."""
SELECT_ALL = (
    "ruleSelectorNilUsesHelmValues",
    "serviceMonitorSelectorNilUsesHelmValues",
    "podMonitorSelectorNilUsesHelmValues",
    "probeSelectorNilUsesHelmValues",
    "scrapeConfigSelectorNilUsesHelmValues",
)
"""False: Prometheus selects these objects from every namespace, not only those labelled for this release."""
HAMI_DEVICE_PLUGIN = "hami-device-plugin"
HAMI_SCHEDULER = "hami-scheduler"
"""HAMi's ``app.kubernetes.io/component`` labels, on its pods and Services (Project-HAMi/HAMi v2.10.0
``charts/hami/templates/device-plugin/daemonsetnvidia.yaml``, ``monitorservice.yaml``,
``scheduler/deployment.yaml``, ``scheduler/service.yaml``), also the names of the objects that scrape them."""
HAMI_SELECTOR = {"app.kubernetes.io/name": "hami", "app.kubernetes.io/instance": HAMI.release_name}
"""The chart's ``hami-vgpu.selectorLabels``: the chart's name and the release's."""
HAMI_LEADER = {"hami.io/scheduler-role": "leader"}
"""The label HAMi's scheduler puts on its elected replica (``pkg/util/types.go`` ``HAMiRoleLabel``), which the
chart's Service selects: only the leader's allocation metrics are current."""
HAMI_MONITOR_PORTS = {HAMI_DEVICE_PLUGIN: "monitorport", HAMI_SCHEDULER: "monitor"}
"""The Services' metrics port names (device plugin monitor 9394, scheduler 9395)."""
HAMI_POD_PORT = "metrics"
"""The containers' metrics port name in both pods (what a pod-level scrape names)."""


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
    mirror: Mirror | None = None
    """Where the charts and their images come from instead of upstream."""


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
    if spec.backend == MetricsBackend.AMAZON_MANAGED_PROMETHEUS:
        # The workspace evaluates the rules and alerts; Grafana reads the workspace (Amazon Managed Grafana).
        typed["prometheus"]["serviceAccount"] = {"create": True, "name": PROMETHEUS_SERVICE_ACCOUNT}
        typed["alertmanager"] = {"enabled": False}
        typed["grafana"] = {"enabled": False}
    return deep_merge(dict(spec.values), typed)


def remote_write(url: Any, region: Any) -> dict[str, Any]:
    """kube-prometheus-stack values sending every sample to ``url`` signed with SigV4 for ``region`` (Outputs
    of the cloud side); the credentials come from the environment EKS Pod Identity sets on the pod."""
    return {"prometheus": {"prometheusSpec": {"remoteWrite": [{"url": url, "sigv4": {"region": region}}]}}}


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


def dcgm_exporter_values(spec: ObservabilitySpec, dra: bool = False) -> dict[str, Any]:
    """GPU Operator chart values for this metrics path: the counters the rules need, on Prometheus Operator
    paths the ServiceMonitor with ``honorLabels`` (the exporter's pod labels win), and with DRA pools (``dra``)
    the exporter's DRA pod attribution (``KUBERNETES_ENABLE_DRA``, NVIDIA/dcgm-exporter ``pkg/cmd/app.go``), so
    GPUs held through claims are attributed to their pods."""
    values: dict[str, Any] = {
        "dcgmExporter": {
            "config": {"name": DCGM_METRICS_CONFIG_MAP, "create": True, "data": dcgm_metrics_csv()},
        }
    }
    if dra:
        values["dcgmExporter"]["env"] = [{"name": "KUBERNETES_ENABLE_DRA", "value": "true"}]
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
    prometheus = profile_of(spec.cloud).platform_prometheus_namespace or spec.namespace
    return {"enablePrometheus": True, "metrics": {"prometheusNamespace": prometheus}}


def _hami_relabelings(component: str) -> list[dict[str, Any]]:
    """The device plugin monitor's series name the workload's ``namespace``/``pod``/``container`` (so its own are
    dropped, and ``node`` is the node it runs on, as for the DCGM exporter); the scheduler's name their ``node``
    themselves, so only its own pod labels go."""
    out = dcgm_servicemonitor_relabelings()
    return out if component == HAMI_DEVICE_PLUGIN else out[:1]


def hami_scrape_objects(spec: ObservabilitySpec) -> list[dict[str, Any]]:
    """What scrapes HAMi's device plugin monitor (``hami_vgpu_memory_used_bytes``/``_limit_bytes`` per container,
    Project-HAMi/HAMi v2.10.0 ``cmd/vGPUmonitor/metrics.go``) and its scheduler (``hami_gpu_memory_allocated_bytes``
    per card, ``cmd/scheduler/metrics.go``) on this backend: Prometheus Operator ServiceMonitors next to the rules
    (their Services are in HAMi's namespace, made after them), GKE ``ClusterPodMonitoring``s, or the AKS metrics
    add-on's ServiceMonitors in ``kube-system``. ``honorLabels``: the series' ``namespace``/``pod``/``container``
    are the workload's, which Prometheus would otherwise rename ``exported_*``."""
    if spec.backend == MetricsBackend.GKE_MANAGED_PROMETHEUS:
        return [
            {
                "apiVersion": "monitoring.googleapis.com/v1",
                "kind": "ClusterPodMonitoring",
                "metadata": {"name": component},
                "spec": {
                    "selector": {
                        "matchLabels": {"app.kubernetes.io/component": component, **HAMI_SELECTOR, **leader}
                    },
                    "endpoints": [{"port": HAMI_POD_PORT, "interval": "30s"}],
                    "targetLabels": {"metadata": ["node"] if component == HAMI_DEVICE_PLUGIN else []},
                },
            }
            for component, leader in ((HAMI_DEVICE_PLUGIN, {}), (HAMI_SCHEDULER, HAMI_LEADER))
        ]
    if spec.prometheus_operator:
        group, namespace = "monitoring.coreos.com", spec.namespace
    elif spec.backend == MetricsBackend.AZURE_MANAGED_PROMETHEUS:
        group, namespace = "azmonitoring.coreos.com", AZURE_MONITOR_NAMESPACE
    else:
        return []
    return [
        {
            "apiVersion": f"{group}/v1",
            "kind": "ServiceMonitor",
            "metadata": {"name": component, "namespace": namespace},
            "spec": {
                "selector": {"matchLabels": {"app.kubernetes.io/component": component, **HAMI_SELECTOR}},
                "namespaceSelector": {"matchNames": [HAMI.pin.namespace]},
                "endpoints": [
                    {
                        "port": port,
                        "path": "/metrics",
                        "interval": "30s",
                        "honorLabels": True,
                        "relabelings": _hami_relabelings(component),
                    }
                ],
            },
        }
        for component, port in HAMI_MONITOR_PORTS.items()
    ]


def prometheus_rule(spec: ObservabilitySpec, groups: tuple[RuleGroup, ...]) -> dict[str, Any]:
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": PROMETHEUS_RULE_NAME, "namespace": spec.namespace},
        "spec": {"groups": [g.as_object() for g in groups]},
    }


def azure_monitor_objects(spec: ObservabilitySpec) -> list[dict[str, Any]]:
    """The AKS metrics add-on reads ServiceMonitors of its own group (``azmonitoring.coreos.com``, not the
    Prometheus Operator's): the DCGM exporter's Service, its labels kept as on the operator's own monitor."""
    return [
        {
            "apiVersion": "azmonitoring.coreos.com/v1",
            "kind": "ServiceMonitor",
            "metadata": {"name": DCGM_EXPORTER_APP, "namespace": AZURE_MONITOR_NAMESPACE},
            "spec": {
                "selector": {"matchLabels": {"app": DCGM_EXPORTER_APP}},
                "namespaceSelector": {"matchNames": [spec.gpu_operator_namespace]},
                "endpoints": [
                    {
                        "port": DCGM_SERVICE_PORT,
                        "interval": "30s",
                        "honorLabels": True,
                        "relabelings": dcgm_servicemonitor_relabelings(),
                    }
                ],
            },
        }
    ]


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
    spec: ObservabilitySpec, secret: bool = False, pools: Sequence[GpuPool] = (), mirror: Mirror | None = None
) -> ObservabilityPlan:
    """``pools``: the stack's GPU pools, whose taints the health checks tolerate (without them: the library's
    own GPU-node taints); ``mirror`` (the stack's) overrides the spec's."""
    shares = {p.name: p.sharing.replicas for p in pools if p.sharing.mode in ("time-slicing", "mps")}
    isolated = isolated_pools(pools)
    cards = {p.name: card_memory_mib(p) for p in isolated}
    groups = rule_groups(spec.gpu_operator_namespace, shares, any(p.dra for p in pools), cards)
    objects: tuple[dict[str, Any], ...] = ()
    maps: tuple[dict[str, Any], ...] = ()
    if spec.rules_in_cluster:
        objects = (prometheus_rule(spec, groups),)
        maps = tuple(dashboard_config_maps(spec.namespace, {p.name: p.sharing.replicas for p in isolated}))
    elif spec.backend == MetricsBackend.GKE_MANAGED_PROMETHEUS:
        objects = tuple(gmp_objects(spec, groups))
    elif spec.backend == MetricsBackend.AZURE_MANAGED_PROMETHEUS:
        objects = tuple(azure_monitor_objects(spec))
    if isolated:
        objects += tuple(hami_scrape_objects(spec))
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
        mirror=mirror if mirror is not None else spec.mirror,
    )
