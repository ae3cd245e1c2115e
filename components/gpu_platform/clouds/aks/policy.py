"""What the policy pack reads from a program's AKS resources: agent pools (standalone, inline in the managed
cluster, classic azurerm node pools) and the fixes in azure-native's terms."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from gpu_platform.cloud_facts.aks.profile import PROFILE, SPOT_TAINT
from gpu_platform.policy_model.device_plugin_rule import DevicePluginRule
from gpu_platform.policy_model.kube import format_taint, taint_from_string
from gpu_platform.policy_model.model import PolicyResource, as_list, get, is_unknown
from gpu_platform.policy_model.pool_view import NodePoolView, known_str, labels_of, taints_of
from gpu_platform.pools import GPU_TAINT

_AGENT_POOL = re.compile(r"^azure-native:containerservice(/v[\w]+)?:AgentPool$")
_MANAGED_CLUSTER = re.compile(r"^azure-native:containerservice(/v[\w]+)?:ManagedCluster$")
CLASSIC_NODE_POOL = "azure:containerservice/kubernetesClusterNodePool:KubernetesClusterNodePool"
_GPU_SIZES = re.compile(r"^standard_n[cdv]", re.IGNORECASE)
"""Azure N-series carry NVIDIA GPUs, except the AMD sizes (NVv4, MI300X)."""
_AMD_SIZES = re.compile(r"^standard_nv\d+as_v4$|mi\d{3}", re.IGNORECASE)
TAINT_FIX = f'nodeTaints: ["{format_taint(GPU_TAINT)}"]'
SIZE_FIGHT = "fails: AKS refuses to scale an autoscaled pool by hand"
SIZE_FIX = 'add ignore_changes=["{field}"] and keep only an initial count'
DRIVER_SOURCE = 'AKS installs it (gpuProfile.driver is not "None")'
DRIVER_FIX = (
    'set gpuProfile.driver "None" on the pool, or keep the AKS driver and set driver.enabled=false '
    "and toolkit.enabled=false"
)
DEVICE_PLUGIN_RULE: DevicePluginRule | None = None
"""No device plugin of the cloud's own to keep off."""
KARPENTER_NODE_CLASS_GROUP: str | None = "karpenter.azure.com"
KARPENTER_GPU_KEYS: tuple[str, ...] = (
    "karpenter.azure.com/sku-gpu-count",
    "karpenter.azure.com/sku-gpu-name",
    "karpenter.azure.com/sku-gpu-manufacturer",
)
"""NAP NodePool requirement keys that only GPU sizes satisfy (any positive count, any name)."""
KARPENTER_INSTANCE_KEYS: tuple[str, ...] = ("karpenter.azure.com/sku-name",)
"""Requirement keys naming VM sizes besides ``node.kubernetes.io/instance-type``."""


def machine_has_gpu(size: str | None) -> bool:
    if not size:
        return False
    if PROFILE.machine(size) is not None:
        return True
    return bool(_GPU_SIZES.match(size)) and not _AMD_SIZES.search(size)


def karpenter_requirement_wants_gpu(key: Any, values: list[str]) -> bool:
    """An ``In`` requirement of an AKS NAP NodePool that only GPU sizes satisfy."""
    return key == "karpenter.azure.com/sku-name" and any(machine_has_gpu(v) for v in values)


def _pool(
    res: PolicyResource, pool: Mapping[str, Any], prefix: str, name: str, classic: bool = False
) -> NodePoolView:
    size = known_str(pool.get("vmSize"))
    gpu = machine_has_gpu(size)
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
        taints=taints_of(pool.get("nodeTaints"), taint_from_string),
        cloud_taints=(SPOT_TAINT,) if spot and not classic else (),
        labels=labels_of(pool.get("nodeLabels")),
        cloud_driver=driver,
        size_fields=size_fields,
    )


def node_pools(res: PolicyResource) -> list[NodePoolView] | None:
    """The pools an AKS resource declares; ``None`` for a type that is not AKS's."""
    p = res.props
    if _AGENT_POOL.match(res.type):
        return [_pool(res, p, "", known_str(p.get("agentPoolName")) or res.name)]
    if _MANAGED_CLUSTER.match(res.type):
        return [
            _pool(res, pool, f"agentPoolProfiles[{i}].", known_str(pool.get("name")) or f"{res.name}[{i}]")
            for i, pool in enumerate(as_list(p.get("agentPoolProfiles")))
            if isinstance(pool, Mapping)
        ]
    if res.type == CLASSIC_NODE_POOL:
        return [_pool(res, p, "", known_str(p.get("name")) or res.name, classic=True)]
    return None


def fabric_findings(
    resources: list[PolicyResource], pools: Sequence[NodePoolView]
) -> Iterator[tuple[str, str]]:
    """AKS adds no findings to ``fabric-resources-agree``: the rule checks InfiniBand's NicClusterPolicy itself."""
    return iter(())
