"""The user-assigned managed identity KEDA's operator reads Azure Monitor managed Prometheus as: the identity, its
federated credential for the cluster's OIDC issuer and KEDA's operator service account (Microsoft Entra Workload ID,
"Use Microsoft Entra Workload ID with AKS"), and "Monitoring Data Reader" on the Azure Monitor workspace
(``cloud_facts.aks.serving``). Returns the workspace's query endpoint and the identity's client and tenant IDs,
which the serving plan's ScaledObjects and KEDA's chart values name (``addons.serving.autoscaling.resolved_source``).
"""

from __future__ import annotations

from typing import Any

import pulumi

from gpu_platform.addons.serving.autoscaling import ReaderGrant
from gpu_platform.cloud_facts.aks.serving import MONITORING_DATA_READER, TOKEN_AUDIENCE


def subject(grant: ReaderGrant) -> str:
    """The federated credential's subject: the pod's Kubernetes service account."""
    return f"system:serviceaccount:{grant.namespace}:{grant.service_account}"


def role_definition(subscription: str) -> str:
    """ "Monitoring Data Reader" in the subscription the stack deploys to."""
    return f"/subscriptions/{subscription}/providers/Microsoft.Authorization/roleDefinitions/{MONITORING_DATA_READER}"


def create_metrics_reader(
    name: str,
    grant: ReaderGrant,
    workspace: Any,
    *,
    resource_group: Any,
    location: Any,
    issuer: Any,
    opts: pulumi.ResourceOptions | None,
) -> dict[str, Any]:
    """The identity, its federated credential and its role on ``workspace`` (its resource ID, maybe an Output);
    returns ``server_address`` (the workspace's query endpoint) and ``identity`` (client and tenant IDs)."""
    import pulumi_azure_native.authorization as authorization
    import pulumi_azure_native.managedidentity as managedidentity
    import pulumi_azure_native.monitor as monitor

    identity = managedidentity.UserAssignedIdentity(
        f"{name}-{grant.account}",
        resource_group_name=resource_group,
        location=location,
        opts=opts,
    )
    managedidentity.FederatedIdentityCredential(
        f"{name}-{grant.account}-{grant.service_account}",
        resource_group_name=resource_group,
        resource_name_=identity.name,
        issuer=issuer,
        subject=subject(grant),
        audiences=[TOKEN_AUDIENCE],
        opts=opts,
    )
    client = authorization.get_client_config_output()
    authorization.RoleAssignment(
        f"{name}-{grant.account}-monitoring-data-reader",
        principal_id=identity.principal_id,
        principal_type="ServicePrincipal",
        role_definition_id=client.subscription_id.apply(role_definition),
        scope=workspace,
        opts=opts,
    )
    # The workspace's query endpoint, read from the workspace (created by the observability add-on or named).
    found = monitor.AzureMonitorWorkspace.get(f"{name}-{grant.account}-workspace", workspace, opts=opts)
    return {
        "server_address": found.metrics.apply(lambda m: m.prometheus_query_endpoint),
        "identity": {"client_id": identity.client_id, "tenant_id": identity.tenant_id},
    }
