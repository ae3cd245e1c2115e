"""How KEDA's operator reads Azure Monitor managed Prometheus on AKS, for the serving add-on's autoscalers.

The Azure Monitor workspace answers PromQL at its query endpoint (the workspace's
``properties.metrics.prometheusQueryEndpoint``, ``https://<workspace>-<suffix>.<region>.prometheus.monitor.azure.com``)
to a Microsoft Entra identity holding "Monitoring Data Reader" on the workspace (Azure Monitor, "Query Prometheus
metrics using the API and PromQL"). KEDA's ``azure-workload`` pod identity takes the token of the operator's
Microsoft Entra Workload ID (KEDA v2.20 docs, "Azure AD Workload Identity"): a user-assigned managed identity with a
federated credential for the cluster's OIDC issuer and the subject ``system:serviceaccount:keda:keda-operator``
(audience ``api://AzureADTokenExchange``), whose client and tenant IDs the chart puts on the operator's service
account with the ``azure.workload.identity/use`` label on its pod (kedacore/charts v2.20.2 ``keda/values.yaml``
``podIdentity.azureWorkload``, ``templates/manager/serviceaccount.yaml``, ``templates/manager/deployment.yaml``).

The query endpoint and the client ID exist only once the workspace and the identity do, so the stack fills them
in when it deploys (``clouds/aks/metrics_reader.py``). The identity lives outside the cluster and needs only its
OIDC issuer, which the stack reads from a cluster it creates and looks up on one it attaches to: it is created in
both cases; an attached cluster must have its OIDC issuer and workload identity on.
"""

from __future__ import annotations

from typing import Any

from gpu_platform.cloud_facts.parts.services import MetricsReader

MONITORING_DATA_READER = "b0d8363b-8ddd-447d-831f-62ca05bff136"
"""The built-in role "Monitoring Data Reader" (Azure RBAC built-in roles, Monitor): read an Azure Monitor
workspace's data."""
TOKEN_AUDIENCE = "api://AzureADTokenExchange"
"""The audience of a federated credential for Microsoft Entra Workload ID."""


def _keda_values(identity: Any) -> dict[str, Any]:
    """``identity``: ``{"client_id": ..., "tenant_id": ...}`` of the user-assigned managed identity."""
    return {
        "podIdentity": {
            "azureWorkload": {
                "enabled": True,
                "clientId": identity["client_id"],
                "tenantId": identity["tenant_id"],
            }
        }
    }


METRICS_READER = MetricsReader(
    backend="azure-managed-prometheus",
    pod_identity="azure-workload",
    account="keda-metrics",
    role="Monitoring Data Reader",
    query_url=None,
    identity=None,
    attached_requires=(
        "the cluster's OIDC issuer and Microsoft Entra Workload ID on (az aks update --resource-group "
        "{resource_group} --name {cluster} --enable-oidc-issuer --enable-workload-identity), so KEDA's operator "
        "({namespace}/{service_account}) can act as the managed identity the stack creates for it",
    ),
    created_on_attached=True,
    keda_values=_keda_values,
)
"""KEDA's operator reading the Azure Monitor workspace as the user-assigned managed identity ``keda-metrics``."""
