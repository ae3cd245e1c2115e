"""The Google Cloud resource types the library creates, as the offline plan and ``gpu-platform diff`` must know
them: what the provider cannot change in place, what holds state, and the outputs a mock must return."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Mapping
from typing import Any

from gpu_platform.diff_rule import SHARING_CHANGE, DiffRule, changes, gone

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
INSTANCE = "gcp:compute/instance:Instance"
"""A ``GpuDockerHost``'s VM."""

DIFF_RULES: tuple[DiffRule, ...] = (
    # GKE "Node pool updates" (cloud.google.com/kubernetes-engine/docs/concepts/node-pool-upgrade-strategies):
    # changing the machine type, disk type, disk size or node image of an existing pool recreates its nodes with
    # the pool's upgrade strategy (surge by default); terraform-provider-google updates these in place.
    changes(
        NODE_POOL,
        "replaces nodes",
        "GKE changes it in place by recreating every node of the pool (pods evicted)",
        "nodeConfig.machineType",
        "nodeConfig.diskSizeGb",
        "nodeConfig.diskType",
        "nodeConfig.imageType",
    ),
    changes(
        NODE_POOL,
        "reconfigures GPUs",
        "the GPU Operator's MIG manager repartitions the GPUs of every node of the pool, evicting their pods",
        'nodeConfig.labels["nvidia.com/mig.config"]',
        field="nvidia.com/mig.config",
    ),
    changes(
        NODE_POOL,
        "strands queued work",
        SHARING_CHANGE,
        'nodeConfig.labels["gpu-platform.io/sharing"]',
        field="gpu-platform.io/sharing",
    ),
    # terraform-provider-google resource_compute_instance.go: machine_type and guest_accelerator are updated
    # with the instance stopped (allow_stopping_for_update, which the Docker host sets).
    changes(
        INSTANCE,
        "restarts workloads",
        "Compute Engine stops the VM to change its GPUs and starts it again: its Compose services restart at boot",
        "machineType",
        "guestAccelerators",
    ),
    # cloud-init runs the user data (the Compose file and its unit) on first boot only, so the Docker host replaces
    # the VM when it changes (replaceOnChanges), as EC2's user_data_replace_on_change does.
    changes(
        INSTANCE,
        "replaces nodes",
        "a new VM is created with the new Compose file and the old one deleted: its services stop",
        'metadata["user-data"]',
    ),
    gone(
        INSTANCE,
        "deletes data",
        "its boot disk goes with it (auto_delete): whatever the Compose services wrote to the host (model caches, "
        "volumes) is lost",
    ),
)
"""What ``gpu-platform diff`` flags in these resources beyond their replacement (``gpu_platform.diff_rule``)."""
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
