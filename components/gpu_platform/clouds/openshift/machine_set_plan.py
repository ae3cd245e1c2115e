"""GPU MachineSets of an OpenShift cluster, planned from a pool: one ``machine.openshift.io/v1beta1``
MachineSet per zone and, when the pool autoscales, a ``MachineAutoscaler`` for each.

What OpenShift needs on a GPU MachineSet (Red Hat, "Creating a compute machine set" per platform and
"Labeling GPU machine sets for the cluster autoscaler"):

- the node labels and taints go in ``spec.template.spec.metadata.labels`` / ``spec.template.spec.taints``,
  which the machine controller applies to the node: the library's ``nvidia.com/gpu=present:NoSchedule``
  taint and the pool's labels (the same ``scheduling`` facts every other cloud's pools get);
- ``cluster-api/accelerator`` on the node: the cluster autoscaler counts GPUs of the ``ClusterAutoscaler``'s
  ``resourceLimits.gpus[].type`` on nodes whose label has that value;
- a ``MachineAutoscaler`` (``openshift-machine-api``) per MachineSet, or the cluster autoscaler never scales
  it; ``minReplicas: 0`` is allowed on AWS, Azure and GCP, where the machine API annotates the MachineSet
  with the instance's vCPU, memory and GPU count so the autoscaler can build a node from nothing;
- GCP: GPU VMs cannot live-migrate, so ``onHostMaintenance: Terminate``.

The provider spec is the user's copy of a worker MachineSet's (image, subnet, credentials differ per
cluster); the library sets only the machine type, the zone and spot on it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpu_platform.driver import DriverPlan
from gpu_platform.plans.helm import deep_merge
from gpu_platform.pools import GpuPool
from gpu_platform.scheduling import pool_labels, pool_taints

MACHINE_API_NAMESPACE = "openshift-machine-api"
MACHINE_SET_API = "machine.openshift.io/v1beta1"
MACHINE_AUTOSCALER_API = "autoscaling.openshift.io/v1beta1"
ACCELERATOR_LABEL = "cluster-api/accelerator"
"""Node label the OpenShift cluster autoscaler matches against ``resourceLimits.gpus[].type``."""
CLUSTER_LABEL = "machine.openshift.io/cluster-api-cluster"
MACHINE_SET_LABEL = "machine.openshift.io/cluster-api-machineset"
ROLE_LABELS = {
    "machine.openshift.io/cluster-api-machine-role": "worker",
    "machine.openshift.io/cluster-api-machine-type": "worker",
}
MAX_MACHINE_SET_NAME = 57
"""Machines are named ``<machineset>-<5 characters>`` and become node and VM names: a DNS label of 63."""


@dataclass(frozen=True)
class PlatformKeys:
    """Where a platform's provider spec keeps what the library sets."""

    catalog_cloud: str
    """The library cloud whose machine catalog lists this platform's instance types."""
    machine_type: str
    zone: tuple[str, ...]
    spot: tuple[str, Any]
    extra: Mapping[str, Any]


PLATFORMS: dict[str, PlatformKeys] = {
    "aws": PlatformKeys(
        "eks", "instanceType", ("placement", "availabilityZone"), ("spotMarketOptions", {}), {}
    ),
    "azure": PlatformKeys("aks", "vmSize", ("zone",), ("spotVMOptions", {}), {}),
    "gcp": PlatformKeys(
        "gke", "machineType", ("zone",), ("preemptible", True), {"onHostMaintenance": "Terminate"}
    ),
}


@dataclass(frozen=True)
class ZoneMachineSet:
    zone: str
    machine_set: dict[str, Any]
    machine_autoscaler: dict[str, Any] | None


@dataclass(frozen=True)
class MachineSetPlan:
    pool: GpuPool
    driver: DriverPlan
    accelerator: str
    """Value of ``cluster-api/accelerator``: the ``type`` of the ``ClusterAutoscaler``'s GPU limit."""
    zones: tuple[ZoneMachineSet, ...]

    @property
    def gpu_limit(self) -> dict[str, Any]:
        """The ``ClusterAutoscaler`` ``resourceLimits.gpus`` entry these MachineSets need (one per cluster,
        so the library reports it rather than owning the cluster's singleton)."""
        return {"type": self.accelerator, "min": 0, "max": self.pool.max_nodes * self.pool.gpus_per_node}


def accelerator_type(pool: GpuPool) -> str:
    return f"nvidia-{pool.gpu.key}"


def machine_set_name(infrastructure_id: str, pool: GpuPool, zone: str) -> str:
    return f"{infrastructure_id}-gpu-{pool.name}-{zone}"


def split_total(total: int, parts: int) -> list[int]:
    """``total`` nodes over ``parts`` zones, the first zones taking the remainder: per-zone sizes that add up."""
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def _provider_spec(
    settings: Mapping[str, Any], keys: PlatformKeys, pool: GpuPool, zone: str
) -> dict[str, Any]:
    spec = copy.deepcopy(
        deep_merge(settings["provider_spec"], settings.get("zone_provider_specs", {}).get(zone, {}))
    )
    spec[keys.machine_type] = settings["instance_type"]
    if settings.get("attached_gpu"):  # GCP N1: GPUs attached to the VM, not part of the machine type
        spec["gpus"] = [{"type": settings["attached_gpu"], "count": pool.gpus_per_node}]
    at = spec
    for key in keys.zone[:-1]:
        at = at.setdefault(key, {})
    at[keys.zone[-1]] = zone
    spec.update(keys.extra)
    spot_key, spot_value = keys.spot
    if pool.spot:
        spec[spot_key] = copy.deepcopy(spot_value)
    else:
        spec.pop(spot_key, None)
    return spec


def machine_set_plan(pool: GpuPool, driver: DriverPlan, settings: Mapping[str, Any]) -> MachineSetPlan:
    """The MachineSets (and MachineAutoscalers) of ``pool`` from checked ``settings`` (the component's
    arguments: infrastructure_id, platform, instance_type, provider_spec, zones)."""
    infra, keys = settings["infrastructure_id"], PLATFORMS[settings["platform"]]
    zones: Sequence[str] = settings["zones"]
    accelerator = accelerator_type(pool)
    labels = {**pool_labels(pool, driver), ACCELERATOR_LABEL: accelerator}
    taints = [{"key": t.key, "value": t.value, "effect": t.effect} for t in pool_taints(pool)]
    lows, highs = split_total(pool.min_nodes, len(zones)), split_total(pool.max_nodes, len(zones))
    planned = []
    for zone, low, high in zip(zones, lows, highs, strict=True):
        name = machine_set_name(infra, pool, zone)
        selector = {CLUSTER_LABEL: infra, MACHINE_SET_LABEL: name}
        machine_set = {
            "apiVersion": MACHINE_SET_API,
            "kind": "MachineSet",
            "metadata": {"name": name, "namespace": MACHINE_API_NAMESPACE, "labels": {CLUSTER_LABEL: infra}},
            "spec": {
                "replicas": low,
                "selector": {"matchLabels": selector},
                "template": {
                    "metadata": {"labels": {**selector, **ROLE_LABELS}},
                    "spec": {
                        "metadata": {"labels": labels},
                        "taints": taints,
                        "providerSpec": {"value": _provider_spec(settings, keys, pool, zone)},
                    },
                },
            },
        }
        autoscaler = None
        if high > low:
            autoscaler = {
                "apiVersion": MACHINE_AUTOSCALER_API,
                "kind": "MachineAutoscaler",
                "metadata": {"name": name, "namespace": MACHINE_API_NAMESPACE},
                "spec": {
                    "minReplicas": low,
                    "maxReplicas": high,
                    "scaleTargetRef": {"apiVersion": MACHINE_SET_API, "kind": "MachineSet", "name": name},
                },
            }
        planned.append(ZoneMachineSet(zone, machine_set, autoscaler))
    return MachineSetPlan(pool, driver, accelerator, tuple(planned))
