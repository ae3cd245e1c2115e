"""Arguments of the high-bandwidth networking components (``NetworkOperator``). No ``from __future__ import
annotations``: the provider reads these types at runtime for the package schema."""

from collections.abc import Mapping, Sequence
from typing import Any, NotRequired

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
