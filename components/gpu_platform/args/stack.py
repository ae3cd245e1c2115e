"""The stack file: everything under the ``gpu-platform:`` namespace, built from the same argument
types the components take. ``gpu-platform schema`` prints its JSON schema for editors.

No ``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

from collections.abc import Sequence
from typing import NotRequired

from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform.args.cluster import ClusterConfigArgs
from gpu_platform.args.common import Cloud
from gpu_platform.args.dra import DraSettings
from gpu_platform.args.inference import InferenceServiceConfigArgs
from gpu_platform.args.kueue import KueueSettings
from gpu_platform.args.operators import GpuOperatorSettings, KServeSettings
from gpu_platform.args.pool import GpuPoolArgs
from gpu_platform.args.validate import ARGS_CONFIG


@with_config(ARGS_CONFIG)
class GpuOperatorSection(GpuOperatorSettings):
    """``gpuOperator``: the NVIDIA GPU Operator, configured from the pools."""

    enabled: NotRequired[bool]
    """Default true. Off only when something else installs the device plugin (and driver)."""


@with_config(ARGS_CONFIG)
class KueueSection(KueueSettings):
    """``kueue``: quotas from the pools, team queues, gang admission."""

    enabled: NotRequired[bool]
    """Default true."""


@with_config(ARGS_CONFIG)
class KServeSection(KServeSettings):
    """``kserve``: KServe (with cert-manager) and inference services on the pools."""

    enabled: NotRequired[bool]
    """Default false."""
    install_cert_manager: NotRequired[bool]
    """Install cert-manager (KServe's webhooks need it); default true; false when the cluster runs it."""
    services: NotRequired[Sequence[InferenceServiceConfigArgs]]
    """Inference services, each on one GPU pool."""


@with_config(ARGS_CONFIG)
class DraSection(DraSettings):
    """``dra``: the NVIDIA DRA driver for the pools with ``allocation: dra`` (issue 16)."""

    enabled: NotRequired[bool]
    """Default false. Needs ``cluster.kubernetes_version`` >= 1.34.2 and the GPU Operator."""


@with_config(ARGS_CONFIG)
class StackConfigArgs(TypedDict):
    """Every ``gpu-platform:`` key of a ``Pulumi.<stack>.yaml``."""

    cloud: Cloud
    """``gke``, ``eks``, ``aks`` or ``existing`` (add-ons only, on a cluster made elsewhere)."""
    cluster: ClusterConfigArgs
    """The cluster, created or attached."""
    gpu_pools: Sequence[GpuPoolArgs]
    """At least one GPU pool."""
    gpu_operator: NotRequired[GpuOperatorSection]
    """The NVIDIA GPU Operator."""
    kueue: NotRequired[KueueSection]
    """Kueue."""
    kserve: NotRequired[KServeSection]
    """KServe."""
    cuda_version: NotRequired[str]
    """CUDA ``major.minor`` of the stack's images (``"12.8"``, quoted), for pools without their own."""
    dra: NotRequired[DraSection]
    """Dynamic Resource Allocation for the pools with ``allocation: dra`` (issue 16)."""
