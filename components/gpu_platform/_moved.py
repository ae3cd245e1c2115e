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
    "gpu_platform.args.network": "gpu_platform.clouds.aks.args",
}

MOVED_NAMES: dict[str, dict[str, str]] = {
    "gpu_platform.args": {
        "ClusterAutoscalerArgs": "gpu_platform.clouds.eks.args",
        "EfaDevicePluginArgs": "gpu_platform.clouds.eks.args",
        "AksClusterArgs": "gpu_platform.clouds.aks.args",
        "EksClusterArgs": "gpu_platform.clouds.eks.args",
        "GkeClusterArgs": "gpu_platform.clouds.gke.args",
        "AksGpuNodePoolArgs": "gpu_platform.clouds.aks.args",
        "EksGpuNodePoolArgs": "gpu_platform.clouds.eks.args",
        "GkeGpuNodePoolArgs": "gpu_platform.clouds.gke.args",
        "OpenShiftGpuMachineSetArgs": "gpu_platform.clouds.openshift.args",
    },
    "gpu_platform.args.cluster": {
        "GkeClusterArgs": "gpu_platform.clouds.gke.args",
        "EksClusterArgs": "gpu_platform.clouds.eks.args",
        "AksClusterArgs": "gpu_platform.clouds.aks.args",
    },
    "gpu_platform.args.nodepools": {
        "GkeGpuNodePoolArgs": "gpu_platform.clouds.gke.args",
        "EksGpuNodePoolArgs": "gpu_platform.clouds.eks.args",
        "AksGpuNodePoolArgs": "gpu_platform.clouds.aks.args",
        "OpenShiftGpuMachineSetArgs": "gpu_platform.clouds.openshift.args",
    },
    "gpu_platform.args.autoprovisioning": {
        "GkeDriverVersion": "gpu_platform.clouds.gke.args",
        "GkeDriverVersionName": "gpu_platform.clouds.gke.args",
        "GkeDriverVersionValue": "gpu_platform.clouds.gke.args",
        "GkeGpuComputeClassArgs": "gpu_platform.clouds.gke.args",
        "DEFAULT_AMI_VERSION": "gpu_platform.clouds.eks.args",
        "DISCOVERY_TAG": "gpu_platform.clouds.eks.args",
        "EksKarpenterArgs": "gpu_platform.clouds.eks.args",
        "EksKarpenterGpuNodePoolArgs": "gpu_platform.clouds.eks.args",
        "AksNapGpuNodePoolArgs": "gpu_platform.clouds.aks.args",
    },
    "gpu_platform.args.autoscaling": {
        "AutoscalerIam": "gpu_platform.clouds.eks.args",
        "AutoscalerIamName": "gpu_platform.clouds.eks.args",
        "AutoscalerIamValue": "gpu_platform.clouds.eks.args",
        "DEFAULT_AUTOSCALER_IAM": "gpu_platform.clouds.eks.args",
        "AUTOSCALER_SERVICE_ACCOUNT": "gpu_platform.clouds.eks.args",
        "DEFAULT_AUTOSCALER_EXPANDER": "gpu_platform.clouds.eks.args",
        "DEFAULT_MAX_NODE_PROVISION_TIME": "gpu_platform.clouds.eks.args",
        "ClusterAutoscalerArgs": "gpu_platform.clouds.eks.args",
        "EfaDevicePluginArgs": "gpu_platform.clouds.eks.args",
    },
}
"""Names that moved out of a module that stayed: old module -> name -> the module that has it now."""


def moved_attribute(module: str, name: str) -> object:
    """A module's ``__getattr__``: the moved name from its new module, with a warning; else AttributeError."""
    new = MOVED_NAMES.get(module, {}).get(name)
    if new is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    warnings.warn(
        f"{module}.{name} moved to {new}; the old path goes in gpu-platform {REMOVED_IN}",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(new), name)


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
