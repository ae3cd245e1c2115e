"""GKE's component arguments: the cluster, its GPU node pools and custom ComputeClasses.

No ``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

import enum
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, NotRequired, TypeAlias

from pulumi import Input
from typing_extensions import TypedDict

from gpu_platform.args.autoprovisioning import AutoProvisionedPoolArgs
from gpu_platform.args.cluster import ReleaseChannelValue, SystemPoolArgs
from gpu_platform.args.mirror import MirrorArgs
from gpu_platform.args.node_pool_component import GpuNodePoolArgs
from gpu_platform.args.pool import GpuPoolArgs


class GkeClusterArgs(TypedDict):
    """A GKE Standard cluster for GPU pools (``GkeCluster``)."""

    location: str
    """Region (regional cluster, recommended) or zone."""
    project: NotRequired[Input[str]]
    """Google Cloud project; default: the provider's project."""
    cluster_name: NotRequired[str]
    """Default: the component name."""
    kubernetes_version: NotRequired[Input[str]]
    """Minimum control-plane version; the release channel upgrades from there."""
    release_channel: NotRequired[ReleaseChannelValue]
    """``RAPID``, ``REGULAR`` (default) or ``STABLE``."""
    network_cidr: NotRequired[str]
    """A /16 or larger; default ``DEFAULT_VPC_CIDR``: nodes get the first /20, services the second, pods
    the upper half."""
    master_authorized_cidrs: NotRequired[Input[Sequence[Input[str]]]]
    """CIDRs allowed to reach the public control-plane endpoint; default: any (authenticated) client. May be
    an Output (a NAT gateway's address): it only fills the cluster's authorized networks."""
    system_pool: NotRequired[SystemPoolArgs]
    """The untainted pool for operators."""
    protect: NotRequired[bool]
    """Protect the network, the control plane and the system pool from deletion (Pulumi ``protect``);
    default true. Set false for disposable stacks (dev), or before removing the cluster on purpose."""
    deletion_protection: NotRequired[bool]
    """GKE's own deletion protection of the cluster; default ``protect``."""
    enable_multi_networking: NotRequired[bool]
    """GKE multi-networking (default false), which GPUDirect pools need for their extra NICs (the cluster
    already runs GKE Dataplane V2, its other requirement); the stack turns it on when a pool sets
    ``gpudirect``."""


class GkeNodeNetworkArgs(TypedDict):
    """An extra NIC of a GKE node (``network_config.additional_node_network_configs``)."""

    network: Input[str]
    """VPC network name."""
    subnetwork: Input[str]
    """Subnet name, in the cluster's region."""


class GkeGpuNodePoolArgs(GpuNodePoolArgs):
    """A tainted GKE GPU node pool (``GkeGpuNodePool``)."""

    cluster: Input[str]
    """Cluster name, or its ID ``projects/<project>/locations/<location>/clusters/<name>``."""
    location: Input[str]
    """Cluster location (region or zone)."""
    project: NotRequired[Input[str]]
    """Default: the provider's project."""
    service_account: NotRequired[Input[str]]
    """Node service account email; default: the Compute Engine default account. Use a least-privilege one
    (``GkeCluster.node_service_account_email``)."""
    workload_identity: NotRequired[bool]
    """Run the GKE metadata server on the nodes (Workload Identity). Default true; false only for clusters
    without Workload Identity."""
    additional_node_networks: NotRequired[Input[Sequence[Input[GkeNodeNetworkArgs]]]]
    """Required with ``pool.gpudirect``: one VPC network and subnet per extra NIC, in order
    (``GkeGpuDirect.node_networks[<pool>]``). GKE fixes them at creation: a change is a new pool."""


class GkeDriverVersion(enum.StrEnum):
    """ComputeClass ``priorities[].gpu.driverVersion``."""

    DEFAULT = "default"
    """GKE's default driver for the node version."""
    LATEST = "latest"
    """The newest driver GKE offers for the node version."""


GkeDriverVersionName = Literal["default", "latest"]
"""``GkeDriverVersion``'s values as the strings stack files and the other languages use."""


if TYPE_CHECKING:
    GkeDriverVersionValue: TypeAlias = GkeDriverVersion | GkeDriverVersionName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    GkeDriverVersionValue = GkeDriverVersion


class GkeGpuComputeClassArgs(AutoProvisionedPoolArgs):
    """A GKE custom ComputeClass that auto-creates one GPU pool's node pools (``GkeGpuComputeClass``)."""

    gpu_driver_version: NotRequired[GkeDriverVersionValue]
    """GKE's driver on the auto-created pools: ``default`` (default) or ``latest``."""


class GkeGpuDirectArgs(TypedDict):
    """GKE GPUDirect networking (``GkeGpuDirect``) for A3 Mega (TCPXO), A3 High (TCPX), A3 Ultra, A4 and A4X
    (RDMA) pools: the extra VPCs and subnets, the ``Network`` / ``GKENetworkParamSet`` objects and Google's NCCL plugin
    installer on the pools' nodes. Pass its ``node_networks`` to each pool's ``additional_node_networks``; the
    cluster needs multi-networking (``GkeCluster`` ``enable_multi_networking``) and GKE Dataplane V2."""

    cluster_name: str
    """Prefix of the VPC and subnet names (``<cluster_name>-gpu-1`` ...)."""
    region: str
    """Region of the subnets: the cluster's."""
    pools: Sequence[GpuPoolArgs]
    """The cluster's GPU pools, exactly as given to the node pools; those with ``gpudirect`` are served."""
    project: NotRequired[Input[str]]
    """Google Cloud project of the VPCs; default: the provider's project."""
    protect: NotRequired[bool]
    """Protect the VPCs and subnets from deletion (default true)."""
    gpu_network_cidr: NotRequired[str]
    """The range the subnets come from; default ``DEFAULT_GPU_NETWORK_CIDR`` (192.168.0.0/16).
    A private /24 or larger; changing it replaces the subnets."""
    cluster_network_cidr: NotRequired[str]
    """The cluster's network (``GkeCluster`` ``network_cidr``, which holds its node, Pod and Service ranges):
    given, a ``gpu_network_cidr`` that overlaps it is refused."""
    mirror: NotRequired[MirrorArgs]
    """Pull the NCCL plugin installers, the NRI device injector and the pods' receive-data-path daemons from an
    image mirror; default: upstream."""
