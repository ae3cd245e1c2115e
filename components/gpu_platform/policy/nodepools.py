"""Node pools as any Pulumi program declares them on GKE, EKS and AKS, read into one shape.

Covers standalone pools (``gcp:container/nodePool:NodePool``, ``aws:eks/nodeGroup:NodeGroup``,
``azure-native:containerservice:AgentPool``, classic ``azure:containerservice/kubernetesClusterNodePool``)
and pools declared inline (``gcp:container/cluster:Cluster.nodePools`` / default ``nodeConfig``,
``azure-native:containerservice:ManagedCluster.agentPoolProfiles``). Whether a pool has GPUs comes
from the library's machine catalog plus generic family patterns, so programs using machine types
the catalog does not list are still checked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpu_platform.clouds import PROFILES
from gpu_platform.clouds.aks.profile import SPOT_TAINT as AKS_SPOT_TAINT
from gpu_platform.policy.kube import taint_from_object, taint_from_string
from gpu_platform.policy.model import PolicyResource, as_list, as_map, get, is_unknown
from gpu_platform.pools import Taint

GKE_NODE_POOL = "gcp:container/nodePool:NodePool"
GKE_CLUSTER = "gcp:container/cluster:Cluster"
EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
_AKS_AGENT_POOL = re.compile(r"^azure-native:containerservice(/v[\w]+)?:AgentPool$")
_AKS_MANAGED_CLUSTER = re.compile(r"^azure-native:containerservice(/v[\w]+)?:ManagedCluster$")
AZURE_CLASSIC_NODE_POOL = "azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool"

# GKE families whose GPUs come with the machine shape (no guest_accelerators block needed).
_GKE_GPU_FAMILIES = re.compile(r"^(a2|a3|a4|a4x|g2|g4)-")
# EC2 NVIDIA GPU families (AWS "EKS optimized accelerated AMI" support list and the catalog).
_EC2_GPU_FAMILIES = re.compile(
    r"^(g4dn|g5|g5g|g6|g6e|g6f|gr6|gr6f|g7e|p3|p3dn|p4d|p4de|p5|p5e|p5en|p6-b200|p6-b300|p6e-gb200)\."
)
# Azure N-series carry NVIDIA GPUs, except the AMD sizes (NVv4, MI300X).
_AZURE_GPU_SIZES = re.compile(r"^standard_n[cdv]", re.IGNORECASE)
_AZURE_AMD_SIZES = re.compile(r"^standard_nv\d+as_v4$|mi\d{3}", re.IGNORECASE)

EKS_GPU_AMI = re.compile(r"NVIDIA|^AL2_x86_64_GPU$")


@dataclass(frozen=True)
class NodePoolView:
    """One node pool; ``None`` in a field means the program leaves it unknown at preview time."""

    resource: PolicyResource
    cloud: str
    """``gke``, ``eks`` or ``aks``."""
    name: str
    prefix: str
    """Property path of the pool inside its resource (``nodePools[1].``), empty for standalone pools."""
    machine: str | None
    gpu: bool
    taints: tuple[Taint, ...] | None
    """Taints the program sets, Kubernetes spelling."""
    cloud_taints: tuple[Taint, ...] = ()
    """Taints the cloud adds by itself (AKS spot)."""
    labels: Mapping[str, Any] | None = None
    cloud_driver: bool | None = None
    """The cloud installs the NVIDIA driver on these nodes (GKE driver install, EKS NVIDIA AMI, AKS)."""
    ami_type: str | None = None
    gke_sharing: str | None = None
    """GKE-managed ``gpuSharingConfig.gpuSharingStrategy`` (``TIME_SHARING`` / ``MPS``)."""
    size_fields: tuple[str, ...] = ()
    """Node-count properties the autoscaler changes, which must be in ``ignoreChanges``."""
    taint_fix: str | None = None
    """How to add the GPU taint when it is not the cloud pool's own spelling (Karpenter NodePools)."""

    @property
    def display(self) -> str:
        details = [d for d in (self.prefix.rstrip("."), self.machine) if d]
        return f"'{self.name}'" + (f" ({', '.join(details)})" if details else "")

    @property
    def bottlerocket(self) -> bool:
        """The node image runs its own device plugin (EKS Bottlerocket), per the cloud's image table."""
        return bool(self.ami_type) and PROFILES[self.cloud].image_ships_device_plugin(str(self.ami_type))

    def label(self, key: str) -> Any:
        return None if self.labels is None else self.labels.get(key)


def _known_str(value: Any) -> str | None:
    return None if value is None or is_unknown(value) else str(value)


def gke_machine_has_gpu(machine: str | None) -> bool:
    if not machine:
        return False
    m = PROFILES["gke"].machine(machine)
    if m is not None:
        return not m.allowed_gpu_counts  # N1 takes attached GPUs: only guest accelerators make it a GPU pool
    return bool(_GKE_GPU_FAMILIES.match(machine))


def ec2_instance_has_gpu(instance: str | None) -> bool:
    return bool(instance) and (
        PROFILES["eks"].machine(str(instance)) is not None or bool(_EC2_GPU_FAMILIES.match(str(instance)))
    )


def azure_size_has_gpu(size: str | None) -> bool:
    if not size:
        return False
    if PROFILES["aks"].machine(size) is not None:
        return True
    return bool(_AZURE_GPU_SIZES.match(size)) and not _AZURE_AMD_SIZES.search(size)


def _taints(items: Any, parse: Any) -> tuple[Taint, ...] | None:
    if is_unknown(items) or any(is_unknown(i) for i in as_list(items)):
        return None
    out = [parse(i) for i in as_list(items)]
    return None if any(t is None for t in out) else tuple(t for t in out if t is not None)


def _labels(value: Any) -> Mapping[str, Any] | None:
    return None if is_unknown(value) else as_map(value)


def _gke_pool(res: PolicyResource, pool: Mapping[str, Any], prefix: str, name: str) -> NodePoolView:
    node_config = as_map(pool.get("nodeConfig"))
    machine = _known_str(node_config.get("machineType"))
    accels = node_config.get("guestAccelerators")
    gpu = gke_machine_has_gpu(machine) or is_unknown(accels)
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
        sharing = _known_str(strategy) or sharing
    if gpu and not as_list(accels) and not is_unknown(accels):
        driver = True  # GPU shape with no accelerator block: GKE's default driver install applies
    size_fields: tuple[str, ...] = ()
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
        taints=_taints(node_config.get("taints"), taint_from_object),
        labels=_labels(node_config.get("labels")),
        cloud_driver=driver if gpu else None,
        gke_sharing=sharing,
        size_fields=size_fields,
    )


def _eks_group(res: PolicyResource) -> NodePoolView:
    p = res.props
    ami = _known_str(p.get("amiType"))
    instances = [i for i in as_list(p.get("instanceTypes")) if isinstance(i, str)]
    gpu = bool(ami and EKS_GPU_AMI.search(ami)) or any(ec2_instance_has_gpu(i) for i in instances)
    driver: bool | None = None
    if gpu and ami and ami != "CUSTOM":
        driver = bool(EKS_GPU_AMI.search(ami))
    scaling = as_map(p.get("scalingConfig"))
    lo, hi = scaling.get("minSize"), scaling.get("maxSize")
    autoscaled = is_unknown(lo) or is_unknown(hi) or lo != hi
    size_fields = (
        ("scalingConfig.desiredSize",) if autoscaled and scaling.get("desiredSize") is not None else ()
    )
    return NodePoolView(
        resource=res,
        cloud="eks",
        name=_known_str(p.get("nodeGroupName")) or res.name,
        prefix="",
        machine=", ".join(instances) or None,
        gpu=gpu,
        taints=_taints(p.get("taints"), taint_from_object),
        labels=_labels(p.get("labels")),
        cloud_driver=driver,
        ami_type=ami,
        size_fields=size_fields,
    )


def _aks_pool(
    res: PolicyResource, pool: Mapping[str, Any], prefix: str, name: str, classic: bool = False
) -> NodePoolView:
    size = _known_str(pool.get("vmSize"))
    gpu = azure_size_has_gpu(size)
    spot = (pool.get("priority") if classic else pool.get("scaleSetPriority")) == "Spot"
    driver_setting = get(pool, "gpuProfile", "driver")
    driver: bool | None = None
    if gpu and not classic and not is_unknown(driver_setting):
        driver = driver_setting != "None"  # AKS installs the driver unless told "None"
    count_key = "nodeCount" if classic else "count"
    autoscale = (
        pool.get("autoScalingEnabled", pool.get("enableAutoScaling"))
        if classic
        else pool.get("enableAutoScaling")
    )
    size_fields = (f"{prefix}{count_key}",) if autoscale is True and pool.get(count_key) is not None else ()
    return NodePoolView(
        resource=res,
        cloud="aks",
        name=name,
        prefix=prefix,
        machine=size,
        gpu=gpu,
        taints=_taints(pool.get("nodeTaints"), taint_from_string),
        cloud_taints=(AKS_SPOT_TAINT,) if spot and not classic else (),
        labels=_labels(pool.get("nodeLabels")),
        cloud_driver=driver,
        size_fields=size_fields,
    )


# --- Karpenter NodePools: EKS and AKS Node Auto Provisioning -----------------------------------

KARPENTER_NODE_POOL = re.compile(r"^kubernetes:karpenter\.sh/v1(beta1)?:NodePool$")
_KARPENTER_CLOUD = {"karpenter.k8s.aws": "eks", "karpenter.azure.com": "aks"}
_GPU_COUNT_KEYS = (
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-gpu-manufacturer",
    "karpenter.azure.com/sku-gpu-count",
    "karpenter.azure.com/sku-gpu-name",
    "karpenter.azure.com/sku-gpu-manufacturer",
)
"""Requirements that only GPU instances satisfy (any positive count, any name)."""
KARPENTER_TAINT_FIX = (
    'spec.template.spec.taints: [{key: "nvidia.com/gpu", value: "present", effect: "NoSchedule"}]'
)


def _positive(values: list[Any]) -> bool:
    try:
        return any(float(v) >= 0 for v in values)  # Gt 0 / Gte 1: some GPUs
    except (TypeError, ValueError):
        return False


def _requirement_wants_gpu(req: Mapping[str, Any]) -> bool:
    key, op = req.get("key"), req.get("operator")
    values = [v for v in as_list(req.get("values")) if isinstance(v, str)]
    if op in ("NotIn", "DoesNotExist"):
        return False
    if key in _GPU_COUNT_KEYS:
        if op in ("Gt", "Gte"):
            return _positive(values)
        return op == "Exists" or any(v not in ("0", "") for v in values)
    if op != "In":
        return False
    if key == "node.kubernetes.io/instance-type":
        return any(ec2_instance_has_gpu(v) or azure_size_has_gpu(v) for v in values)
    if key == "karpenter.azure.com/sku-name":
        return any(azure_size_has_gpu(v) for v in values)
    if key == "karpenter.k8s.aws/instance-family":
        return any(_EC2_GPU_FAMILIES.match(f"{v}.") for v in values)
    if key == "karpenter.k8s.aws/instance-category":
        return any(v in ("g", "p") for v in values)
    return False


def _karpenter_pool(res: PolicyResource) -> NodePoolView:
    spec = as_map(res.props.get("spec"))
    template = as_map(spec.get("template"))
    tspec = as_map(template.get("spec"))
    requirements = tspec.get("requirements")
    group = get(tspec, "nodeClassRef", "group")
    keys = " ".join(str(get(r, "key", default="")) for r in as_list(requirements))
    cloud = _KARPENTER_CLOUD.get(str(group)) or ("aks" if "karpenter.azure.com" in keys else "eks")
    gpu_limit = get(spec, "limits", "nvidia.com/gpu")
    gpu = (
        is_unknown(requirements)
        or any(isinstance(r, Mapping) and _requirement_wants_gpu(r) for r in as_list(requirements))
        or (gpu_limit is not None and not is_unknown(gpu_limit) and str(gpu_limit) not in ("0", ""))
    )
    instances = [
        v
        for r in as_list(requirements)
        if isinstance(r, Mapping)
        and r.get("key") in ("node.kubernetes.io/instance-type", "karpenter.azure.com/sku-name")
        for v in as_list(r.get("values"))
        if isinstance(v, str)
    ]
    return NodePoolView(
        resource=res,
        cloud=cloud,
        name=_known_str(get(res.props, "metadata", "name")) or res.name,
        prefix="",
        machine=", ".join(instances) or None,
        gpu=gpu,
        taints=_taints(tspec.get("taints", []), taint_from_object),
        labels=_labels(as_map(template.get("metadata")).get("labels", {})),
        taint_fix=KARPENTER_TAINT_FIX,
    )


# --- end Karpenter NodePools ------------------------------------------------------------------------------


def node_pools(res: PolicyResource) -> list[NodePoolView]:
    """Every node pool a resource declares (none for resources that are not pools or clusters)."""
    p = res.props
    if res.type == GKE_NODE_POOL:
        return [_gke_pool(res, p, "", _known_str(p.get("name")) or res.name)]
    if res.type == GKE_CLUSTER:
        out = []
        if isinstance(p.get("nodeConfig"), Mapping) and p.get("removeDefaultNodePool") is not True:
            out.append(_gke_pool(res, {"nodeConfig": p["nodeConfig"]}, "", f"{res.name} default pool"))
        for i, pool in enumerate(as_list(p.get("nodePools"))):
            if isinstance(pool, Mapping):
                out.append(
                    _gke_pool(
                        res, pool, f"nodePools[{i}].", _known_str(pool.get("name")) or f"{res.name}[{i}]"
                    )
                )
        return out
    if res.type == EKS_NODE_GROUP:
        return [_eks_group(res)]
    if _AKS_AGENT_POOL.match(res.type):
        return [_aks_pool(res, p, "", _known_str(p.get("agentPoolName")) or res.name)]
    if _AKS_MANAGED_CLUSTER.match(res.type):
        return [
            _aks_pool(
                res, pool, f"agentPoolProfiles[{i}].", _known_str(pool.get("name")) or f"{res.name}[{i}]"
            )
            for i, pool in enumerate(as_list(p.get("agentPoolProfiles")))
            if isinstance(pool, Mapping)
        ]
    if res.type == AZURE_CLASSIC_NODE_POOL:
        return [_aks_pool(res, p, "", _known_str(p.get("name")) or res.name, classic=True)]
    if KARPENTER_NODE_POOL.match(res.type):
        return [_karpenter_pool(res)]
    return []


def gpu_pools(resources: list[PolicyResource]) -> list[NodePoolView]:
    return [pool for r in resources for pool in node_pools(r) if pool.gpu]


__all__ = ["NodePoolView", "gpu_pools", "node_pools"]
