"""What an add-on's wiring is given when the stack deploys it: the spec, the cluster, and what came before.

The stack program (``stack.program``) makes one ``Deployment`` and hands it to each add-on of the registry in
turn. An add-on reads the components of the add-ons it deploys after from ``created`` and the inputs other
add-ons contribute to its plan from ``contributions``; the cloud side it cannot import (it sits above the
add-ons) comes in as values: the metrics cluster and the cloud's own installers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pulumi

if TYPE_CHECKING:
    from gpu_platform.addons.platform_spec import PlatformSpec

Installer = Callable[[str, Any, pulumi.ResourceOptions], Any]
"""A cloud's replacement for an add-on's component: ``(name, plan, opts) -> component`` (OLM for the GPU
Operator on OpenShift)."""


@dataclass
class Deployment:
    """One stack's add-ons being deployed, in registry order."""

    spec: PlatformSpec
    opts: pulumi.ResourceOptions
    """Every add-on's options: the cluster's Kubernetes provider (and the caller's parent)."""
    namespaces: dict[str, Any]
    """The team namespaces the stack owns (``stack.namespaces``), by name: each queue waits for its own."""
    metrics_cluster: Callable[[], Mapping[str, Any]] = dict
    """The cluster a managed Prometheus backend collects from (the cloud's wiring), asked only when used."""
    metrics_reader: Callable[[Any, Any], Mapping[str, Any]] = lambda grant, workspace: {}
    """``(grant, workspace)``: the cloud's wiring creates the identity the serving add-on's autoscaler reads the
    managed Prometheus as, and returns the facts known only then (asked only when used)."""
    installers: Mapping[str, Installer] = field(default_factory=dict)
    """Add-on name -> the cloud's installer that takes the add-on's plan in place of its Helm component."""
    created: dict[str, Any] = field(default_factory=dict)
    """Add-on name -> its component, for the add-ons deployed so far."""
    contributions: dict[str, Any] = field(default_factory=dict)
    """Add-on name -> what the enabled add-ons contribute to its plan (``Addon.contributes``)."""

    def after(self, *names: str) -> list[Any]:
        """The components of those add-ons that were deployed, in the order named: what to depend on."""
        return [self.created[n] for n in names if self.created.get(n) is not None]

    def with_dependencies(self, depends_on: list[Any]) -> pulumi.ResourceOptions:
        """The add-ons' options, also waiting for ``depends_on``."""
        return pulumi.ResourceOptions.merge(self.opts, pulumi.ResourceOptions(depends_on=depends_on))

    def secret(self, section: str) -> bool:
        """The stack file's ``section`` holds a secret: its chart values are stored encrypted."""
        return section in self.spec.secret_sections
