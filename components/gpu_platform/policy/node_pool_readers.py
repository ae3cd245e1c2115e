"""Node pools as any Pulumi program declares them, read into one shape (``policy_model.pool_view.NodePoolView``).

Each cloud reads its own resource types (``gpu_platform/clouds/<cloud>/policy.py``: standalone and inline pools,
whether a machine has GPUs from the library's catalog plus generic family patterns, so programs using machine
types the catalog does not list are still checked); Karpenter NodePools (EKS Karpenter, AKS Node Auto
Provisioning) are read here, asking each cloud what its requirements mean.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from gpu_platform.cloud_facts import PROFILES
from gpu_platform.clouds.registry import policy_reader
from gpu_platform.policy_model.kube import taint_from_object
from gpu_platform.policy_model.model import PolicyResource, as_list, as_map, get, is_unknown
from gpu_platform.policy_model.pool_view import NodePoolView, known_str, labels_of, taints_of

__all__ = ["NodePoolView", "cloud_policy", "gpu_pools", "node_pools"]


@functools.cache
def readers() -> dict[str, ModuleType]:
    """Each cloud's policy module (``clouds.registry.policy_reader``), imported on first use."""
    return {name: module for name in PROFILES if (module := policy_reader(name)) is not None}


def cloud_policy(cloud: str) -> ModuleType:
    """The policy module of a cloud with pools: its fixes and messages in its SDK's terms."""
    return readers()[cloud]


# --- Karpenter NodePools: EKS and AKS Node Auto Provisioning -----------------------------------

KARPENTER_NODE_POOL = re.compile(r"^kubernetes:karpenter\.sh/v1(beta1)?:NodePool$")
INSTANCE_TYPE_KEY = "node.kubernetes.io/instance-type"


@functools.cache
def _gpu_count_keys() -> tuple[str, ...]:
    """Requirements that only GPU instances satisfy (any positive count, any name): each cloud's
    ``KARPENTER_GPU_KEYS`` (a tuple: a key read from a program may be any value, hashable or not)."""
    return tuple(k for c in readers().values() for k in c.KARPENTER_GPU_KEYS)


@functools.cache
def _instance_keys() -> tuple[str, ...]:
    """Requirements naming instance types: the well-known label and each cloud's ``KARPENTER_INSTANCE_KEYS``."""
    return (INSTANCE_TYPE_KEY, *(k for c in readers().values() for k in c.KARPENTER_INSTANCE_KEYS))


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
    if key in _gpu_count_keys():
        if op in ("Gt", "Gte"):
            return _positive(values)
        return op == "Exists" or any(v not in ("0", "") for v in values)
    if op != "In":
        return False
    if key == INSTANCE_TYPE_KEY:
        return any(c.machine_has_gpu(v) for c in readers().values() for v in values)
    return any(c.karpenter_requirement_wants_gpu(key, values) for c in readers().values())


def _karpenter_cloud(group: str, requirement_keys: str) -> str:
    """The cloud a NodePool runs on: its node class's API group, else the requirement keys it uses."""
    groups = {
        c.KARPENTER_NODE_CLASS_GROUP: name for name, c in readers().items() if c.KARPENTER_NODE_CLASS_GROUP
    }
    if group in groups:
        return groups[group]
    named = [cloud for g, cloud in groups.items() if g in requirement_keys]
    # Ambiguous or silent: the first cloud that runs Karpenter in registry order (EKS, where it began).
    return named[0] if len(named) == 1 else next(iter(groups.values()))


def _karpenter_pool(res: PolicyResource) -> NodePoolView:
    spec = as_map(res.props.get("spec"))
    template = as_map(spec.get("template"))
    tspec = as_map(template.get("spec"))
    requirements = tspec.get("requirements")
    group = get(tspec, "nodeClassRef", "group")
    keys = " ".join(str(get(r, "key", default="")) for r in as_list(requirements))
    cloud = _karpenter_cloud(str(group), keys)
    gpu_limit = get(spec, "limits", "nvidia.com/gpu")
    gpu = (
        is_unknown(requirements)
        or any(isinstance(r, Mapping) and _requirement_wants_gpu(r) for r in as_list(requirements))
        or (gpu_limit is not None and not is_unknown(gpu_limit) and str(gpu_limit) not in ("0", ""))
    )
    instances = [
        v
        for r in as_list(requirements)
        if isinstance(r, Mapping) and r.get("key") in _instance_keys()
        for v in as_list(r.get("values"))
        if isinstance(v, str)
    ]
    return NodePoolView(
        resource=res,
        cloud=cloud,
        name=known_str(get(res.props, "metadata", "name")) or res.name,
        prefix="",
        machine=", ".join(instances) or None,
        gpu=gpu,
        taints=taints_of(tspec.get("taints", []), taint_from_object),
        labels=labels_of(as_map(template.get("metadata")).get("labels", {})),
        taint_fix=KARPENTER_TAINT_FIX,
    )


# --- end Karpenter NodePools ------------------------------------------------------------------------------


def node_pools(res: PolicyResource) -> list[NodePoolView]:
    """Every node pool a resource declares (none for resources that are not pools or clusters)."""
    for reader in readers().values():
        found = reader.node_pools(res)
        if found is not None:
            return list(found)
    if KARPENTER_NODE_POOL.match(res.type):
        return [_karpenter_pool(res)]
    return []


def gpu_pools(resources: list[PolicyResource]) -> list[NodePoolView]:
    return [pool for r in resources for pool in node_pools(r) if pool.gpu]
