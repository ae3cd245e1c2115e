"""What the policy pack reads from a program's GKE resources: node pools (standalone, inline, the default pool)
and the fixes in pulumi-gcp's terms."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gpu_platform.cloud_facts.gke.profile import PROFILE
from gpu_platform.cloud_facts.gke.resource_types import CLUSTER, NODE_POOL
from gpu_platform.policy_model.kube import effect_to_cloud, taint_from_object
from gpu_platform.policy_model.model import PolicyResource, as_list, as_map, get, is_unknown
from gpu_platform.policy_model.pool_view import NodePoolView, known_str, labels_of, taints_of
from gpu_platform.pools import GPU_TAINT

_GPU_FAMILIES = re.compile(r"^(a2|a3|a4|a4x|g2|g4)-")
"""GKE families whose GPUs come with the machine shape (no guest_accelerators block needed)."""
_CLOUD_TAINT = (
    f'{{key: "{GPU_TAINT.key}", value: "{GPU_TAINT.value}", effect: "{effect_to_cloud(GPU_TAINT.effect)}"}}'
)
TAINT_FIX = f"nodeConfig.taints: [{_CLOUD_TAINT}]"
SIZE_FIGHT = "sets the node count back"
SIZE_FIX = (
    'set ignore_node_count_changes=True or ignore_changes=["{field}"] (or leave node_count unset and '
    "use initial_node_count)"
)
DRIVER_SOURCE = (
    "GKE installs it (guestAccelerators gpuDriverInstallationConfig.gpuDriverVersion is not "
    "INSTALLATION_DISABLED; unset means GKE's default driver)"
)
DRIVER_FIX = (
    "set gpuDriverVersion INSTALLATION_DISABLED with the operator driver on UBUNTU_CONTAINERD, or "
    "keep Google's driver and set driver.enabled=false"
)
KARPENTER_NODE_CLASS_GROUP: str | None = None
"""GKE runs no Karpenter."""


def karpenter_requirement_wants_gpu(key: Any, values: list[str]) -> bool:
    return False


def machine_has_gpu(machine: str | None) -> bool:
    if not machine:
        return False
    m = PROFILE.machine(machine)
    if m is not None:
        return not m.allowed_gpu_counts  # N1 takes attached GPUs: only guest accelerators make it a GPU pool
    return bool(_GPU_FAMILIES.match(machine))


def _pool(res: PolicyResource, pool: Mapping[str, Any], prefix: str, name: str) -> NodePoolView:
    node_config = as_map(pool.get("nodeConfig"))
    machine = known_str(node_config.get("machineType"))
    accels = node_config.get("guestAccelerators")
    gpu = machine_has_gpu(machine) or is_unknown(accels)
    driver: bool | None = None
    sharing = None
    for acc in as_list(accels):
        count = get(acc, "count")
        if is_unknown(count) or (isinstance(count, (int, float)) and count > 0):
            gpu = True
        version = get(acc, "gpuDriverInstallationConfig", "gpuDriverVersion")
        if not is_unknown(version):
            # Unspecified installs GKE's default driver (GKE 1.30.1-gke.1156000 and later).
            driver = version != "INSTALLATION_DISABLED"
        strategy = get(acc, "gpuSharingConfig", "gpuSharingStrategy")
        sharing = known_str(strategy) or sharing
    if gpu and not as_list(accels) and not is_unknown(accels):
        driver = True  # GPU shape with no accelerator block: GKE's default driver install applies
    size_fields: tuple[str, ...] = ()
    nics = get(pool, "networkConfig", "additionalNodeNetworkConfigs", default=[])
    extra_nics = (
        None
        if is_unknown(nics)
        else tuple((known_str(get(n, "network")), known_str(get(n, "subnetwork"))) for n in as_list(nics))
    )
    autoscaling = pool.get("autoscaling")
    autoscaled = isinstance(autoscaling, Mapping) and bool(autoscaling)
    if autoscaled and pool.get("nodeCount") is not None and pool.get("ignoreNodeCountChanges") is not True:
        size_fields = (f"{prefix}nodeCount",)
    return NodePoolView(
        resource=res,
        cloud="gke",
        name=name,
        prefix=prefix,
        machine=machine,
        gpu=gpu,
        taints=taints_of(node_config.get("taints"), taint_from_object),
        labels=labels_of(node_config.get("labels")),
        cloud_driver=driver if gpu else None,
        gke_sharing=sharing,
        size_fields=size_fields,
        extra_nics=extra_nics,
    )


def node_pools(res: PolicyResource) -> list[NodePoolView] | None:
    """The pools a GKE resource declares; ``None`` for a type that is not GKE's."""
    p = res.props
    if res.type == NODE_POOL:
        return [_pool(res, p, "", known_str(p.get("name")) or res.name)]
    if res.type != CLUSTER:
        return None
    out = []
    if isinstance(p.get("nodeConfig"), Mapping) and p.get("removeDefaultNodePool") is not True:
        out.append(_pool(res, {"nodeConfig": p["nodeConfig"]}, "", f"{res.name} default pool"))
    for i, pool in enumerate(as_list(p.get("nodePools"))):
        if isinstance(pool, Mapping):
            out.append(
                _pool(res, pool, f"nodePools[{i}].", known_str(pool.get("name")) or f"{res.name}[{i}]")
            )
    return out
