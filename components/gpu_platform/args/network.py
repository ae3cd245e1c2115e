"""Arguments of the high-bandwidth networking components (``NetworkOperator``, ``GkeGpuDirect``). No ``from __future__ import
annotations``: the provider reads these types at runtime for the package schema."""

from collections.abc import Mapping, Sequence
from typing import Any, NotRequired

from pulumi import Input
from typing_extensions import TypedDict

from gpu_platform.args.pool import GpuPoolArgs


class NetworkOperatorArgs(TypedDict):
    """The NVIDIA Network Operator (``NetworkOperator``) for AKS ND-series InfiniBand pools: the DOCA driver and
    the RDMA shared device plugin on the pools' nodes, so pods can request ``rdma/shared_ib`` and NCCL runs over
    InfiniBand instead of TCP."""

    pools: Sequence[GpuPoolArgs]
    """The cluster's GPU pools, exactly as given to the node pools; the operator's node components run on those
    with ``infiniband`` (their label ``gpu-platform.io/infiniband``) and tolerate their taints."""
    values: NotRequired[Mapping[str, Any]]
    """Escape hatch: extra ``network-operator`` chart values under the library's typed ones."""


class GkeGpuDirectArgs(TypedDict):
    """GKE GPUDirect networking (``GkeGpuDirect``) for A3 Mega (TCPXO), A3 High (TCPX), A3 Ultra and A4 (RDMA)
    pools: the extra VPCs and subnets, the ``Network`` / ``GKENetworkParamSet`` objects and Google's NCCL plugin
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
