"""A cluster made elsewhere in the stack: only a Kubernetes provider from its kubeconfig."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pulumi

from gpu_platform.clouds.infrastructure import Infrastructure, kubeconfig_provider

if TYPE_CHECKING:
    from gpu_platform.addons.platform_spec import PlatformSpec


def deploy(spec: PlatformSpec, opts: pulumi.ResourceOptions | None) -> Infrastructure:
    """A Kubernetes provider for the cluster; nothing else is created."""
    provider, kubeconfig = kubeconfig_provider(spec, opts)
    return Infrastructure(provider, kubeconfig, spec.cluster.name)
