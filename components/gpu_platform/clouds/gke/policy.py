"""What the policy pack reads from a program's GKE resources: node pools (standalone, inline, the default pool),
the fixes in pulumi-gcp's terms, and the GPUDirect objects ``fabric-resources-agree`` checks."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from gpu_platform import versions
from gpu_platform.cloud_facts.gke.profile import PROFILE
from gpu_platform.cloud_facts.gke.resource_types import CLUSTER, NODE_POOL
from gpu_platform.mirror import parse_reference
from gpu_platform.policy_model.device_plugin_rule import DevicePluginRule
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
DEVICE_PLUGIN_RULE: DevicePluginRule | None = DevicePluginRule(
    name="gke-single-device-plugin",
    description="GKE GPU pools used with the GPU Operator's device plugin carry gke-no-default-nvidia-gpu-device-plugin="
    "true, so GKE's own device plugin does not run next to NVIDIA's.",
    kind="label",
    labels_field="nodeConfig.labels",
    keep_own="e.g. for GKE-managed time-sharing",
)
"""GKE runs its own device plugin on GPU nodes unless the profile's ``default_device_plugin_off_label`` is set."""
KARPENTER_NODE_CLASS_GROUP: str | None = None
"""GKE runs no Karpenter."""
KARPENTER_GPU_KEYS: tuple[str, ...] = ()
KARPENTER_INSTANCE_KEYS: tuple[str, ...] = ()


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
        cloud_time_slicing="GKE gpuSharingConfig TIME_SHARING" if sharing == "TIME_SHARING" else None,
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


# --- GPUDirect: extra NICs, their network objects and Google's NCCL plugin installer -------------------------

GKE_NETWORKING = "kubernetes:networking.gke.io/v1:"
"""Type prefix of GKE's multi-network objects (``GKENetworkParamSet``, ``Network``) as the Kubernetes provider
names them."""
INTERFACES_ANNOTATION = "networking.gke.io/interfaces"
"""The pod annotation attaching extra networks (GKE "Set up multi-network support for Pods")."""
GPUDIRECT_INSTALLERS = {
    ("tcpx", "amd64"): versions.NCCL_TCPX_INSTALLER_IMAGE,
    ("tcpxo", "amd64"): versions.NCCL_TCPXO_INSTALLER_IMAGE,
    **{("rdma", arch): image for arch, image in versions.NCCL_GIB_INSTALLER_IMAGES.items()},
}
"""The NCCL plugin installer image of each GPUDirect path and node architecture (A4X's Arm nodes run the arm64
gIB build); any tag of its repository counts, from any registry (a mirror keeps the repository's path)."""


def _images(obj: Any) -> Iterator[str]:
    if isinstance(obj, Mapping):
        for key, value in obj.items():
            if key == "image" and isinstance(value, str):
                yield value
            else:
                yield from _images(value)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            yield from _images(value)


def _interface_networks(obj: Any) -> Iterator[str]:
    """Networks named by every ``networking.gke.io/interfaces`` annotation in a spec (pods, pod templates)."""
    if isinstance(obj, Mapping):
        text = as_map(obj.get("annotations")).get(INTERFACES_ANNOTATION)
        if isinstance(text, str):
            try:
                entries = json.loads(text)
            except ValueError:
                entries = []
            for e in entries if isinstance(entries, list) else []:
                if isinstance(e, Mapping) and isinstance(e.get("network"), str) and e["network"] != "default":
                    yield e["network"]
        for value in obj.values():
            yield from _interface_networks(value)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            yield from _interface_networks(value)


def _gpudirect_pool_findings(
    resources: list[PolicyResource], pools: Sequence[NodePoolView]
) -> Iterator[tuple[str, str]]:
    """A GPUDirect machine's pool attaches every extra NIC, each has a GKENetworkParamSet, and the path's NCCL
    plugin installer runs (when the program manages the cluster's objects)."""
    params = [r for r in resources if r.type == GKE_NETWORKING + "GKENetworkParamSet"]
    named = {
        (get(as_map(r.props.get("spec")), "vpc"), get(as_map(r.props.get("spec")), "vpcSubnet"))
        for r in params
    }
    manages_cluster = any(r.type.startswith("kubernetes:") for r in resources)
    repos = {
        parse_reference(image).path
        for r in resources
        if r.type == "kubernetes:apps/v1:DaemonSet"
        for image in _images(r.props.get("spec"))
    }
    for pool in pools:
        if pool.cloud != PROFILE.name:
            continue  # only GKE pools attach extra NICs
        machine = PROFILE.machine(pool.machine) if pool.machine else None
        if machine is None or machine.gpudirect is None or not pool.extra_nics:
            continue
        g, nics = machine.gpudirect, pool.extra_nics
        if len(nics) != len(g.nics):
            yield (
                pool.resource.urn,
                f"GKE pool {pool.display} attaches {len(nics)} extra NICs; {machine.name} has {len(g.nics)} for "
                f"{g.display} ({', '.join(n.network for n in g.nics)}): attach one network per NIC, in order.",
            )
        if not manages_cluster:
            continue
        for net, sub in nics:
            if net is not None and sub is not None and (net, sub) not in named:
                yield (
                    pool.resource.urn,
                    f"GKE pool {pool.display} attaches VPC '{net}' / subnet '{sub}', which no GKENetworkParamSet "
                    "in the stack names: no pod can attach that NIC (create its GKENetworkParamSet and Network).",
                )
        installer = GPUDIRECT_INSTALLERS.get((g.kind, machine.cpu_arch))
        if installer is not None and parse_reference(installer).path not in repos:
            yield (
                pool.resource.urn,
                f"GKE pool {pool.display} has {g.display} NICs but the stack runs no DaemonSet of Google's NCCL "
                f"plugin installer ({installer}): NCCL falls back to the primary gVNIC.",
            )


def _network_findings(
    resources: list[PolicyResource], pools: Sequence[NodePoolView]
) -> Iterator[tuple[str, str]]:
    """Each ``Network`` names a parameter set the stack creates; each pod interface names a ``Network``."""
    params = {
        get(as_map(r.props.get("metadata")), "name")
        for r in resources
        if r.type == GKE_NETWORKING + "GKENetworkParamSet"
    }
    networks = set()
    for r in (r for r in resources if r.type == GKE_NETWORKING + "Network"):
        networks.add(get(as_map(r.props.get("metadata")), "name"))
        ref = get(as_map(r.props.get("spec")), "parametersRef", "name", default=None)
        if isinstance(ref, str) and ref not in params:
            yield (
                r.urn,
                f"Network '{r.name}' names GKENetworkParamSet '{ref}', which the stack does not create: GKE "
                "leaves the network not ready and pods attaching it stay pending.",
            )
    if not any(p.gpu for p in pools):
        return  # the Networks live in the stack that makes the pools
    for res in (
        r for r in resources if r.type.startswith("kubernetes:") and not r.type.startswith(GKE_NETWORKING)
    ):
        for name in sorted(set(_interface_networks(res.props)) - networks):
            yield (
                res.urn,
                f"{INTERFACES_ANNOTATION} attaches network '{name}', which no Network in the stack defines: the "
                "pod never starts. Use the names of the pool's GPUDirect networks (stack output gpudirectPods).",
            )


def fabric_findings(
    resources: list[PolicyResource], pools: Sequence[NodePoolView]
) -> Iterator[tuple[str, str]]:
    """GKE GPUDirect's part of ``fabric-resources-agree`` as ``(urn, message)``: ``pools`` are every node pool of
    the stack, of any cloud."""
    yield from _gpudirect_pool_findings(resources, pools)
    yield from _network_findings(resources, pools)
