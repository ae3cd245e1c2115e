"""The cloud side of ``observability.backend: azure-managed-prometheus``: the Azure Monitor workspace (unless an
existing one is named), the data collection endpoint, rule and association that route the cluster's metrics
add-on to it, and the GPU rules as Prometheus rule groups. Created by ``GpuObservability`` as its children
(``install``); the add-on itself is the cluster's ``azureMonitorProfile`` (``AksCluster``'s
``azure_monitor_metrics``)."""

from __future__ import annotations

from typing import Any

from gpu_platform.addons.observability import azure_managed_prometheus_plan as mp
from gpu_platform.addons.observability.plan import ObservabilityPlan
from gpu_platform.cloud_facts.aks.profile import PROFILE
from gpu_platform.component import PlannedComponent


def install(owner: PlannedComponent[Any], name: str, plan: ObservabilityPlan) -> dict[str, Any]:
    """Create the cloud side; returns ``values`` (none: nothing runs in-cluster but the add-on), ``depends_on``
    and ``workspace`` (the workspace's resource ID)."""
    PROFILE.sdk(owner)  # one line naming the extra when the SDK is missing
    import pulumi_azure_native.alertsmanagement as alerts
    import pulumi_azure_native.monitor as monitor

    cluster = plan.spec.cluster
    workspace: Any = plan.spec.workspace
    if not workspace:
        workspace = monitor.AzureMonitorWorkspace(
            f"{name}-workspace",
            resource_group_name=cluster["resource_group_name"],
            location=cluster["region"],
            opts=owner.child_opts(),
        ).id
    endpoint = monitor.DataCollectionEndpoint(
        f"{name}-dce", **mp.data_collection_endpoint(cluster), opts=owner.child_opts()
    )
    rule = monitor.DataCollectionRule(
        f"{name}-dcr", **mp.data_collection_rule(cluster, endpoint.id, workspace), opts=owner.child_opts()
    )
    association = monitor.DataCollectionRuleAssociation(
        f"{name}-dcra", **mp.data_collection_rule_association(cluster, rule.id), opts=owner.child_opts()
    )
    for group in plan.groups:
        alerts.PrometheusRuleGroup(
            f"{name}-{group.name}", **mp.rule_group(group, cluster, workspace), opts=owner.child_opts()
        )
    return {"values": {}, "depends_on": [association], "workspace": workspace}
