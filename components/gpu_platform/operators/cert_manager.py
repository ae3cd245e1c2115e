"""cert-manager: issues the KServe webhook's serving certificate, so it is installed before KServe.

One ``helm.v3.Release`` of the jetstack chart pinned in ``versions.CERT_MANAGER``, with the CRDs
installed by the chart (``crds.enabled=true``; ``crds.keep=true`` keeps them, and every Certificate,
if the release is ever removed). KServe's quick-install scripts install it the same way, first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from gpu_platform import versions
from gpu_platform.config import ConfigError
from gpu_platform.operators.helm import deep_merge


class CertManagerArgs(TypedDict):
    namespace: NotRequired[str]
    """Namespace of the release (default ``versions.CERT_MANAGER.namespace``, ``cert-manager``)."""
    values: NotRequired[Mapping[str, Any]]
    """Extra chart values (upstream ``values.yaml`` keys); the library's CRD settings win over them."""


def cert_manager_values(extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Chart values: the user's, with the CRD settings KServe relies on laid over them."""
    values = deep_merge(dict(extra or {}), {"crds": {"enabled": True, "keep": True}})
    return values


def dependencies(opts: pulumi.ResourceOptions | None) -> list[Any]:
    """The ``depends_on`` of a component's options, to hand on to its children explicitly.

    A component's ``depends_on`` is not inherited by its children, so a release inside a component
    would otherwise start before what the component was told to wait for.
    """
    deps = opts.depends_on if opts is not None else None
    if deps is None:
        return []
    if isinstance(deps, (list, tuple)):
        return list(deps)
    return [deps]


class CertManager(pulumi.ComponentResource):
    """cert-manager from the pinned jetstack chart, with its CRDs."""

    status: pulumi.Output[Any]
    """Status of the Helm release (``deployed`` once the webhook is ready)."""

    def __init__(
        self, name: str, args: CertManagerArgs | None = None, opts: pulumi.ResourceOptions | None = None
    ):
        args = args or {}
        pin = versions.CERT_MANAGER
        namespace = args.get("namespace", pin.namespace)
        if not isinstance(namespace, str) or not namespace:
            raise ConfigError([("namespace", f"{namespace!r} is not a namespace name")])
        super().__init__("gpu-platform:index:CertManager", name, None, opts)
        deps = dependencies(opts)
        ns = k8s.core.v1.Namespace(
            f"{name}-namespace",
            metadata={"name": namespace},
            opts=pulumi.ResourceOptions(parent=self, depends_on=deps),
        )
        release = k8s.helm.v3.Release(
            f"{name}-helm",
            name="cert-manager",
            chart=pin.chart,
            version=pin.version,
            repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=pin.repo),
            namespace=namespace,
            create_namespace=False,
            values=cert_manager_values(args.get("values")),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[ns, *deps]),
        )
        self.status = release.status
        self.register_outputs({"status": self.status})
