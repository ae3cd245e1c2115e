"""Each cloud's stack wiring by its ``cloud:`` value: the only place the stack reaches a cloud's folder.

A cloud's wiring is imported when its stack plans (with its cloud SDK only when its resources are created),
so planning a GKE stack never loads the EKS code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform.releases import (
    AWS_EFA_DEVICE_PLUGIN,
    CLUSTER_AUTOSCALER,
    KARPENTER,
    KARPENTER_CRD,
    NETWORK_OPERATOR,
    Addon,
)

if TYPE_CHECKING:
    from gpu_platform.addons.deployment import Installer
    from gpu_platform.addons.platform_spec import PlatformSpec
    from gpu_platform.clouds.infrastructure import Infrastructure

Deploy = Callable[["PlatformSpec", pulumi.ResourceOptions | None], "Infrastructure"]
CloudAddons = Callable[["PlatformSpec", "Infrastructure", pulumi.ResourceOptions], Mapping[str, Any]]
CreateDockerHost = Callable[[pulumi.ComponentResource, str, Any], pulumi.Output[str]]
MetricsCluster = Callable[["PlatformSpec", "Infrastructure"], Mapping[str, Any]]


@dataclass(frozen=True)
class CloudWiring:
    """What the stack program calls on a cloud."""

    deploy: Deploy
    """The cluster (or an attachment to one), its Kubernetes provider and its tainted GPU pools."""
    cloud_addons: CloudAddons | None = None
    """The cloud's own operators on the cluster (Karpenter, the EFA device plugin, ...); their stack outputs."""
    metrics_cluster: MetricsCluster | None = None
    """The cluster a managed Prometheus backend collects from (``ManagedPrometheusCluster``)."""
    installers: Mapping[str, Installer] = field(default_factory=dict)
    """Add-on name -> what installs it from its plan where the platform does not take its Helm chart (OLM)."""
    releases: tuple[Addon, ...] = ()
    """The Helm releases of the cloud's own operators (``cloud_addons``): with the add-ons', the chart table."""


def _gke() -> CloudWiring:
    from gpu_platform.clouds.gke import stack

    return CloudWiring(stack.deploy, cloud_addons=stack.cloud_addons)


def _eks() -> CloudWiring:
    from gpu_platform.clouds.eks import stack

    return CloudWiring(
        stack.deploy,
        cloud_addons=stack.cloud_addons,
        metrics_cluster=stack.metrics_cluster,
        releases=(CLUSTER_AUTOSCALER, AWS_EFA_DEVICE_PLUGIN, KARPENTER, KARPENTER_CRD),
    )


def _aks() -> CloudWiring:
    from gpu_platform.clouds.aks import stack

    return CloudWiring(
        stack.deploy,
        cloud_addons=stack.cloud_addons,
        metrics_cluster=stack.metrics_cluster,
        releases=(NETWORK_OPERATOR,),
    )


def _existing() -> CloudWiring:
    from gpu_platform.clouds.existing import stack

    return CloudWiring(stack.deploy)


def _openshift() -> CloudWiring:
    from gpu_platform.clouds.openshift import olm, stack

    return CloudWiring(stack.deploy, installers={"gpu_operator": olm.install})


def _yandex() -> CloudWiring:
    from gpu_platform.clouds.yandex import stack

    return CloudWiring(stack.deploy)


WIRING: dict[str, Callable[[], CloudWiring]] = {
    "gke": _gke,
    "eks": _eks,
    "aks": _aks,
    "existing": _existing,
    "openshift": _openshift,
    "yandex": _yandex,
}
"""Each cloud's wiring, loaded on first use; the keys are ``cloud_facts.PROFILES``'s (a test checks)."""


def policy_reader(cloud: str) -> ModuleType | None:
    """The cloud's module reading its node-pool resources for the policy pack (``node_pools(res)`` and the fixes
    in its SDK's terms), imported on first use; ``None`` for a cloud that declares no pools of its own."""
    if cloud == "gke":
        from gpu_platform.clouds.gke import policy as gke

        return gke
    if cloud == "eks":
        from gpu_platform.clouds.eks import policy as eks

        return eks
    if cloud == "aks":
        from gpu_platform.clouds.aks import policy as aks

        return aks
    if cloud == "openshift":
        from gpu_platform.clouds.openshift import policy as openshift

        return openshift
    return None


def docker_host_creator(cloud: str) -> CreateDockerHost:
    """The cloud's ``create_docker_host`` (its module imports the cloud's SDK, so only on use)."""
    if cloud == "gke":
        from gpu_platform.clouds.gke.docker_host import create_docker_host as gke

        return gke
    if cloud == "eks":
        from gpu_platform.clouds.eks.docker_host import create_docker_host as eks

        return eks
    if cloud == "aks":
        from gpu_platform.clouds.aks.docker_host import create_docker_host as aks

        return aks
    raise KeyError(cloud)


def wiring_of(cloud: str) -> CloudWiring:
    """The wiring of a cloud the config already accepted (``KeyError`` otherwise)."""
    return WIRING[cloud]()
