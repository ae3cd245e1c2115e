"""What the stack, the policy pack and ``GpuDockerHost`` call on a cloud (``CloudWiring``), and how a cloud's folder
hands them to ``clouds.registry`` (``CloudEntry``, its ``clouds/<cloud>/wiring.py``): loaders, so a cloud's code
and its SDK are imported only when its stack plans or its resources are read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform.releases import Addon

if TYPE_CHECKING:
    from gpu_platform.addons.deployment import Installer
    from gpu_platform.addons.platform_spec import PlatformSpec
    from gpu_platform.clouds.infrastructure import Infrastructure

Deploy = Callable[["PlatformSpec", pulumi.ResourceOptions | None], "Infrastructure"]
CloudAddons = Callable[["PlatformSpec", "Infrastructure", pulumi.ResourceOptions], Mapping[str, Any]]
CreateDockerHost = Callable[[pulumi.ComponentResource, str, Any], pulumi.Output[str]]
MetricsCluster = Callable[["PlatformSpec", "Infrastructure"], Mapping[str, Any]]
MetricsReaderFacts = Callable[
    ["PlatformSpec", "Infrastructure", Any, Any, pulumi.ResourceOptions | None], Mapping[str, Any]
]


@dataclass(frozen=True)
class CloudWiring:
    """What the stack program calls on a cloud."""

    deploy: Deploy
    """The cluster (or an attachment to one), its Kubernetes provider and its tainted GPU pools."""
    cloud_addons: CloudAddons | None = None
    """The cloud's own operators on the cluster (Karpenter, the EFA device plugin, ...); their stack outputs."""
    metrics_cluster: MetricsCluster | None = None
    """The cluster a managed Prometheus backend collects from (``ManagedPrometheusCluster``)."""
    metrics_reader: MetricsReaderFacts | None = None
    """``(spec, infra, grant, workspace, opts)``: creates the identity KEDA's operator reads the managed Prometheus as
    (``grant``, an ``addons.serving.autoscaling.ReaderGrant``) on the observability ``workspace``, and returns the
    facts known only then (``server_address``, ``identity``: ``autoscaling.resolved_source``)."""
    installers: Mapping[str, Installer] = field(default_factory=dict)
    """Add-on name -> what installs it from its plan where the platform does not take its Helm chart (OLM)."""
    releases: tuple[Addon, ...] = ()
    """The Helm releases of the cloud's own operators (``cloud_addons``): with the add-ons', the chart table."""


@dataclass(frozen=True)
class CloudEntry:
    """A cloud as the registry lists it: each part loaded on first use."""

    name: str
    """Its ``cloud:`` value (its profile's ``name``)."""
    wiring: Callable[[], CloudWiring]
    policy_reader: Callable[[], ModuleType] | None = None
    """Its module reading its node-pool resources for the policy pack (``clouds/<cloud>/policy.py``: ``node_pools(res)``,
    the fixes in its SDK's terms, ``DEVICE_PLUGIN_RULE``); ``None``: it declares no pools of its own."""
    docker_host: Callable[[], CreateDockerHost] | None = None
    """Its ``create_docker_host`` (``GpuDockerHost``); ``None``: no Docker hosts here."""
