"""gpu-platform: Pulumi components that turn a managed Kubernetes cluster into a GPU platform.

The public face: every component and its arguments type. Importing the package loads no cloud SDK;
each component module is imported on first use, and its cloud SDK only when it creates resources.

    from gpu_platform import GkeCluster, GkeGpuNodePool, GpuOperator
"""

from importlib import import_module
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version
from typing import TYPE_CHECKING, Any

from gpu_platform import _moved
from gpu_platform.args import (
    AksClusterArgs,
    AksGpuNodePoolArgs,
    CertManagerArgs,
    ClusterAutoscalerArgs,
    EfaDevicePluginArgs,
    EksClusterArgs,
    EksGpuNodePoolArgs,
    GkeClusterArgs,
    GkeGpuNodePoolArgs,
    GpuInferenceServiceArgs,
    GpuOperatorArgs,
    GpuPoolArgs,
    KServeArgs,
    KueueArgs,
)
from gpu_platform.args.autoprovisioning import (
    AksNapGpuNodePoolArgs,
    EksKarpenterArgs,
    EksKarpenterGpuNodePoolArgs,
    GkeGpuComputeClassArgs,
)
from gpu_platform.args.dra import DraDriverArgs
from gpu_platform.args.workloads import (
    JobSetArgs,
    KubeflowTrainerArgs,
    KubeRayArgs,
    LeaderWorkerSetArgs,
    VolcanoArgs,
)
from gpu_platform.errors import ArgumentsError, ConfigError

if TYPE_CHECKING:
    from gpu_platform.clusters.aks import AksCluster
    from gpu_platform.clusters.eks import EksCluster
    from gpu_platform.clusters.gke import GkeCluster
    from gpu_platform.inference import GpuInferenceService
    from gpu_platform.nodepools.aks import AksGpuNodePool

    # DRA and node auto-provisioning
    from gpu_platform.nodepools.aks_nap import AksNapGpuNodePool
    from gpu_platform.nodepools.compute_class import GkeGpuComputeClass
    from gpu_platform.nodepools.eks import EksGpuNodePool
    from gpu_platform.nodepools.gke import GkeGpuNodePool
    from gpu_platform.nodepools.karpenter import EksKarpenterGpuNodePool
    from gpu_platform.operators.cert_manager import CertManager
    from gpu_platform.operators.cluster_autoscaler import ClusterAutoscaler
    from gpu_platform.operators.dra import DraDriver
    from gpu_platform.operators.efa import EfaDevicePlugin
    from gpu_platform.operators.gpu_operator import GpuOperator
    from gpu_platform.operators.karpenter import EksKarpenter
    from gpu_platform.operators.kserve import KServe
    from gpu_platform.operators.kueue import Kueue
    from gpu_platform.operators.volcano import Volcano
    from gpu_platform.operators.workloads import JobSet, KubeflowTrainer, KubeRay, LeaderWorkerSet

_moved.install()

try:
    __version__ = _version("gpu-platform")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

_COMPONENTS = {
    "GkeCluster": "gpu_platform.clusters.gke",
    "EksCluster": "gpu_platform.clusters.eks",
    "AksCluster": "gpu_platform.clusters.aks",
    "GkeGpuNodePool": "gpu_platform.nodepools.gke",
    "EksGpuNodePool": "gpu_platform.nodepools.eks",
    "AksGpuNodePool": "gpu_platform.nodepools.aks",
    "GpuOperator": "gpu_platform.operators.gpu_operator",
    "Kueue": "gpu_platform.operators.kueue",
    "CertManager": "gpu_platform.operators.cert_manager",
    "KServe": "gpu_platform.operators.kserve",
    "GpuInferenceService": "gpu_platform.inference",
    "ClusterAutoscaler": "gpu_platform.operators.cluster_autoscaler",
    "EfaDevicePlugin": "gpu_platform.operators.efa",
    "JobSet": "gpu_platform.operators.workloads",
    "LeaderWorkerSet": "gpu_platform.operators.workloads",
    "KubeflowTrainer": "gpu_platform.operators.workloads",
    "KubeRay": "gpu_platform.operators.workloads",
    "Volcano": "gpu_platform.operators.volcano",
    # DRA and node auto-provisioning
    "DraDriver": "gpu_platform.operators.dra",
    "EksKarpenter": "gpu_platform.operators.karpenter",
    "EksKarpenterGpuNodePool": "gpu_platform.nodepools.karpenter",
    "AksNapGpuNodePool": "gpu_platform.nodepools.aks_nap",
    "GkeGpuComputeClass": "gpu_platform.nodepools.compute_class",
}
"""Component class -> module, imported on first attribute access."""


def __getattr__(name: str) -> Any:
    if name in _COMPONENTS:
        return getattr(import_module(_COMPONENTS[name]), name)
    raise AttributeError(f"module 'gpu_platform' has no attribute {name!r}")


__all__ = [
    "AksCluster",
    "AksClusterArgs",
    "AksGpuNodePool",
    "AksGpuNodePoolArgs",
    "AksNapGpuNodePool",
    "AksNapGpuNodePoolArgs",
    "ArgumentsError",
    "CertManager",
    "CertManagerArgs",
    "ClusterAutoscaler",
    "ClusterAutoscalerArgs",
    "ConfigError",
    "DraDriver",
    "DraDriverArgs",
    "EfaDevicePlugin",
    "EfaDevicePluginArgs",
    "EksCluster",
    "EksClusterArgs",
    "EksGpuNodePool",
    "EksGpuNodePoolArgs",
    "EksKarpenter",
    "EksKarpenterArgs",
    "EksKarpenterGpuNodePool",
    "EksKarpenterGpuNodePoolArgs",
    "GkeCluster",
    "GkeClusterArgs",
    "GkeGpuComputeClass",
    "GkeGpuComputeClassArgs",
    "GkeGpuNodePool",
    "GkeGpuNodePoolArgs",
    "GpuInferenceService",
    "GpuInferenceServiceArgs",
    "GpuOperator",
    "GpuOperatorArgs",
    "GpuPoolArgs",
    "JobSet",
    "JobSetArgs",
    "KServe",
    "KServeArgs",
    "KubeRay",
    "KubeRayArgs",
    "KubeflowTrainer",
    "KubeflowTrainerArgs",
    "Kueue",
    "KueueArgs",
    "LeaderWorkerSet",
    "LeaderWorkerSetArgs",
    "Volcano",
    "VolcanoArgs",
    "__version__",
]
