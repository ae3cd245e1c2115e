"""Operator component arguments: GPU Operator, cert-manager and KServe.

Each ``*Settings`` TypedDict holds the fields the stack file and the component share (one definition);
the component's ``*Args`` adds what a program passes in code. No ``from __future__ import annotations``:
Pulumi's component analyzer needs real annotations.
"""

import enum
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypeAlias

from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform.args.common import CloudValue, DriverArgs
from gpu_platform.args.mirror import MirrorArgs
from gpu_platform.args.pool import GpuPoolArgs
from gpu_platform.args.validate import ARGS_CONFIG


@with_config(ARGS_CONFIG)
class DcgmExporterArgs(TypedDict):
    """NVIDIA DCGM exporter (GPU metrics) on every GPU node."""

    enabled: NotRequired[bool]
    """Default true."""
    service_monitor: NotRequired[bool]
    """Let the operator create a ServiceMonitor (default false). Without the Prometheus Operator CRDs the
    operator skips it and stays ready (GPU Operator v26.7.0 ``controllers/object_controls.go``)."""


@with_config(ARGS_CONFIG)
class GpuOperatorSettings(TypedDict):
    """GPU Operator settings shared by the stack file (``gpuOperator``) and ``GpuOperatorArgs``."""

    version: NotRequired[str]
    """Chart version; default ``versions.GPU_OPERATOR.version``."""
    driver: NotRequired[DriverArgs]
    """Who installs the driver and which version; the node pools must be given the same."""
    dcgm_exporter: NotRequired[DcgmExporterArgs]
    """GPU metrics."""
    values: NotRequired[Mapping[str, Any]]
    """Escape hatch: chart values merged under the library's; the library's typed values win."""


@with_config(ARGS_CONFIG)
class GpuOperatorSection(GpuOperatorSettings):
    """``gpuOperator``: the NVIDIA GPU Operator, configured from the pools."""

    enabled: NotRequired[bool]
    """Default true. Off only when something else installs the device plugin (and driver)."""


class GpuOperatorArgs(GpuOperatorSettings):
    """The NVIDIA GPU Operator over the cluster's GPU pools (``GpuOperator``). Everything here decides
    which objects exist, so it must be known at plan time."""

    cloud: CloudValue
    """``gke``, ``eks``, ``aks`` or ``existing``."""
    pools: Sequence[GpuPoolArgs]
    """The cluster's GPU pools, exactly as given to the node pools."""
    cuda_version: NotRequired[str]
    """CUDA ``major.minor`` of the images, for pools without their own ``cuda_version``."""
    namespace: NotRequired[str]
    """Namespace created for the operator; default ``versions.GPU_OPERATOR.namespace``."""
    mirror: NotRequired[MirrorArgs]
    """Pull the chart and every operand image (and on GKE Google's driver installer's) from a mirror; default:
    upstream."""


class CertManagerArgs(TypedDict):
    """cert-manager from its pinned chart (``CertManager``)."""

    namespace: NotRequired[str]
    """Namespace of the release; default ``versions.CERT_MANAGER.namespace``."""
    values: NotRequired[Mapping[str, Any]]
    """Extra chart values (upstream ``values.yaml`` keys); the library's CRD settings win."""
    mirror: NotRequired[MirrorArgs]
    """Pull the chart and its images from a mirror; default: upstream."""


class DeploymentMode(enum.StrEnum):
    """KServe deployment modes (v0.20 names)."""

    STANDARD = "Standard"
    """Deployment + Service + HPA per predictor; no Knative or Istio (formerly RawDeployment)."""
    KNATIVE = "Knative"
    """Knative Serving revisions and scale to zero (formerly Serverless)."""


DeploymentModeName = Literal["Standard", "Knative"]
"""``DeploymentMode``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    DeploymentModeValue: TypeAlias = DeploymentMode | DeploymentModeName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    DeploymentModeValue = DeploymentMode


DEFAULT_DEPLOYMENT_MODE = DeploymentMode.STANDARD.value
"""The chart's own default is ``Knative``; the library installs ``Standard`` unless told otherwise."""


@with_config(ARGS_CONFIG)
class KServeSettings(TypedDict):
    """KServe settings shared by the stack file (``kserve``) and ``KServeArgs``."""

    deployment_mode: NotRequired[DeploymentModeValue]
    """``Standard`` (default; no Knative or Istio) or ``Knative`` (needs Knative Serving with the
    ``kubernetes.podspec-nodeselector`` and ``kubernetes.podspec-tolerations`` features)."""
    ingress_class_name: NotRequired[str]
    """Standard mode: IngressClass for predictor Ingresses (``nginx``, ``gce``, ``alb`` ...). Unset: no
    Ingress is created and predictors are reached through their in-cluster Services."""
    ingress_domain: NotRequired[str]
    """Domain in predictor URLs (chart default ``example.com``)."""
    values: NotRequired[Mapping[str, Any]]
    """Extra ``kserve-resources`` chart values (upstream ``values.yaml`` keys); typed settings win."""


class KServeArgs(KServeSettings):
    """KServe CRDs, controller and serving runtimes from the pinned charts (``KServe``)."""

    namespace: NotRequired[str]
    """Namespace of the releases; default ``versions.KSERVE_RESOURCES.namespace``."""
    runtimes: NotRequired[bool]
    """Install ``kserve-runtime-configs`` (the ClusterServingRuntimes) too. Default true: without them an
    InferenceService with ``modelFormat: huggingface`` finds no runtime."""
    runtime_values: NotRequired[Mapping[str, Any]]
    """Extra ``kserve-runtime-configs`` chart values; ``kserve.servingruntime.enabled`` stays on."""
    mirror: NotRequired[MirrorArgs]
    """Pull the charts and their images (the serving runtimes' too) from a mirror; default: upstream."""
