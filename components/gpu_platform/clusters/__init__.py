"""Greenfield clusters per cloud: ``GkeCluster``, ``EksCluster``, ``AksCluster``.

Each creates the network basics, the control plane, a small untainted system pool for operators and
ordinary pods, and a Kubernetes provider (``k8s_provider``) built from a secret kubeconfig that
authenticates with the cloud's exec plugin. GPU pools attach to them with ``gpu_platform.nodepools``.
Cloud SDKs load only when a cluster is built.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

if TYPE_CHECKING:
    from gpu_platform.clusters.aks import AksCluster, AksClusterArgs
    from gpu_platform.clusters.eks import EksCluster, EksClusterArgs
    from gpu_platform.clusters.gke import GkeCluster, GkeClusterArgs

__all__ = [
    "AksCluster",
    "AksClusterArgs",
    "EksCluster",
    "EksClusterArgs",
    "GkeCluster",
    "GkeClusterArgs",
    "SystemPoolArgs",
    "exec_kubeconfig",
]

_LAZY = {
    "GkeCluster": "gke",
    "GkeClusterArgs": "gke",
    "EksCluster": "eks",
    "EksClusterArgs": "eks",
    "AksCluster": "aks",
    "AksClusterArgs": "aks",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"gpu_platform.clusters.{_LAZY[name]}"), name)
    raise AttributeError(name)


class SystemPoolArgs(TypedDict):
    """The untainted pool for operators (GPU Operator, Kueue, KServe controllers) and ordinary pods."""

    machine_type: NotRequired[str]
    """Default per cloud: ``e2-standard-4``, ``m6i.large``, ``Standard_D4s_v5``."""
    min_nodes: NotRequired[int]
    """Default 1."""
    max_nodes: NotRequired[int]
    """Default 3."""


SYSTEM_MACHINE = {"gke": "e2-standard-4", "eks": "m6i.large", "aks": "Standard_D4s_v5"}
EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1"


def system_pool_settings(cloud: str, args: SystemPoolArgs | None) -> tuple[str, int, int]:
    from gpu_platform.config.errors import ConfigError

    args = args or {}
    machine = args.get("machine_type") or SYSTEM_MACHINE[cloud]
    low, high = args.get("min_nodes", 1), args.get("max_nodes", 3)
    if not 1 <= low <= high:
        raise ConfigError([("system_pool", f"need 1 <= min_nodes <= max_nodes (got {low}..{high})")])
    return machine, low, high


def exec_kubeconfig(name: str, server: str, ca_data: str, exec_spec: dict[str, Any]) -> str:
    """A kubeconfig whose user runs a credential plugin: no long-lived secret in the file itself."""
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {"name": name, "cluster": {"server": server, "certificate-authority-data": ca_data}}
            ],
            "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
            "current-context": name,
            "users": [{"name": name, "user": {"exec": {"apiVersion": EXEC_API_VERSION, **exec_spec}}}],
        },
        indent=2,
    )
