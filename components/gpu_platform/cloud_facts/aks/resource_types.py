"""The Azure resource types the library creates, as the offline plan and ``gpu-platform diff`` must know them:
what the provider cannot change in place, what holds state, and the outputs a mock must return."""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from typing import Any

from gpu_platform.cloud_facts.karpenter import NODE_POOL_RULES, node_class_rules
from gpu_platform.diff_rule import SHARING_CHANGE, DiffRule, Inputs, changes, derived, gone, kind

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
    # azure-native: the path parameters that form the extension's ID (Azure Container Storage, local NVMe).
    "azure-native:kubernetesconfiguration:Extension": (
        "extensionName",
        "clusterName",
        "clusterResourceName",
        "clusterRp",
        "resourceGroupName",
    ),
}
IN_PLACE_IF: dict[tuple[str, str], Callable[[Any, Any], bool]] = {}
VIRTUAL_MACHINE = "azure-native:compute:VirtualMachine"
"""A ``GpuDockerHost``'s VM."""


def custom_data(inputs: Inputs) -> str | None:
    """The VM's cloud-init user data, decoded (Azure takes it base64), so the diff shows its lines."""
    encoded = (inputs.get("osProfile") or {}).get("customData")
    if not isinstance(encoded, str):
        return None
    try:
        return base64.b64decode(encoded, validate=True).decode()
    except (ValueError, UnicodeDecodeError):
        return encoded


DIFF_RULES: tuple[DiffRule, ...] = (
    changes(
        AGENT_POOL,
        "reconfigures GPUs",
        "the GPU Operator's MIG manager repartitions the GPUs of every node of the pool, evicting their pods",
        'nodeLabels["nvidia.com/mig.config"]',
        field="nvidia.com/mig.config",
    ),
    changes(
        AGENT_POOL,
        "strands queued work",
        SHARING_CHANGE,
        'nodeLabels["gpu-platform.io/sharing"]',
        field="gpu-platform.io/sharing",
    ),
    # The Network Operator's DOCA driver and RDMA device plugin run only on nodes with this label (the library's
    # NicClusterPolicy, clouds/aks/infiniband_plan.py); AKS updates a pool's labels on its nodes in place.
    changes(
        AGENT_POOL,
        "reloads driver",
        "the Network Operator removes the DOCA (MOFED) network driver and the RDMA device plugin from the pool's "
        "nodes: running jobs lose their InfiniBand devices",
        'nodeLabels["gpu-platform.io/infiniband"]',
        when=lambda inputs: (inputs.get("nodeLabels") or {}).get("gpu-platform.io/infiniband") == "true",
        when_text="when the pool had InfiniBand",
    ),
    changes(
        kind("mellanox.com", "NicClusterPolicy"),
        "reloads driver",
        "the Network Operator reloads the DOCA (MOFED) network driver on every node it serves, evicting their RDMA "
        "work (its upgradePolicy waits for jobs; docs/day2.md)",
        "spec.ofedDriver.version",
        "spec.ofedDriver.image",
        "spec.ofedDriver.repository",
    ),
    gone(
        kind("mellanox.com", "NicClusterPolicy"),
        "reloads driver",
        "the Network Operator removes the DOCA (MOFED) network driver and the RDMA device plugin from every node: "
        "running jobs lose their InfiniBand devices",
    ),
    # Microsoft Learn, "Resize a virtual machine": a running VM restarts to take a new size.
    changes(
        VIRTUAL_MACHINE,
        "restarts workloads",
        "Azure restarts the VM to resize it: its Compose services restart at boot",
        "hardwareProfile.vmSize",
    ),
    # Azure answers PropertyChangeNotAllowed to a new osProfile.customData (Azure/azure-sdk-for-java#1912), and
    # cloud-init would not run it again after first boot.
    derived(
        VIRTUAL_MACHINE,
        "blocks the update",
        "blocked by Azure: a VM's custom data (the cloud-init that writes the Compose file) cannot change after it "
        "is created; delete the host and create it again to apply the new services (its OS disk goes with it)",
        "osProfile.customData (decoded)",
        custom_data,
    ),
    gone(
        VIRTUAL_MACHINE,
        "deletes data",
        "its OS disk goes with it (deleteOption Delete): whatever the Compose services wrote to the host (model "
        "caches, volumes) is lost",
    ),
    *NODE_POOL_RULES,
    *node_class_rules("karpenter.azure.com", "AKSNodeClass"),
)
"""What ``gpu-platform diff`` flags in these resources beyond their replacement (``gpu_platform.diff_rule``)."""
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


MOCK_TENANT = "11111111-1111-1111-1111-111111111111"
MOCK_SUBSCRIPTION = "00000000-0000-0000-0000-000000000000"


def mock_issuer(cluster: str) -> dict[str, Any]:
    """A cluster's OIDC issuer as AKS answers it (``oidcIssuerProfile``), for offline plans."""
    return {
        "enabled": True,
        "issuerURL": f"https://mockregion.oic.prod-aks.azure.com/{MOCK_TENANT}/{cluster}/",
    }


def mock_workspace(group: str, name: str) -> dict[str, Any]:
    """An Azure Monitor workspace's state as Azure answers it (its query endpoint), for offline plans."""
    return {
        "id": f"/subscriptions/{MOCK_SUBSCRIPTION}/resourceGroups/{group}/providers/Microsoft.Monitor/accounts/{name}",
        "name": name,
        "location": "mockregion",
        "metrics": {
            "internalId": f"mac_{name}",
            "prometheusQueryEndpoint": f"https://{name}-mock.mockregion.prometheus.monitor.azure.com",
        },
    }


def mock_state(type_: str, name: str, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """Outputs the provider would add, which later code reads."""
    if type_.startswith(CLUSTER):
        state: dict[str, Any] = {"fqdn": f"{name}.hcp.example", "oidcIssuerProfile": mock_issuer(name)}
        identity = inputs.get("identity") or {}
        if identity.get("userAssignedIdentities"):  # the API answers the list as a map: ID -> principal
            ids = identity["userAssignedIdentities"]
            state["identity"] = {
                **identity,
                "userAssignedIdentities": {i: {} for i in ids if isinstance(i, str)},
            }
        return state
    if type_.startswith(MONITOR_WORKSPACE):
        return {k: v for k, v in mock_workspace("rg", name).items() if k == "metrics"}
    if type_.startswith(USER_ASSIGNED_IDENTITY):
        return {"principalId": f"{name}-principal", "clientId": f"{name}-client", "tenantId": MOCK_TENANT}
    return {}


def mock_call(token: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
    if token.startswith("azure-native:containerservice:listManagedClusterUserCredentials"):
        return {"kubeconfigs": [{"name": "clusterUser", "value": "a3ViZWNvbmZpZw=="}]}
    if token.startswith("azure-native:authorization:getClientConfig"):
        return {
            "subscriptionId": MOCK_SUBSCRIPTION,
            "tenantId": MOCK_TENANT,
            "clientId": "mock-client",
            "objectId": "mock-object",
        }
    if token.startswith("azure-native:containerservice:getManagedCluster"):
        group, name = args.get("resourceGroupName", "rg"), args.get("resourceName", "cluster")
        resource_id = f"/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/{group}/providers/Microsoft.ContainerService/managedClusters/{name}"
        return {
            "id": resource_id,
            "name": name,
            "location": "mockregion",
            "type": "Microsoft.ContainerService/managedClusters",
            "oidcIssuerProfile": mock_issuer(name),
        }
    return None
