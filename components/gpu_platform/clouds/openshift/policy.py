"""What the policy pack reads from a program's OpenShift resources: GPU MachineSets
(``machine.openshift.io/v1beta1``), whose node taints and labels are in ``spec.template.spec``.

A MachineSet has GPUs when its provider spec's machine type is a GPU machine of the catalog of the platform
it runs on (AWS ``instanceType``, Azure ``vmSize``, GCP ``machineType``), when it attaches GPUs (GCP ``gpus``),
or when its nodes carry the autoscaler's ``cluster-api/accelerator`` label."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from gpu_platform.cloud_facts import PROFILES
from gpu_platform.clouds.openshift.machine_set_plan import ACCELERATOR_LABEL, PLATFORMS
from gpu_platform.policy_model.device_plugin_rule import DevicePluginRule
from gpu_platform.policy_model.kube import format_taint, taint_from_object
from gpu_platform.policy_model.model import PolicyResource, as_list, as_map, get, is_unknown
from gpu_platform.policy_model.pool_view import NodePoolView, known_str, labels_of, taints_of
from gpu_platform.pools import GPU_TAINT

MACHINE_SET = "kubernetes:machine.openshift.io/v1beta1:MachineSet"
TAINT_FIX = (
    "spec.template.spec.taints: "
    f'[{{key: "{GPU_TAINT.key}", value: "{GPU_TAINT.value}", effect: "{GPU_TAINT.effect}"}}] '
    f"({format_taint(GPU_TAINT)})"
)
SIZE_FIGHT = "sets spec.replicas back, against the cluster autoscaler"
SIZE_FIX = 'add ignore_changes=["{field}"]'
DRIVER_SOURCE = "the node image ships it"
DRIVER_FIX = "leave the driver to the GPU Operator (RHCOS: Driver Toolkit)"
DEVICE_PLUGIN_RULE: DevicePluginRule | None = None
"""No device plugin of the cloud's own to keep off."""
KARPENTER_NODE_CLASS_GROUP: str | None = None
KARPENTER_GPU_KEYS: tuple[str, ...] = ()
KARPENTER_INSTANCE_KEYS: tuple[str, ...] = ()


def machine_has_gpu(name: str | None) -> bool:
    """OpenShift has no machine types of its own: its MachineSets name the platform's."""
    return False


def karpenter_requirement_wants_gpu(key: Any, values: list[str]) -> bool:
    return False


def _machine_type(spec: Any) -> tuple[str | None, bool]:
    """The provider spec's machine type, and whether it is a GPU machine of its platform's catalog."""
    value = as_map(spec)
    for keys in PLATFORMS.values():
        name = known_str(value.get(keys.machine_type))
        if name is not None:
            return name, PROFILES[keys.catalog_cloud].machine(name) is not None
    return None, False


def node_pools(res: PolicyResource) -> list[NodePoolView] | None:
    """The GPU nodes a MachineSet declares; ``None`` for other types."""
    if res.type != MACHINE_SET:
        return None
    node = as_map(get(res.props, "spec", "template", "spec"))
    provider = get(node, "providerSpec", "value")
    machine, catalog_gpu = _machine_type(provider)
    labels = labels_of(as_map(node.get("metadata")).get("labels", {}))
    attached = as_map(provider).get("gpus")
    gpu = (
        catalog_gpu
        or (bool(as_list(attached)) and not is_unknown(attached))
        or (labels is not None and ACCELERATOR_LABEL in labels)
    )
    return [
        NodePoolView(
            resource=res,
            cloud="openshift",
            name=known_str(get(res.props, "metadata", "name")) or res.name,
            prefix="",
            machine=machine,
            gpu=gpu,
            taints=taints_of(node.get("taints", []), taint_from_object),
            labels=labels,
            taint_fix=TAINT_FIX,
        )
    ]


def fabric_findings(
    resources: list[PolicyResource], pools: Sequence[NodePoolView]
) -> Iterator[tuple[str, str]]:
    """OpenShift adds no findings to ``fabric-resources-agree``."""
    return iter(())
