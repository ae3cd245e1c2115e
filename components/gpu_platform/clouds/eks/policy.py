"""What the policy pack reads from a program's EKS resources: managed node groups, Karpenter requirements that
select GPU instances, and the fixes in pulumi-aws's terms."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from gpu_platform.cloud_facts.eks.profile import PROFILE
from gpu_platform.cloud_facts.eks.resource_types import NODE_GROUP
from gpu_platform.policy_model.device_plugin_rule import DevicePluginRule
from gpu_platform.policy_model.kube import effect_to_cloud, taint_from_object
from gpu_platform.policy_model.model import PolicyResource, as_list, as_map, is_unknown
from gpu_platform.policy_model.pool_view import NodePoolView, known_str, labels_of, taints_of
from gpu_platform.pools import GPU_TAINT

_GPU_FAMILIES = re.compile(
    r"^(g4dn|g5|g5g|g6|g6e|g6f|gr6|gr6f|g7e|p3|p3dn|p4d|p4de|p5|p5e|p5en|p6-b200|p6-b300|p6e-gb200)\."
)
"""EC2 NVIDIA GPU families (AWS "EKS optimized accelerated AMI" support list and the catalog)."""
GPU_AMI = re.compile(r"NVIDIA|^AL2_x86_64_GPU$")
_CLOUD_TAINT = (
    f'{{key: "{GPU_TAINT.key}", value: "{GPU_TAINT.value}", effect: "{effect_to_cloud(GPU_TAINT.effect)}"}}'
)
TAINT_FIX = f"taints: [{_CLOUD_TAINT}]"
SIZE_FIGHT = "sets the desired size back and drains the nodes the autoscaler added"
SIZE_FIX = 'add ignore_changes=["{field}"]'
DRIVER_SOURCE = "the {ami} AMI ships it"
DRIVER_FIX = "set driver.enabled=false and toolkit.enabled=false (the AMI has both)"
DEVICE_PLUGIN_RULE: DevicePluginRule | None = DevicePluginRule(
    name="bottlerocket-single-device-plugin",
    description="Bottlerocket NVIDIA nodes already run a device plugin: neither the GPU Operator nor a standalone "
    "device plugin adds a second one there.",
    kind="image",
    images="Bottlerocket",
    dra_fix="use the AL2023 NVIDIA AMI for DRA pools",
)
"""Bottlerocket's NVIDIA AMIs run NVIDIA's device plugin themselves (the profile's images with
``device_plugin="cloud"``)."""
KARPENTER_NODE_CLASS_GROUP: str | None = "karpenter.k8s.aws"
KARPENTER_GPU_KEYS: tuple[str, ...] = (
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-gpu-manufacturer",
)
"""Karpenter NodePool requirement keys that only GPU instances satisfy (any positive count, any name)."""
KARPENTER_INSTANCE_KEYS: tuple[str, ...] = ()
"""Requirement keys naming instance types besides ``node.kubernetes.io/instance-type``."""


def machine_has_gpu(instance: str | None) -> bool:
    return bool(instance) and (
        PROFILE.machine(str(instance)) is not None or bool(_GPU_FAMILIES.match(str(instance)))
    )


def karpenter_requirement_wants_gpu(key: Any, values: list[str]) -> bool:
    """An ``In`` requirement of a Karpenter NodePool that only EC2 GPU instances satisfy."""
    if key == "karpenter.k8s.aws/instance-family":
        return any(_GPU_FAMILIES.match(f"{v}.") for v in values)
    if key == "karpenter.k8s.aws/instance-category":
        return any(v in ("g", "p") for v in values)
    return False


def _group(res: PolicyResource) -> NodePoolView:
    p = res.props
    ami = known_str(p.get("amiType"))
    instances = [i for i in as_list(p.get("instanceTypes")) if isinstance(i, str)]
    gpu = bool(ami and GPU_AMI.search(ami)) or any(machine_has_gpu(i) for i in instances)
    driver: bool | None = None
    if gpu and ami and ami != "CUSTOM":
        driver = bool(GPU_AMI.search(ami))
    scaling = as_map(p.get("scalingConfig"))
    lo, hi = scaling.get("minSize"), scaling.get("maxSize")
    autoscaled = is_unknown(lo) or is_unknown(hi) or lo != hi
    size_fields = (
        ("scalingConfig.desiredSize",) if autoscaled and scaling.get("desiredSize") is not None else ()
    )
    return NodePoolView(
        resource=res,
        cloud="eks",
        name=known_str(p.get("nodeGroupName")) or res.name,
        prefix="",
        machine=", ".join(instances) or None,
        gpu=gpu,
        taints=taints_of(p.get("taints"), taint_from_object),
        labels=labels_of(p.get("labels")),
        cloud_driver=driver,
        ami_type=ami,
        size_fields=size_fields,
    )


def node_pools(res: PolicyResource) -> list[NodePoolView] | None:
    """The pools an EKS resource declares; ``None`` for a type that is not EKS's."""
    return [_group(res)] if res.type == NODE_GROUP else None


def fabric_findings(
    resources: list[PolicyResource], pools: Sequence[NodePoolView]
) -> Iterator[tuple[str, str]]:
    """EKS adds no findings to ``fabric-resources-agree``: the rule checks EFA's device plugin and queues itself."""
    return iter(())
