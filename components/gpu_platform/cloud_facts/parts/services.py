"""The cloud's services the add-ons build on: its object store as a model mount, its managed inference Gateway,
and the VM image of a single GPU Docker host.

A part of ``CloudProfile`` (``gpu_platform.cloud_facts.profile``); a cloud's profile overrides what differs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from gpu_platform.catalog.machines import MachineType
from gpu_platform.cloud_facts.parts.base import ProfileBase
from gpu_platform.errors import Problems


@dataclass(frozen=True)
class ModelBucket:
    """How a model server on this cloud reads weights straight from the cloud's object store: a static, read-only
    PersistentVolume of the cloud's CSI driver (the serving add-on builds it, ``addons/serving/model_cache.py``)."""

    scheme: str
    """Which model URIs are in the cloud's object store: ``gs`` (``gs://``), ``s3`` (``s3://``) or ``azure`` (an
    ``https://<account>.blob.core.windows.net/<container>`` URL)."""
    mount: str
    """The CSI driver that mounts such a bucket, as the serving add-on names its mount kinds: ``gcsfuse`` (Cloud
    Storage FUSE CSI driver), ``mountpoint-s3`` (Mountpoint for Amazon S3 CSI driver v2) or ``blob-fuse2`` (Azure
    Blob CSI driver with BlobFuse2)."""


@dataclass(frozen=True)
class InferenceGateway:
    """The cloud's managed Gateway API controller that serves InferencePool backends itself (no chart)."""

    implementation: str
    """How the serving add-on's ``GatewayPlan.implementation`` names it."""
    external_class: str
    """The GatewayClass of an external load balancer."""
    internal_class: str
    """The GatewayClass of an internal load balancer."""
    requires: tuple[str, ...]
    """What the cluster must offer that the serving add-on does not create; ``{class_name}`` is the class used."""
    pool_policies: bool = False
    """Its load balancer needs a health check and a backend policy per InferencePool (GKE's ``HealthCheckPolicy``
    and ``GCPBackendPolicy``), which the serving add-on creates."""
    network_requires: tuple[str, ...] = ()
    """What the cluster and its network must have for its load balancers (GKE: its Gateway API on, a proxy-only
    subnet in the region): the stack sets them where it creates the cluster and its network (``proxy_subnet``,
    ``gateway_api``), else they are required like ``requires``."""


@dataclass(frozen=True)
class MetricsReader:
    """How a pod in the cluster queries the cloud's managed Prometheus from outside it, as KEDA's operator does for
    the serving add-on's autoscalers: the query URL, KEDA's pod identity provider, the cloud identity the pod's
    service account is bound to, and the role that lets that identity read. Format fields: ``{project}`` (the
    cloud project the metrics are in), ``{identity}``, ``{account}``, ``{role}``, ``{namespace}`` and
    ``{service_account}`` (the pod's Kubernetes service account)."""

    backend: str
    """The ``observability.backend`` it reads (the profile's ``managed_prometheus``)."""
    pod_identity: str
    """KEDA's ``TriggerAuthentication`` ``spec.podIdentity.provider``."""
    account: str
    """The name of the cloud identity the library creates for the reader (``{cluster}``: the cluster's name)."""
    role: str
    """What the identity is granted where the metrics are, to read them."""
    query_url: str | None
    """The Prometheus-compatible query API KEDA's ``serverAddress`` names; ``None``: known once the workspace
    exists, from the cloud's stack (``CloudWiring.metrics_reader``)."""
    identity: str | None
    """The identity's full name KEDA's chart values name (a service account's email); ``None``: known once it is
    created (a managed identity's client ID), from the cloud's stack."""
    scope_setting: str | None = None
    """The stack setting ``{project}`` comes from (``cluster.project``), required to read; ``None``: none."""
    grant_commands: tuple[str, ...] = ()
    """The commands that create the identity, grant it ``role`` and bind the pod's service account to it, for a
    cluster the stack does not create."""
    attached_requires: tuple[str, ...] = ()
    """What a cluster the stack does not create must offer for the binding (its workload identity on)."""
    created_on_attached: bool = False
    """The stack creates the identity and its grant on an attached cluster too (they live outside the cluster and
    need only its identity issuer, which the stack looks up)."""
    keda_values: Callable[[Any], dict[str, Any]] = field(compare=False, default=lambda identity: {})
    """KEDA chart values binding its operator's service account to ``identity`` (``podIdentity.*``)."""


@dataclass(frozen=True)
class DockerHostImage:
    """The VM image a single GPU host (``GpuDockerHost``) boots on this cloud, and what it brings."""

    service: str
    """The cloud's VM service, for messages (``Compute Engine``, ``EC2``, ``Azure Virtual Machines``)."""
    image: str
    """The cloud's reference to the image: a Compute Engine image family URL, an SSM parameter whose value is
    an AMI ID, or an Azure Marketplace ``publisher:offer:sku:version`` URN."""
    driver: str
    """The NVIDIA driver the image runs (or the driver cloud-init installs), taken as a floor for the CUDA
    check: the first production release of the branch when only the branch is fixed."""
    driver_from: str
    """``image`` (the cloud ships it on the image) or ``install`` (cloud-init installs it)."""
    source: str
    """Where the image and its driver are documented."""
    section: str
    """Key of this cloud's settings in ``GpuDockerHostArgs`` (``gce``, ``ec2``, ``azure``)."""
    input_problems: (
        Callable[[Mapping[str, Any], Mapping[str, Any], MachineType | None, Problems], None] | None
    ) = field(default=None, compare=False)
    """The cloud's own rules on a host's arguments, its settings section, and its machine (IDs, zones, labels as
    tags, user names, keys), each problem filed at its key; ``None``: none beyond the shared checks."""


class ServiceFacts(ProfileBase):
    """Object store, inference Gateway, managed metrics reader and Docker host image."""

    model_bucket: ClassVar[ModelBucket | None] = None
    """The cloud's object store as a model-weight mount (``serving``); ``None``: models in a bucket are downloaded
    by KServe's storage initializer."""
    inference_gateway: ClassVar[InferenceGateway | None] = None
    """The cloud's managed inference Gateway (``serving``); ``None``: the serving add-on installs Envoy Gateway
    with Envoy AI Gateway."""
    metrics_reader: ClassVar[MetricsReader | None] = None
    """How the serving add-on's autoscaler reads the cloud's managed Prometheus (``serving``); ``None``: only an
    in-cluster Prometheus is read."""
    docker_host: ClassVar[DockerHostImage | None] = None
    """The image of a single GPU Docker host (``GpuDockerHost``) on this cloud; ``None``: not offered."""
