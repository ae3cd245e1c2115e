"""The observability add-on in the stack: its contributions to the GPU Operator's and Kueue's plans, then the
metrics path, dashboards and rules; deployed first, since their ServiceMonitors need the Prometheus Operator
CRDs it installs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from gpu_platform.addons.gpu_operator.plan import MetricsContribution
from gpu_platform.addons.observability.checks import OPERATOR_BACKENDS, default_backend
from gpu_platform.addons.observability.cloud_side import has_cloud_side
from gpu_platform.addons.observability.plan import (
    dcgm_exporter_values,
    kueue_values,
    observability_plan,
)
from gpu_platform.addons.requirement import Requirement, Sections, section_on
from gpu_platform.cloud_facts import profile_of
from gpu_platform.releases import KUBE_PROMETHEUS_STACK

if TYPE_CHECKING:
    from gpu_platform.addons.deployment import Deployment
    from gpu_platform.addons.platform_spec import PlatformSpec


def _exporter(sections: Sections) -> Mapping[str, Any]:
    """The ``gpu_operator.dcgm_exporter`` settings given (empty: the defaults)."""
    operator = sections.get("gpu_operator", {})
    exporter = operator.get("dcgm_exporter", {}) if isinstance(operator, Mapping) else {}
    return exporter if isinstance(exporter, Mapping) else {}


def _scrapes_service_monitors(sections: Sections) -> bool:
    """The backend scrapes through Prometheus Operator ServiceMonitors (installed or already running)."""
    section = sections.get("observability", {})
    backend = section.get("backend") if isinstance(section, Mapping) else None
    return str(backend or default_backend(str(sections.get("cloud", "")))) in OPERATOR_BACKENDS


REQUIRES = (
    Requirement(
        ("observability", "enabled"),
        "gpu_operator.dcgm_exporter.enabled",
        met=lambda s, pool: (
            not section_on(s, "gpu_operator", True)
            or _exporter(s).get("enabled", True)
            or _exporter(s).get(
                "service_monitor", False
            )  # refused at the ServiceMonitor (gpu_operator.checks)
        ),
        applies=lambda s, pool: section_on(s, "observability", True),
        reason=lambda s, pool: (
            "the GPU dashboards, recording rules and alerts read the DCGM exporter, which "
            "{{gpu_operator.dcgm_exporter.enabled}} false leaves out: turn the exporter on, or observability off"
        ),
    ),
    Requirement(
        ("gpu_operator", "dcgm_exporter", "service_monitor"),
        "observability.enabled",
        met=lambda s, pool: _exporter(s).get("service_monitor", True) is not False,
        applies=lambda s, pool: section_on(s, "observability", True) and _scrapes_service_monitors(s),
        reason=lambda s, pool: (
            "false has no effect while {{observability.enabled}}: its Prometheus scrapes the exporter through "
            "that ServiceMonitor, so the plan turns it on; remove the setting, or turn observability off"
        ),
    ),
)
"""The metrics path reads the GPU Operator's DCGM exporter through its ServiceMonitor (with an operator-installed
exporter; with the operator off, an exporter installed elsewhere is read instead)."""


def enabled(spec: PlatformSpec) -> bool:
    return spec.observability is not None


def managed_metrics(spec: PlatformSpec) -> bool:
    """The metrics go to the cloud's managed Prometheus, whose cloud side the stack creates (EKS, AKS)."""
    profile = profile_of(spec.cloud)
    return (
        spec.observability is not None
        and has_cloud_side(spec.observability.backend)
        and spec.observability.backend == profile.managed_prometheus
    )


def contributions(spec: PlatformSpec) -> dict[str, Any]:
    """What the metrics path asks of the other add-ons' plans: the DCGM exporter's counters and ServiceMonitor
    (GPU Operator), Kueue's ServiceMonitor and metrics Role (Kueue). HAMi's metrics are scraped by objects of
    the observability plan itself (``plan.hami_scrape_objects``), not by its chart."""
    assert spec.observability is not None
    return {
        "gpu_operator": MetricsContribution(
            dcgm_exporter_values(spec.observability, dra=any(p.dra for p in spec.pools)),
            spec.observability.prometheus_operator,
        ),
        "kueue": kueue_values(spec.observability),
    }


def deploy(d: Deployment) -> dict[str, Any]:
    """``GpuObservability``; a managed backend collects from the cloud's cluster (``Deployment.metrics_cluster``)."""
    from gpu_platform.addons.observability.component import GpuObservability

    spec = d.spec
    assert spec.observability is not None
    target = spec.observability
    if managed_metrics(spec):
        target = replace(target, cluster=d.metrics_cluster())
    plan = observability_plan(target, secret=d.secret("observability"), pools=spec.pools, mirror=spec.mirror)
    component = GpuObservability.from_plan(KUBE_PROMETHEUS_STACK.component_name, plan, d.opts)
    d.created["observability"] = component
    outputs: dict[str, Any] = {"observabilityBackend": component.backend}
    if managed_metrics(spec):  # where the metrics went
        outputs["observabilityWorkspace"] = component.workspace
    return outputs
