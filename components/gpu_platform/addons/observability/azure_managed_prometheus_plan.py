"""Azure Monitor managed Prometheus, planned: the data collection endpoint, rule and association Microsoft's
onboarding templates make for an AKS cluster (Azure/prometheus-collector ``AddonBicepTemplate``,
``AddonTerraformTemplate``), and the GPU rules as Azure Prometheus rule groups.

Every function returns the keyword arguments of one ``pulumi_azure_native.monitor`` or ``alertsmanagement``
resource; values may be Outputs (the cluster's ID, name and location, the workspace's ID).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import pulumi

from gpu_platform.addons.observability.rules import Rule, RuleGroup

STREAM = "Microsoft-PrometheusMetrics"
"""The one stream of managed Prometheus: the metrics add-on forwards to it, the rule sends it to the workspace."""
DATA_SOURCE = "PrometheusDataSource"
DESTINATION = "MonitoringAccount1"
"""The data source's and destination's names in Microsoft's templates."""
NAME_PREFIX = "MSProm"
DCE_NAME_MAX, DCR_NAME_MAX = 44, 64
"""Microsoft's templates name both ``MSProm-<location>-<cluster>``, cut to these lengths."""
DEFAULT_INTERVAL = "PT1M"
SEVERITY = {"critical": 0, "error": 1, "warning": 2, "info": 3}
"""Azure's alert severities (0 Critical ... 4 Verbose) for the rules' ``severity`` labels."""
_DURATION = re.compile(r"(\d+)([smh])")


def iso_duration(duration: str) -> str:
    """A Prometheus duration of one unit (``5m``, ``1h``) as the ISO 8601 duration Azure takes (``PT5M``)."""
    match = _DURATION.fullmatch(duration)
    if match is None:
        raise ValueError(f"not a one-unit Prometheus duration: {duration!r}")
    return f"PT{match.group(1)}{match.group(2).upper()}"


def _prefixed(location: str, cluster: str, limit: int) -> str:
    return f"{NAME_PREFIX}-{location}-{cluster}"[:limit]


def _combine(build: Callable[..., str], *values: Any) -> Any:
    """``build(*values)``: at once when every value is plain, else once the Outputs resolve."""
    if any(isinstance(v, pulumi.Output) for v in values):
        return pulumi.Output.all(*values).apply(lambda v: build(*v))
    return build(*values)


def _name(cluster: Mapping[str, Any], limit: int) -> Any:
    return _combine(
        lambda location, name: _prefixed(location, name, limit), cluster["region"], cluster["name"]
    )


def data_collection_endpoint(cluster: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "data_collection_endpoint_name": _name(cluster, DCE_NAME_MAX),
        "resource_group_name": cluster["resource_group_name"],
        "location": cluster["region"],
        "kind": "Linux",
    }


def data_collection_rule(cluster: Mapping[str, Any], endpoint_id: Any, workspace_id: Any) -> dict[str, Any]:
    """The rule that sends the add-on's Prometheus stream to the workspace."""
    return {
        "data_collection_rule_name": _name(cluster, DCR_NAME_MAX),
        "resource_group_name": cluster["resource_group_name"],
        "location": cluster["region"],
        "kind": "Linux",
        "data_collection_endpoint_id": endpoint_id,
        "data_sources": {"prometheus_forwarder": [{"name": DATA_SOURCE, "streams": [STREAM]}]},
        "destinations": {"monitoring_accounts": [{"account_resource_id": workspace_id, "name": DESTINATION}]},
        "data_flows": [{"streams": [STREAM], "destinations": [DESTINATION]}],
        "description": "DCR for Azure Monitor Metrics Profile (Managed Prometheus), gpu-platform",
    }


def data_collection_rule_association(cluster: Mapping[str, Any], rule_id: Any) -> dict[str, Any]:
    """The cluster associated with the rule: what the metrics add-on reads its destination from."""
    return {
        "association_name": _combine(
            lambda location, name: f"{NAME_PREFIX}-{location}-{name}", cluster["region"], cluster["name"]
        ),
        "resource_uri": cluster["resource_id"],
        "data_collection_rule_id": rule_id,
        "description": "Association of data collection rule. Deleting this association will break the data "
        "collection for this AKS Cluster.",
    }


def prometheus_rule(rule: Rule) -> dict[str, Any]:
    """One rule as Azure's ``PrometheusRule`` (``expression``, ISO 8601 ``for``, numeric ``severity``)."""
    if rule.record:
        return {"record": rule.name, "expression": rule.expr, "enabled": True}
    out: dict[str, Any] = {"alert": rule.name, "expression": rule.expr, "enabled": True}
    if rule.for_:
        out["for_"] = iso_duration(rule.for_)
    out["severity"] = SEVERITY[rule.severity]
    out["labels"] = {"severity": rule.severity}
    out["annotations"] = {"summary": rule.summary, "description": rule.description}
    return out


def rule_group(group: RuleGroup, cluster: Mapping[str, Any], workspace_id: Any) -> dict[str, Any]:
    """A group evaluated by the workspace over this cluster's series (``clusterName`` and ``scopes``), named
    ``<group>-<cluster>`` like Microsoft's recommended groups, so two clusters' groups never collide."""
    return {
        "rule_group_name": _combine(lambda name: f"{group.name}-{name}", cluster["name"]),
        "resource_group_name": cluster["resource_group_name"],
        "location": cluster["region"],
        "cluster_name": cluster["name"],
        "scopes": [workspace_id, cluster["resource_id"]],
        "enabled": True,
        "interval": iso_duration(group.interval) if group.interval else DEFAULT_INTERVAL,
        "description": f"gpu-platform GPU rules ({group.name})",
        "rules": [prometheus_rule(r) for r in group.rules],
    }
