"""AKS's component arguments: the cluster, its GPU agent pools, Node Auto Provisioning pools and the Network Operator.

No ``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

from collections.abc import Mapping, Sequence
from typing import Any, NotRequired

from pulumi import Input
from typing_extensions import TypedDict

from gpu_platform.args.autoprovisioning import AutoProvisionedPoolArgs, KarpenterDisruptionArgs
from gpu_platform.args.cluster import SystemPoolArgs
from gpu_platform.args.mirror import MirrorArgs
from gpu_platform.args.node_pool_component import GpuNodePoolArgs
from gpu_platform.args.pool import GpuPoolArgs


class AksClusterArgs(TypedDict):
    """An AKS cluster with its VNet for GPU agent pools (``AksCluster``)."""

    location: NotRequired[Input[str]]
    """Azure region; default: the resource group's / provider's location."""
    resource_group_name: NotRequired[Input[str]]
    """Existing resource group; default: create ``<name>-rg``."""
    kubernetes_version: NotRequired[Input[str]]
    """Control-plane version; default: AKS's default."""
    vnet_cidr: NotRequired[str]
    """A /20 or larger; default ``DEFAULT_VPC_CIDR``; nodes use its first /20 (pods use an overlay)."""
    os_sku: NotRequired[str]
    """System pool OS, ``Ubuntu`` (default), ``Ubuntu2204`` or ``AzureLinux``. Keep it the GPU pools' OS:
    the GPU Operator does not support mixed OS versions in one AKS cluster."""
    admin_group_object_ids: NotRequired[Input[Sequence[Input[str]]]]
    """Entra ID groups that get cluster-admin. Local accounts are disabled, so the deployer must be in one
    of them (or hold an Azure RBAC cluster role) for the Kubernetes provider to work. May be Outputs (an
    ``azuread.Group``'s ``object_id``): they only fill the cluster's AAD profile."""
    authorized_ip_ranges: NotRequired[Input[Sequence[Input[str]]]]
    """CIDRs allowed to reach the API server; default: any (authenticated) client. May be an Output: it only
    fills the API server access profile."""
    system_pool: NotRequired[SystemPoolArgs]
    """The untainted pool for operators."""
    protect: NotRequired[bool]
    """Protect the network, the control plane and the system pool from deletion (Pulumi ``protect``);
    default true. Set false for disposable stacks (dev), or before removing the cluster on purpose."""
    node_auto_provisioning: NotRequired[bool]
    """Turn on Node Auto Provisioning (``nodeProvisioningProfile.mode: Auto``) without AKS's default Karpenter
    NodePools, so only ``AksNapGpuNodePool``s create nodes (default false). The stack sets it when a pool has
    a fallback chain."""
    capacity_reservation_group_ids: NotRequired[Sequence[str]]
    """Capacity reservation groups the cluster's agent pools consume (their resource IDs). AKS can use a group
    only through a user-assigned control-plane identity with Contributor on the group's resource group
    (Microsoft, "Use capacity reservation groups with AKS"): with any given, the cluster gets that identity and
    those role assignments instead of a system-assigned identity. The stack fills it from the pools."""
    azure_monitor_metrics: NotRequired[bool]
    """Turn on the Azure Monitor managed Prometheus metrics add-on (``azureMonitorProfile.metrics``), its
    kube-state-metrics exporting the node and pod labels the GPU rules join on (default false). The stack sets
    it with ``observability.backend: azure-managed-prometheus``; ``GpuObservability`` then makes the workspace
    and data collection the add-on sends to."""


class AksGpuNodePoolArgs(GpuNodePoolArgs):
    """A tainted AKS GPU agent pool (``AksGpuNodePool``)."""

    resource_group_name: Input[str]
    """Resource group of the cluster."""
    cluster_name: Input[str]
    """Name of the AKS managed cluster."""
    agent_pool_name: NotRequired[str]
    """AKS pool name (1-12 lowercase letters/digits). Default: generated from the pool name and the settings
    AKS cannot change in place, so a replacing change creates the new pool before deleting the old one.
    A fixed name must be deleted first instead (a gap in capacity)."""
    vnet_subnet_id: NotRequired[Input[str]]
    """Node subnet; required when the cluster uses its own VNet (``AksCluster.node_subnet_id``)."""


class AksNapGpuNodePoolArgs(AutoProvisionedPoolArgs):
    """An AKS Node Auto Provisioning ``NodePool`` + ``AKSNodeClass`` for one GPU pool (``AksNapGpuNodePool``)."""

    vnet_subnet_id: NotRequired[Input[str]]
    """Subnet of the nodes; default: the cluster's (NAP's ``--vnet-subnet-id``)."""
    disruption: NotRequired[KarpenterDisruptionArgs]
    """Disruption settings safe for GPU jobs by default."""


class NetworkOperatorArgs(TypedDict):
    """The NVIDIA Network Operator (``NetworkOperator``) for AKS ND-series InfiniBand pools: the DOCA driver and
    the RDMA shared device plugin on the pools' nodes, so pods can request ``rdma/shared_ib`` and NCCL runs over
    InfiniBand instead of TCP."""

    pools: Sequence[GpuPoolArgs]
    """The cluster's GPU pools, exactly as given to the node pools; the operator's node components run on those
    with ``infiniband`` (their label ``gpu-platform.io/infiniband``) and tolerate their taints."""
    values: NotRequired[Mapping[str, Any]]
    """Escape hatch: extra ``network-operator`` chart values under the library's typed ones."""
    mirror: NotRequired[MirrorArgs]
    """Pull the chart, its images and the NicClusterPolicy's (DOCA driver, RDMA device plugin) from a mirror;
    default: upstream."""
