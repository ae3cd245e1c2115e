"""GKE custom ComputeClass plans: one ``cloud.google.com/v1`` ComputeClass per GPU pool, with
``nodePoolAutoCreation`` so GKE creates (and removes) node pools for pending pods that select the class.

Schema: datreeio/CRDs-catalog ``cloud.google.com/computeclass_v1.json`` (tests/upstream/gke-computeclass,
NEW_COMPONENTS_NOTES.md section 11). One priority rule: the pool's machine type and GPU (type, count,
``driverVersion``, ``gpuSharing`` for GKE-managed time-sharing/MPS/MIG), spot, a specific reservation, zones
and boot disk. ``nodePoolConfig`` carries the pool's labels and taints (GPU taint first) and the image type.

Auto-created pools get GKE's driver and device plugin, so the pool's labels keep the GPU Operator off them
(``nvidia.com/gpu.deploy.operands=false``) and drop ``gke-no-default-nvidia-gpu-device-plugin``; operator
drivers, operator sharing and DRA are refused (``resolve.autoprovisioning``). Pods reach the class with
``nodeSelector: {cloud.google.com/compute-class: <name>}`` (``workload_node_selector``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpu_platform import scheduling
from gpu_platform.catalog.drivers import DriverVersion
from gpu_platform.cloud_facts.gke.profile import NO_DEFAULT_DEVICE_PLUGIN_LABEL, PROFILE, SHARING_STRATEGY
from gpu_platform.cloud_facts.gke.reservations import ReservationPath
from gpu_platform.plans.node_pool_plan import ensure_gpu_taint
from gpu_platform.pools import CapacitySource, GpuPool, Taint

API_VERSION = "cloud.google.com/v1"
COMPUTE_CLASS_LABEL = "cloud.google.com/compute-class"
"""Pods select a ComputeClass with this node selector; GKE labels the auto-created nodes with it."""
DEPLOY_OPERANDS_LABEL = "nvidia.com/gpu.deploy.operands"
"""GPU Operator: ``false`` keeps every operand off the node (GKE's stack runs there)."""
IMAGE_TYPE = {"COS_CONTAINERD": "cos_containerd", "UBUNTU_CONTAINERD": "ubuntu_containerd"}


@dataclass(frozen=True)
class ComputeClassPlan:
    pool: GpuPool
    labels: dict[str, str]
    taints: tuple[Taint, ...]
    driver_version: str = "default"
    host_driver: DriverVersion | None = None

    @property
    def name(self) -> str:
        return self.pool.name

    @property
    def tolerations(self) -> list[dict[str, str]]:
        return scheduling.pool_tolerations(self.pool)

    @property
    def workload_node_selector(self) -> dict[str, str]:
        """What a pod needs in ``nodeSelector`` to get nodes of this class: the class and the pool's labels."""
        return {COMPUTE_CLASS_LABEL: self.name, **scheduling.selector_labels(self.pool)}


def compute_class_labels(pool: GpuPool) -> dict[str, str]:
    labels = scheduling.pool_labels(pool)
    labels.pop(NO_DEFAULT_DEVICE_PLUGIN_LABEL, None)
    labels[DEPLOY_OPERANDS_LABEL] = "false"
    return labels


def capacity_fields(source: CapacitySource) -> dict[str, Any]:
    """A priority rule's provisioning model for one capacity source (the ComputeClass CRD's ``spot``,
    ``reservations`` and ``flexStart``/``maxRunDurationSeconds``; flex-start is never spot, a CEL rule)."""
    if source.reserved and source.affinity == "any":
        return {"spot": False, "reservations": {"affinity": "AnyBestEffort"}}
    if source.reserved:
        assert source.reservation is not None
        path = ReservationPath.parse(source.reservation)
        assert path is not None, "checked by the GKE profile's reservation_problem"
        specific = path.with_project(source.project).compute_class_entry()
        return {"spot": False, "reservations": {"affinity": "Specific", "specific": [specific]}}
    if source.source == "flex-start":
        out: dict[str, Any] = {"flexStart": {"enabled": True}}
        if source.max_run_hours:
            out["maxRunDurationSeconds"] = source.max_run_hours * 3600
        return out
    return {"spot": source.source == "spot"}


def gpu_rules(plan: ComputeClassPlan) -> list[dict[str, Any]]:
    """One priority rule per capacity source, in the pool's order: the same machine and GPU every time, so
    Kueue's quota for the pool (its machine's capacity x ``max_nodes``) holds whichever source GKE uses."""
    base = gpu_rule(plan)
    if not plan.pool.chain:
        return [base]
    shared = {k: v for k, v in base.items() if k not in ("spot", "reservations")}
    return [{**shared, **capacity_fields(s)} for s in plan.pool.sources]


def gpu_rule(plan: ComputeClassPlan) -> dict[str, Any]:
    pool = plan.pool
    assert pool.machine is not None and pool.machine.accelerator_type
    gpu: dict[str, Any] = {
        "type": pool.machine.accelerator_type,
        "count": pool.gpus_per_node,
        "driverVersion": plan.driver_version,
    }
    s = pool.sharing
    if s.mode in SHARING_STRATEGY:
        gpu["gpuSharing"] = {
            "sharingStrategy": SHARING_STRATEGY[s.mode],
            "maxSharedClientsPerGPU": s.replicas,
        }
    elif s.mode == "mig":
        gpu["gpuSharing"] = {"gpuPartitionSize": s.mig_profiles[0]}
    rule: dict[str, Any] = {
        "machineType": pool.machine.name,
        "gpu": gpu,
        "spot": pool.spot,
        "storage": {"bootDiskSize": pool.disk_size_gb},
    }
    if pool.primary.reserved:
        rule.update(capacity_fields(pool.primary))
    if pool.zones:
        rule["location"] = {"zones": list(pool.zones)}
    return rule


def compute_class(plan: ComputeClassPlan) -> dict[str, Any]:
    ensure_gpu_taint(plan.taints)
    return {
        "apiVersion": API_VERSION,
        "kind": "ComputeClass",
        "metadata": {"name": plan.name, "labels": {"app.kubernetes.io/managed-by": "gpu-platform"}},
        "spec": {
            "description": f"gpu-platform GPU pool {plan.name} ({plan.pool.gpu.display})",
            "priorities": gpu_rules(plan),
            "nodePoolAutoCreation": {"enabled": True},
            "nodePoolConfig": {
                "imageType": IMAGE_TYPE[plan.pool.image or PROFILE.default_image or ""],
                "nodeLabels": dict(plan.labels),
                "taints": [{"key": t.key, "value": t.value, "effect": t.effect} for t in plan.taints],
            },
            # Never fall back to other machines: Kueue's quota for the pool is its machine's capacity.
            "whenUnsatisfiable": "DoNotScaleUp",
        },
    }


def compute_class_plan(
    pool: GpuPool, settings: Mapping[str, Any], host: DriverVersion | None
) -> ComputeClassPlan:
    """The ComputeClass of a checked pool (``checks.compute_class_args``)."""
    return ComputeClassPlan(
        pool=pool,
        labels=compute_class_labels(pool),
        taints=tuple(scheduling.pool_taints(pool)),
        driver_version=settings.get("gpu_driver_version", "default"),
        host_driver=host,
    )
