"""Yandex Managed Kubernetes in the stack: a Kubernetes provider for the cluster; node groups are declared."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pulumi

from gpu_platform.clouds.infrastructure import Infrastructure, kubeconfig_provider

if TYPE_CHECKING:
    from gpu_platform.addons.platform_spec import PlatformSpec


def deploy(spec: PlatformSpec, opts: pulumi.ResourceOptions | None) -> Infrastructure:
    """A Kubernetes provider from the cluster's kubeconfig; the node groups exist already."""
    provider, kubeconfig = kubeconfig_provider(spec, opts)
    return Infrastructure(provider, kubeconfig, spec.cluster.name)
