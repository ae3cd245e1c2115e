"""What ``gpu-platform diff`` flags in the monitoring stack this add-on installs (``gpu_platform.diff_rule``).

kube-prometheus-stack 88.5.3 ``values.yaml`` keeps everything on the pods' own disks unless told otherwise:
``prometheus.prometheusSpec.storageSpec: {}`` (the TSDB on an emptyDir), ``alertmanager.alertmanagerSpec.storage:
{}`` and Grafana 12.11.1 ``persistence.enabled: false`` (its SQLite database on an emptyDir). The library sets no
storage, so removing the release (observability off, or another backend) deletes the metrics history, Grafana's
saved dashboards and settings and Alertmanager's silences. The managed backends' workspaces are the clouds'
stateful resources (``cloud_facts/<cloud>/resource_types.py``).
"""

from __future__ import annotations

from typing import Any

from gpu_platform.diff_rule import DiffRule, Inputs, changes, chart, gone
from gpu_platform.releases import KUBE_PROMETHEUS_STACK


def _values(inputs: Inputs) -> dict[str, Any]:
    values = inputs.get("values")
    return values if isinstance(values, dict) else {}


def keeps_no_history(inputs: Inputs) -> bool:
    """Prometheus runs without a volume claim (the chart's default ``storageSpec: {}``)."""
    spec = (_values(inputs).get("prometheus") or {}).get("prometheusSpec") or {}
    return not spec.get("storageSpec")


def runs_grafana(inputs: Inputs) -> bool:
    grafana = _values(inputs).get("grafana") or {}
    return grafana.get("enabled", True) is not False


STACK = chart(KUBE_PROMETHEUS_STACK.chart_name)

DIFF_RULES: tuple[DiffRule, ...] = (
    gone(
        STACK,
        "deletes data",
        "the metrics history of the in-cluster Prometheus (its TSDB on an emptyDir: kube-prometheus-stack "
        "values.yaml prometheusSpec.storageSpec {}), Grafana's saved dashboards and settings and Alertmanager's "
        "silences go with the release; export what you need first (docs/observability.md)",
        when=keeps_no_history,
        when_text="when Prometheus has no storageSpec (the library's default)",
    ),
    changes(
        STACK,
        "deletes data",
        "Grafana goes, with the dashboards, users and settings saved in its database (an emptyDir: grafana chart "
        "values.yaml persistence.enabled false)",
        "values.grafana.enabled",
        when=runs_grafana,
        when_text="when Grafana runs",
    ),
)
