"""The Azure resource types the library creates, as the offline plan and ``gpu-platform diff`` must know them:
what the provider cannot change in place, what holds state, and the outputs a mock must return."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

AGENT_POOL = "azure-native:containerservice:AgentPool"
CLUSTER = "azure-native:containerservice:ManagedCluster"
USER_ASSIGNED_IDENTITY = "azure-native:managedidentity:UserAssignedIdentity"
MONITOR_WORKSPACE = "azure-native:monitor:AzureMonitorWorkspace"

FORCE_NEW: dict[str, tuple[str, ...]] = {
    # azure-native: the path parameters that form the resource ID and the location are marked
    # replace-on-change in its schema.
    CLUSTER: ("resourceName", "resourceGroupName", "location"),
    # pulumi-azure-native#3655 (AKS docs "manage node pools: limitations": VM size and GPU instance
    # profile are fixed at creation), plus the ID-forming path parameters; OS disk, zones, subnet and
    # max pods are also set-at-creation in AKS.
    AGENT_POOL: (
        "agentPoolName",
        "resourceName",
        "resourceGroupName",
        "vmSize",
        "gpuInstanceProfile",
        "osType",
        "osDiskType",
        "osDiskSizeGB",
        "availabilityZones",
        "vnetSubnetID",
        "maxPods",
    ),
    # azure-native: name/resource group/location form the ID. Address prefixes are PUT in place by
    # the provider, but Azure refuses to move a prefix with addresses in use (the AKS nodes), so on a
    # live platform the change needs a new network: reported as a replacement for the reviewer.
    "azure-native:network:VirtualNetwork": (
        "virtualNetworkName",
        "resourceGroupName",
        "location",
        "addressSpace.addressPrefixes",
    ),
    "azure-native:network:Subnet": (
        "subnetName",
        "virtualNetworkName",
        "resourceGroupName",
        "addressPrefix",
        "addressPrefixes",
    ),
    # azure-native: the ID-forming path parameters and the location (as for the cluster above).
    MONITOR_WORKSPACE: ("azureMonitorWorkspaceName", "resourceGroupName", "location"),
}
IN_PLACE_IF: dict[tuple[str, str], Callable[[Any, Any], bool]] = {}
STATEFUL = frozenset(
    {
        CLUSTER,
        "azure-native:network:VirtualNetwork",
        "azure-native:network:Subnet",
        AGENT_POOL,
        MONITOR_WORKSPACE,
    }
)
"""An Azure Monitor workspace holds the metrics sent to it."""
NODE_POOLS = frozenset({AGENT_POOL})


def mock_state(type_: str, name: str, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """Outputs the provider would add, which later code reads."""
    if type_.startswith(CLUSTER):
        state: dict[str, Any] = {"fqdn": f"{name}.hcp.example"}
        identity = inputs.get("identity") or {}
        if identity.get("userAssignedIdentities"):  # the API answers the list as a map: ID -> principal
            ids = identity["userAssignedIdentities"]
            state["identity"] = {
                **identity,
                "userAssignedIdentities": {i: {} for i in ids if isinstance(i, str)},
            }
        return state
    if type_.startswith(USER_ASSIGNED_IDENTITY):
        return {"principalId": f"{name}-principal", "clientId": f"{name}-client"}
    return {}


def mock_call(token: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
    if token.startswith("azure-native:containerservice:listManagedClusterUserCredentials"):
        return {"kubeconfigs": [{"name": "clusterUser", "value": "a3ViZWNvbmZpZw=="}]}
    if token.startswith("azure-native:containerservice:getManagedCluster"):
        group, name = args.get("resourceGroupName", "rg"), args.get("resourceName", "cluster")
        resource_id = f"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/{group}/providers/Microsoft.ContainerService/managedClusters/{name}"
        return {
            "id": resource_id,
            "name": name,
            "location": "mockregion",
            "type": "Microsoft.ContainerService/managedClusters",
        }
    return None
