"""The cluster and pools of the spec's cloud, and the cloud's own operators, by the cloud's wiring
(``clouds.registry``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pulumi

from gpu_platform.clouds.infrastructure import Infrastructure
from gpu_platform.clouds.registry import wiring_of

if TYPE_CHECKING:
    from gpu_platform.addons.deployment import Installer
    from gpu_platform.stack.spec import PlatformSpec


def cloud_addons(spec: PlatformSpec, infra: Infrastructure, opts: pulumi.ResourceOptions) -> dict[str, Any]:
    """The cloud's own operators on the cluster (``cloud_addons`` of its stack module, when it has one);
    returns their stack outputs."""
    extra = wiring_of(spec.cloud).cloud_addons
    return dict(extra(spec, infra, opts)) if extra is not None else {}


def metrics_cluster(spec: PlatformSpec, infra: Infrastructure) -> dict[str, Any]:
    """The cluster a managed Prometheus backend collects from (``ManagedPrometheusCluster``), by the cloud's
    stack module (``metrics_cluster``); empty for a cloud without one."""
    found = wiring_of(spec.cloud).metrics_cluster
    return dict(found(spec, infra)) if found is not None else {}


def metrics_reader(
    spec: PlatformSpec, infra: Infrastructure, grant: Any, workspace: Any, opts: pulumi.ResourceOptions
) -> dict[str, Any]:
    """The identity KEDA's operator reads the cloud's managed Prometheus as, created by the cloud's stack module
    (``metrics_reader``) under the add-ons' parent (``opts``, without their Kubernetes provider), and the query URL
    and identity known once it exists; empty for a cloud without one."""
    found = wiring_of(spec.cloud).metrics_reader
    parent = pulumi.ResourceOptions(parent=opts.parent) if opts.parent is not None else None
    return dict(found(spec, infra, grant, workspace, parent)) if found is not None else {}


def cloud_installers(spec: PlatformSpec) -> dict[str, Installer]:
    """The cloud's installers that take an add-on's plan in place of its Helm component (OLM on OpenShift)."""
    return dict(wiring_of(spec.cloud).installers)


def deploy_infrastructure(spec: PlatformSpec, opts: pulumi.ResourceOptions | None = None) -> Infrastructure:
    """The cluster and pools of the spec's cloud, by that cloud's own wiring (imported only when used)."""
    return wiring_of(spec.cloud).deploy(spec, opts)
