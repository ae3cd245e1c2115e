"""Old import paths of modules that moved keep working for one minor release, with a warning.

``MOVED`` maps an old module path to its new one; a finder placed first on ``sys.meta_path`` answers
an import of an old path with the new module itself (one module object under two names), so
``isinstance`` checks and module state stay shared. docs/UPGRADE.md lists every entry.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

REMOVED_IN = "0.3.0"

MOVED: dict[str, str] = {
    "gpu_platform.clusters.gke": "gpu_platform.clouds.gke.cluster",
    "gpu_platform.nodepools.gke": "gpu_platform.clouds.gke.node_pool",
    "gpu_platform.nodepools.compute_class": "gpu_platform.clouds.gke.compute_class",
    "gpu_platform.plans.compute_class": "gpu_platform.clouds.gke.compute_class_plan",
    "gpu_platform.clusters.eks": "gpu_platform.clouds.eks.cluster",
    "gpu_platform.nodepools.eks": "gpu_platform.clouds.eks.node_pool",
    "gpu_platform.nodepools.karpenter": "gpu_platform.clouds.eks.karpenter_node_pool",
    "gpu_platform.operators.karpenter": "gpu_platform.clouds.eks.karpenter",
    "gpu_platform.operators.cluster_autoscaler": "gpu_platform.clouds.eks.cluster_autoscaler",
    "gpu_platform.operators.efa": "gpu_platform.clouds.eks.efa",
    "gpu_platform.plans.autoscaling": "gpu_platform.clouds.eks.autoscaling_plan",
    "gpu_platform.clusters.aks": "gpu_platform.clouds.aks.cluster",
    "gpu_platform.nodepools.aks": "gpu_platform.clouds.aks.node_pool",
    "gpu_platform.nodepools.aks_nap": "gpu_platform.clouds.aks.nap_node_pool",
    "gpu_platform.plans.aks_nap": "gpu_platform.clouds.aks.nap_plan",
    "gpu_platform.plan": "gpu_platform.offline",
    "gpu_platform.plan.diff": "gpu_platform.offline.diff",
    "gpu_platform.plan.errors": "gpu_platform.offline.errors",
    "gpu_platform.plan.output": "gpu_platform.offline.output",
    "gpu_platform.plan.recorder": "gpu_platform.offline.recorder",
    "gpu_platform.plan.render": "gpu_platform.offline.render",
    "gpu_platform.plan.runner": "gpu_platform.offline.runner",
    "gpu_platform.plan.sdk_internals": "gpu_platform.offline.sdk_internals",
    "gpu_platform.plan.stack_file": "gpu_platform.offline.stack_file",
}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{spec.name} moved to {self.new}; the old path goes in gpu-platform {REMOVED_IN}",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(self.new)

    def exec_module(self, module: ModuleType) -> None:
        """The new module is already executed."""


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(new))


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())
