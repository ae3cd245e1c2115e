"""The Kubernetes provider every cluster component hands to a program: a provider resource, not an Output.

Pulumi matches ``opts.provider`` to a resource by the provider's ``package``; an ``Output[Provider]`` never
matches, so a program's own objects given one went to the ambient kubeconfig's cluster. The components keep
the provider itself in ``kubernetes_provider`` (typed, so pyright accepts it as ``opts.provider``, and in the
package schema as a reference to the kubernetes package's provider for other languages).
"""

from __future__ import annotations

import warnings
from typing import Any, cast

import pulumi
from pulumi_kubernetes.provider import Provider as KubernetesProvider


def cluster_provider(
    name: str, kubeconfig: pulumi.Output[str], opts: pulumi.ResourceOptions | None
) -> KubernetesProvider:
    """The cluster's Kubernetes provider, from its (secret) kubeconfig, with server-side apply."""
    return KubernetesProvider(name, kubeconfig=kubeconfig, enable_server_side_apply=True, opts=opts)


class OldProviderName:
    """``k8s_provider``: the provider's name while ``kubernetes_provider`` was an Output of it, kept so programs
    written then still run (with a ``DeprecationWarning``)."""

    @property
    def k8s_provider(self) -> KubernetesProvider:
        """Deprecated: the same provider as ``kubernetes_provider``."""
        warnings.warn(
            f"{type(self).__name__}.k8s_provider is deprecated: use kubernetes_provider (the same provider)",
            DeprecationWarning,
            stacklevel=2,
        )
        provider: Any = getattr(self, "kubernetes_provider")  # noqa: B009 - declared by each component
        return cast(KubernetesProvider, provider)
