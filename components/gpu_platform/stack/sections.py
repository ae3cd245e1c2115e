"""The stack file: everything under the ``gpu-platform:`` namespace, built from the same argument
types the components take. ``gpu-platform schema`` prints its JSON schema for editors.

No ``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

from collections.abc import Sequence
from typing import NotRequired

from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform.addons.dra.settings import DraSettings
from gpu_platform.addons.kserve.service_settings import InferenceServiceConfigArgs
from gpu_platform.addons.kueue.settings import KueueSettings
from gpu_platform.addons.observability.settings import ObservabilitySection
from gpu_platform.addons.serving.settings import ServingSettings
from gpu_platform.addons.slurm.settings import SlurmSettings
from gpu_platform.addons.workloads.settings import VolcanoSettings, WorkloadsSettings
from gpu_platform.args.cluster import ClusterConfigArgs
from gpu_platform.args.common import CloudValue
from gpu_platform.args.mirror import MirrorArgs
from gpu_platform.args.operators import GpuOperatorSection, KServeSettings
from gpu_platform.args.pool import GpuPoolArgs
from gpu_platform.args.validate import ARGS_CONFIG


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
class ServingSection(ServingSettings):
    """``serving``: language models served by vLLM as KServe ``LLMInferenceService``s, each sized on its GPU pools
    (docs/serving.md). Needs ``kserve.enabled``."""


# --- workload layer ---
@with_config(ARGS_CONFIG)
class WorkloadsSection(WorkloadsSettings):
    """``workloads``: JobSet, LeaderWorkerSet, Kubeflow Trainer and KubeRay; each off unless enabled."""


@with_config(ARGS_CONFIG)
class VolcanoSection(VolcanoSettings):
    """``volcano``: Volcano, the other gang scheduler, with a Queue per team over the pools Kueue does not own."""

    enabled: NotRequired[bool]
    """Default false. When true, Volcano also gang-schedules the LeaderWorkerSet, Trainer and KubeRay the stack
    installs (cluster-wide settings), and Kueue keeps the other integrations."""


@with_config(ARGS_CONFIG)
class SlurmSection(SlurmSettings):
    """``slurm``: Slurm on Kubernetes (SchedMD Slinky) over the GPU pools it owns, with pyxis and enroot."""

    enabled: NotRequired[bool]
    """Default false."""


# --- end workload layer ---


@with_config(ARGS_CONFIG)
class DraSection(DraSettings):
    """``dra``: the NVIDIA DRA driver for the pools with ``allocation: dra``."""

    enabled: NotRequired[bool]
    """Default false. Needs ``cluster.kubernetes_version`` >= 1.34.2 and the GPU Operator."""


@with_config(ARGS_CONFIG)
class StackConfigArgs(TypedDict):
    """Every ``gpu-platform:`` key of a ``Pulumi.<stack>.yaml``."""

    cloud: CloudValue
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
    serving: NotRequired[ServingSection]
    """Language models on the GPU pools as KServe ``LLMInferenceService``s (docs/serving.md)."""
    cuda_version: NotRequired[str]
    """CUDA ``major.minor`` of the stack's images (``"12.8"``, quoted), for pools without their own."""
    workloads: NotRequired[WorkloadsSection]
    """Workload controllers: JobSet, LeaderWorkerSet, Kubeflow Trainer, KubeRay (docs/workloads.md)."""
    volcano: NotRequired[VolcanoSection]
    """Volcano, the other gang scheduler (docs/workloads.md)."""
    dra: NotRequired[DraSection]
    """Dynamic Resource Allocation for the pools with ``allocation: dra``."""
    slurm: NotRequired[SlurmSection]
    """Slurm on Kubernetes (Slinky) on the pools it owns (docs/slurm.md)."""
    observability: NotRequired[ObservabilitySection]
    """GPU metrics, dashboards, alerts and GPU hours per team (docs/observability.md)."""
    mirror: NotRequired[MirrorArgs]
    """Every chart and image the stack installs from a mirror instead of upstream (``gpu-platform mirror`` lists
    them; docs/adopting.md, "Behind a mirror")."""
