"""An AKS cluster's plan: the VNet, its node subnet and the system pool's OS SKU."""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpu_platform.addons.observability.plan import ksm_allowlist
from gpu_platform.args.cluster import DEFAULT_AKS_OS_SKU, DEFAULT_VPC_CIDR
from gpu_platform.plans.clusters import ClusterPlan
from gpu_platform.resolve.cluster import SystemPool


@dataclass(frozen=True)
class AksClusterPlan(ClusterPlan):
    vnet_cidr: str = DEFAULT_VPC_CIDR
    nodes_cidr: str = ""
    os_sku: str = DEFAULT_AKS_OS_SKU

    @property
    def reservation_scopes(self) -> tuple[str, ...]:
        """The resource groups of the capacity reservation groups the pools consume: the cluster's identity is
        Contributor on each (Microsoft, "Use capacity reservation groups with AKS")."""
        groups = self.inputs.get("capacity_reservation_group_ids", ())
        return tuple(sorted({g.split("/providers/", 1)[0] for g in groups}, key=str.lower))


def aks_cluster_plan(name: str, system: SystemPool, settings: Mapping[str, Any]) -> AksClusterPlan:
    """The plan from checked settings (``AksClusterArgs`` keys)."""
    cidr = settings.get("vnet_cidr", DEFAULT_VPC_CIDR)
    return AksClusterPlan(
        name=name,
        system_pool=system,
        inputs=dict(settings),
        vnet_cidr=cidr,
        nodes_cidr=str(next(ipaddress.ip_network(cidr).subnets(new_prefix=20))),
        os_sku=settings.get("os_sku", DEFAULT_AKS_OS_SKU),
    )


def ksm_labels_allowlist() -> str:
    """The metrics add-on's kube-state-metrics ``metricLabelsAllowlist``: the same allowlist as the stack's
    kube-state-metrics, in the one comma-separated string AKS takes (``nodes=[...],pods=[...]``)."""
    return ",".join(ksm_allowlist())
