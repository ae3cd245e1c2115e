"""Per-cloud infrastructure: a cluster (or an attachment to one) and its tainted GPU pools.

Each cloud module (``gke``, ``eks``, ``aks``, ``existing``) exposes
``deploy_infrastructure(spec, opts) -> Infrastructure`` and imports its cloud SDK only when called.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pulumi

if TYPE_CHECKING:
    from gpu_platform.config import PlatformSpec


@dataclass
class Infrastructure:
    k8s_provider: pulumi.ProviderResource
    """Kubernetes provider for the cluster; every add-on is created through it."""
    kubeconfig: pulumi.Output[str]
    """Secret."""
    cluster_name: pulumi.Output[str] | str
    node_pools: dict[str, pulumi.Resource] = field(default_factory=dict)
    """GPU pool resources by pool name (empty for existing clusters)."""
    extra: dict[str, Any] = field(default_factory=dict)


def deploy_infrastructure(spec: PlatformSpec, opts: pulumi.ResourceOptions | None = None) -> Infrastructure:
    module = importlib.import_module(f"gpu_platform.clouds.{spec.cloud}")
    return module.deploy_infrastructure(spec, opts)
