"""The NVIDIA Network Operator on AKS ND-series pools: chart values and the ``NicClusterPolicy``.

The documented AKS path (Azure/aks-rdma-infiniband ``configs/``, Network Operator getting-started): the
operator's Helm release, then one ``NicClusterPolicy`` (``mellanox.com/v1alpha1``) with

- ``ofedDriver``: NVIDIA's containerized DOCA (MOFED) driver, which the GPU Operator's driver waits for before
  loading ``nvidia-peermem`` (GPUDirect RDMA);
- ``rdmaSharedDevicePlugin``: advertises the node's Mellanox (PCI vendor ``15b3``) InfiniBand HCAs as
  ``rdma/shared_ib``, up to ``RDMA_HCA_MAX`` pods per node sharing them.

Both run only on the InfiniBand pools (their ``gpu-platform.io/infiniband`` label, not an NFD label, so no second
Node Feature Discovery is needed: the chart's own is off, the GPU Operator's runs) and tolerate the pools' taints.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_platform import versions
from gpu_platform.mirror import Mirror
from gpu_platform.plans.helm import deep_merge
from gpu_platform.plans.mirror import mirrored_object
from gpu_platform.pools import GpuPool
from gpu_platform.scheduling import INFINIBAND_LABEL, JOB_POD_LABEL, node_agent_tolerations
from gpu_platform.sharing import RDMA_HCA_MAX, RDMA_SHARED_IB_RESOURCE

NIC_CLUSTER_POLICY_API = "mellanox.com/v1alpha1"
NIC_CLUSTER_POLICY_NAME = "nic-cluster-policy"
"""The one name the operator reconciles (its controller ignores NicClusterPolicies of any other name)."""
MELLANOX_VENDOR = "15b3"
"""PCI vendor ID of NVIDIA (Mellanox) ConnectX NICs."""


@dataclass(frozen=True)
class NetworkOperatorPlan:
    pools: tuple[GpuPool, ...]
    """The InfiniBand pools the node components serve."""
    user_values: Mapping[str, Any] = field(default_factory=dict)
    namespace: str = versions.NETWORK_OPERATOR.namespace
    mirror: Mirror | None = None
    """Where the chart, its images and the NicClusterPolicy's come from instead of upstream."""

    @property
    def tolerations(self) -> list[dict[str, str]]:
        out: list[dict[str, str]] = []
        for pool in self.pools:
            out += [t for t in node_agent_tolerations(pool) if t not in out]
        return out


def network_operator_values(plan: NetworkOperatorPlan) -> dict[str, Any]:
    """The controller only: its own NFD off (the GPU Operator's labels the nodes, and the NicClusterPolicy
    selects the pools by label), no NodeFeatureRules (they need NFD's CRDs at install), no SR-IOV or
    maintenance operators."""
    ours = {
        "nfd": {"enabled": False, "deployNodeFeatureRules": False},
        "sriovNetworkOperator": {"enabled": False},
        "maintenanceOperator": {"enabled": False},
    }
    return deep_merge(plan.user_values, ours)


def rdma_device_plugin_config() -> dict[str, Any]:
    return {
        "configList": [
            {
                "resourceName": RDMA_SHARED_IB_RESOURCE.removeprefix("rdma/"),
                "rdmaHcaMax": RDMA_HCA_MAX,
                "selectors": {"vendors": [MELLANOX_VENDOR], "linkTypes": ["infiniband"]},
            }
        ]
    }


def nic_cluster_policy(plan: NetworkOperatorPlan) -> dict[str, Any]:
    """The DOCA driver and the RDMA shared device plugin on the InfiniBand pools (from the plan's mirror)."""
    return mirrored_object(_nic_cluster_policy(plan), plan.mirror)


def _nic_cluster_policy(plan: NetworkOperatorPlan) -> dict[str, Any]:
    return {
        "apiVersion": NIC_CLUSTER_POLICY_API,
        "kind": "NicClusterPolicy",
        "metadata": {"name": NIC_CLUSTER_POLICY_NAME},
        "spec": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": INFINIBAND_LABEL, "operator": "In", "values": ["true"]}
                            ]
                        }
                    ]
                }
            },
            "tolerations": plan.tolerations,
            "ofedDriver": {
                "repository": versions.MELLANOX_REGISTRY,
                "image": versions.DOCA_DRIVER_IMAGE,
                "version": versions.DOCA_DRIVER_VERSION,
                # One node at a time, after the node's jobs have finished (as the GPU Operator's driver upgrade
                # waits): a driver reload drops every RDMA connection on the node. Never a forced drain; a drain
                # stuck past its timeout fails that node's upgrade instead of killing a job.
                "upgradePolicy": {
                    "autoUpgrade": True,
                    "maxParallelUpgrades": 1,
                    "waitForCompletion": {"timeoutSeconds": 0, "podSelector": JOB_POD_LABEL},
                    "drain": {"enable": True, "force": False, "deleteEmptyDir": True, "timeoutSeconds": 300},
                },
                "startupProbe": {"initialDelaySeconds": 10, "periodSeconds": 20},
                "livenessProbe": {"initialDelaySeconds": 30, "periodSeconds": 30},
                "readinessProbe": {"initialDelaySeconds": 10, "periodSeconds": 30},
            },
            "rdmaSharedDevicePlugin": {
                "repository": versions.MELLANOX_REGISTRY,
                "image": versions.RDMA_SHARED_DEVICE_PLUGIN_IMAGE,
                "version": versions.RDMA_SHARED_DEVICE_PLUGIN_VERSION,
                "config": json.dumps(rdma_device_plugin_config(), indent=2),
            },
        },
    }


def network_operator_plan(
    pools: Sequence[GpuPool], values: Mapping[str, Any] | None = None, mirror: Mirror | None = None
) -> NetworkOperatorPlan:
    """The operator for the InfiniBand pools among ``pools`` (the stack's, or ``checks.network_operator_args``)."""
    return NetworkOperatorPlan(tuple(p for p in pools if p.infiniband), dict(values or {}), mirror=mirror)
