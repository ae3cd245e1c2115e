"""The Google Cloud resource types the library creates, as the offline plan and ``gpu-platform diff`` must know
them: what the provider cannot change in place, what holds state, and the outputs a mock must return."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping
from typing import Any

NODE_POOL = "gcp:container/nodePool:NodePool"
CLUSTER = "gcp:container/cluster:Cluster"

FORCE_NEW: dict[str, tuple[str, ...]] = {
    # terraform-provider-google services/container/resource_container_cluster.go: ForceNew.
    CLUSTER: ("name", "location", "network", "subnetwork"),
    # terraform-provider-google services/container/resource_container_node_pool.go (name, name_prefix,
    # location, cluster) and node_config.go (guest_accelerator, spot): ForceNew.
    NODE_POOL: (
        "name",
        "namePrefix",
        "location",
        "cluster",
        "nodeConfig.guestAccelerators",
        "nodeConfig.spot",
    ),
    # terraform-provider-google services/compute/resource_compute_network.go: name is ForceNew.
    "gcp:compute/network:Network": ("name",),
    # terraform-provider-google resource_compute_subnetwork.go: name, network, region ForceNew;
    # ip_cidr_range only when it shrinks (customdiff.ForceNewIf IsShrinkageIpCidr), see IN_PLACE_IF.
    "gcp:compute/subnetwork:Subnetwork": ("name", "network", "region", "ipCidrRange"),
    # terraform-provider-google resource_compute_resource_policy.go: name, region and the policy blocks ForceNew.
    "gcp:compute/resourcePolicy:ResourcePolicy": ("name", "region", "project", "workloadPolicy"),
}


def _cidr_expanded(old: Any, new: Any) -> bool:
    try:
        return ipaddress.ip_network(str(new), strict=False).supernet_of(
            ipaddress.ip_network(str(old), strict=False)  # type: ignore[arg-type]
        )
    except (ValueError, TypeError):
        return False


IN_PLACE_IF: dict[tuple[str, str], Callable[[Any, Any], bool]] = {
    ("gcp:compute/subnetwork:Subnetwork", "ipCidrRange"): _cidr_expanded,
}
"""(type, path) -> predicate(old, new): the change is made in place when it holds."""
RECREATES_NODES: dict[str, tuple[str, ...]] = {
    # GKE "Node pool updates" (cloud.google.com/kubernetes-engine/docs/concepts/node-pool-upgrade-strategies):
    # changing the machine type, disk type, disk size or node image of an existing pool recreates its nodes
    # with the pool's upgrade strategy (surge by default); terraform-provider-google updates these in place.
    NODE_POOL: (
        "nodeConfig.machineType",
        "nodeConfig.diskSizeGb",
        "nodeConfig.diskType",
        "nodeConfig.imageType",
    ),
}
STATEFUL = frozenset({CLUSTER, "gcp:compute/network:Network", "gcp:compute/subnetwork:Subnetwork", NODE_POOL})
NODE_POOLS = frozenset({NODE_POOL})


def mock_state(type_: str, name: str, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """Outputs the provider would add, which later code reads."""
    if type_.startswith("gcp:serviceaccount/account:Account"):
        account = inputs.get("accountId", name)
        project = inputs.get("project", "mock-project")
        email = f"{account}@{project}.iam.gserviceaccount.com"
        return {"email": email, "member": f"serviceAccount:{email}"}
    if type_.startswith(CLUSTER):
        return {"endpoint": "203.0.113.10", "masterAuth": {"clusterCaCertificate": "Q0E="}}
    return {}


def mock_call(token: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
    if token == "gcp:organizations/getClientConfig:getClientConfig":
        return {"accessToken": "mock", "project": "mock-project", "region": "", "zone": ""}
    return None
