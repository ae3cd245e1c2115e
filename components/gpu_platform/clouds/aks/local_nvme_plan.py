"""Azure Container Storage for the AKS pools with ``local_ssds``: the cluster extension that serves the NVMe data
disks of their VMs, and the ``local`` StorageClass pods take scratch volumes from (``cloud_facts.aks.local_nvme``).

Cluster-wide, installed once whichever pools ask: the extension's node agent tolerates every ``NoSchedule`` and
``NoExecute`` taint (Azure/local-csi-driver ``charts/latest/values.yaml``, ``daemonset.tolerations``), so it runs
on the tainted GPU nodes. The agent pools are not changed: turning it on replaces no pool.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpu_platform.cloud_facts.aks.local_nvme import (
    EXTENSION_NAME,
    EXTENSION_SETTINGS,
    EXTENSION_TYPE,
    PROVISIONER,
    STORAGE_CLASS,
)
from gpu_platform.pools import GpuPool

CLUSTER_RP = "Microsoft.ContainerService"
CLUSTER_RESOURCE = "managedClusters"


def local_nvme_pools(pools: Sequence[GpuPool]) -> list[str]:
    """The pools that asked for their NVMe disks (none: no extension)."""
    return [p.name for p in pools if p.local_ssds]


def extension_args(cluster_name: Any, resource_group: Any) -> dict[str, Any]:
    """``azure-native`` ``kubernetesconfiguration.Extension`` arguments (Microsoft's Terraform install:
    ``azurerm_kubernetes_cluster_extension`` ``acstor``)."""
    return {
        "extension_name": EXTENSION_NAME,
        "extension_type": EXTENSION_TYPE,
        "cluster_rp": CLUSTER_RP,
        "cluster_resource_name": CLUSTER_RESOURCE,
        "cluster_name": cluster_name,
        "resource_group_name": resource_group,
        "configuration_settings": dict(EXTENSION_SETTINGS),
    }


def storage_class() -> dict[str, Any]:
    """The ``local`` StorageClass exactly as Microsoft's page creates it."""
    return {
        "metadata": {"name": STORAGE_CLASS, "labels": {"app.kubernetes.io/managed-by": "gpu-platform"}},
        "provisioner": PROVISIONER,
        "reclaim_policy": "Delete",
        "volume_binding_mode": "WaitForFirstConsumer",
        "allow_volume_expansion": True,
    }
