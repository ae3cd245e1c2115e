"""AKS Node Auto Provisioning plans: per GPU pool a ``karpenter.sh/v1`` NodePool and an
``AKSNodeClass`` (``karpenter.azure.com/v1beta1``, the storage version in karpenter-provider-azure v1.14.2).

NAP is Karpenter run by AKS (enabled on the cluster, nothing to install); the objects follow the same GPU
NodePool rules as on EKS (``plans.karpenter``): the pool's SKU (``karpenter.azure.com/sku-name``), labels and
taints of an AKS agent pool of the library (the spot taint AKS adds is declared, as on agent pools),
``limits`` from ``max_nodes``, ``WhenEmpty`` consolidation. ``AKSNodeClass.spec.gpu.mode`` follows the one
driver decision, and only ``Driver`` (AKS installs it) passes: AKS serves its own NAP CRD, and one without
``spec.gpu`` would prune ``None`` silently and install AKS's driver beside the operator's, so the operator's
driver is refused on NAP pools (``GPU_MODE`` keeps both values for the day AKS documents the field).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.cloud_facts.aks.profile import DRIVER_NONE, PROFILE
from gpu_platform.driver import DriverPlan
from gpu_platform.plans.karpenter import (
    DO_NOT_DISRUPT,
    capacity_types,
    node_pool,
    pool_base,
    requirement,
)
from gpu_platform.plans.node_pool_plan import NodePoolPlan
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.disruption import Disruption

AKSNODECLASS_API = "karpenter.azure.com/v1beta1"
GPU_MODE = {"None": "None", "Install": "Driver"}
"""``DriverPlan.pool_driver`` -> ``AKSNodeClass.spec.gpu.mode``."""


@dataclass(frozen=True)
class AksNapPoolPlan(NodePoolPlan):
    gpu_mode: str = "None"
    image_family: str = PROFILE.default_image or ""
    disruption: Disruption = field(default_factory=Disruption)

    @property
    def pod_annotations(self) -> dict[str, str]:
        return dict(DO_NOT_DISRUPT)


def aks_nap_pool_plan(
    pool: GpuPool, driver: DriverPlan, inputs: Mapping[str, Any], disruption: Disruption
) -> AksNapPoolPlan:
    """A GPU pool's NodePool and AKSNodeClass, from the stack's pools or ``checks.nap_pool_args``."""
    return AksNapPoolPlan(
        **pool_base(pool, driver, inputs),
        gpu_mode=GPU_MODE[driver.pool_driver or DRIVER_NONE],
        image_family=pool.image or PROFILE.default_image or "",
        disruption=disruption,
    )


def aks_requirements(pool: GpuPool) -> list[dict[str, Any]]:
    assert pool.machine is not None
    return [
        requirement("karpenter.azure.com/sku-name", pool.machine.name),
        requirement("karpenter.sh/capacity-type", *capacity_types(pool)),
        requirement("kubernetes.io/arch", "amd64"),
        requirement("kubernetes.io/os", "linux"),
    ]


def aks_node_pool(plan: AksNapPoolPlan) -> dict[str, Any]:
    ref = {"group": "karpenter.azure.com", "kind": "AKSNodeClass", "name": plan.pool.name}
    return node_pool(plan, ref, aks_requirements(plan.pool), plan.disruption)


def aks_node_class(plan: AksNapPoolPlan) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "imageFamily": plan.image_family,
        "osDiskSizeGB": plan.pool.disk_size_gb,
        "gpu": {"mode": plan.gpu_mode},
        "tags": {"gpu-platform-pool": plan.pool.name},
    }
    subnet = plan.inputs.get("vnet_subnet_id")
    if subnet is not None:
        spec["vnetSubnetID"] = subnet
    return {
        "apiVersion": AKSNODECLASS_API,
        "kind": "AKSNodeClass",
        "metadata": {"name": plan.pool.name, "labels": {"app.kubernetes.io/managed-by": "gpu-platform"}},
        "spec": spec,
    }
