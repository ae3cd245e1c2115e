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
    "gpu_platform.resolve.gpu_operator": "gpu_platform.addons.gpu_operator.checks",
    "gpu_platform.plans.gpu_operator": "gpu_platform.addons.gpu_operator.plan",
    "gpu_platform.plans.startup_taint": "gpu_platform.addons.gpu_operator.startup_taint",
    "gpu_platform.operators.gpu_operator": "gpu_platform.addons.gpu_operator.component",
    "gpu_platform.args.dra": "gpu_platform.addons.dra.settings",
    "gpu_platform.resolve.dra": "gpu_platform.addons.dra.checks",
    "gpu_platform.resolve.dra_driver": "gpu_platform.addons.dra.args_checks",
    "gpu_platform.plans.dra": "gpu_platform.addons.dra.plan",
    "gpu_platform.operators.dra": "gpu_platform.addons.dra.component",
    "gpu_platform.args.kueue": "gpu_platform.addons.kueue.settings",
    "gpu_platform.resolve.kueue": "gpu_platform.addons.kueue.checks",
    "gpu_platform.resolve.kueue_component": "gpu_platform.addons.kueue.args_checks",
    "gpu_platform.plans.kueue": "gpu_platform.addons.kueue.plan",
    "gpu_platform.operators.kueue": "gpu_platform.addons.kueue.component",
    "gpu_platform.resolve.volcano": "gpu_platform.addons.volcano.checks",
    "gpu_platform.plans.volcano": "gpu_platform.addons.volcano.plan",
    "gpu_platform.operators.volcano": "gpu_platform.addons.volcano.component",
    "gpu_platform.args.workloads": "gpu_platform.addons.workloads.settings",
    "gpu_platform.resolve.workloads": "gpu_platform.addons.workloads.checks",
    "gpu_platform.plans.workloads": "gpu_platform.addons.workloads.plan",
    "gpu_platform.operators.workloads": "gpu_platform.addons.workloads.component",
    "gpu_platform.stack.workloads": "gpu_platform.addons.workloads.wiring",
    "gpu_platform.args.inference": "gpu_platform.addons.kserve.service_settings",
    "gpu_platform.resolve.inference": "gpu_platform.addons.kserve.service_checks",
    "gpu_platform.resolve.kserve": "gpu_platform.addons.kserve.checks",
    "gpu_platform.plans.inference": "gpu_platform.addons.kserve.service_plan",
    "gpu_platform.plans.kserve": "gpu_platform.addons.kserve.plan",
    "gpu_platform.operators.kserve": "gpu_platform.addons.kserve.component",
    "gpu_platform.inference": "gpu_platform.addons.kserve.service",
    "gpu_platform.gpu_requests": "gpu_platform.addons.kserve.gpu_requests",
    "gpu_platform.operators.cert_manager": "gpu_platform.addons.cert_manager.component",
    "gpu_platform.args.observability": "gpu_platform.addons.observability.settings",
    "gpu_platform.resolve.observability": "gpu_platform.addons.observability.checks",
    "gpu_platform.plans.observability": "gpu_platform.addons.observability.plan",
    "gpu_platform.plans.dashboards": "gpu_platform.addons.observability.dashboards",
    "gpu_platform.plans.gpu_rules": "gpu_platform.addons.observability.rules",
    "gpu_platform.plans.gpu_health": "gpu_platform.addons.observability.gpu_health",
    "gpu_platform.operators.observability": "gpu_platform.addons.observability.component",
    "gpu_platform.clouds.eks.managed_prometheus": "gpu_platform.addons.observability.amazon_managed_prometheus",
    "gpu_platform.clouds.eks.managed_prometheus_plan": "gpu_platform.addons.observability.amazon_managed_prometheus_plan",
    "gpu_platform.clouds.aks.managed_prometheus": "gpu_platform.addons.observability.azure_managed_prometheus",
    "gpu_platform.clouds.aks.managed_prometheus_plan": "gpu_platform.addons.observability.azure_managed_prometheus_plan",
    "gpu_platform.args.slurm": "gpu_platform.addons.slurm.settings",
    "gpu_platform.resolve.slurm": "gpu_platform.addons.slurm.checks",
    "gpu_platform.plans.slurm": "gpu_platform.addons.slurm.plan",
    "gpu_platform.operators.slurm": "gpu_platform.addons.slurm.component",
    "gpu_platform.args.docker_host": "gpu_platform.addons.docker_host.settings",
    "gpu_platform.resolve.docker_host": "gpu_platform.addons.docker_host.checks",
    "gpu_platform.plans.docker_host": "gpu_platform.addons.docker_host.plan",
    "gpu_platform.args.stack": "gpu_platform.stack.sections",
    "gpu_platform.args.platform": "gpu_platform.stack.platform_args",
    "gpu_platform.resolve.stack": "gpu_platform.stack.resolve_sections",
    "gpu_platform.cloud": "gpu_platform.cloud_facts.profile",
    "gpu_platform.clusters.inputs": "gpu_platform.clouds.cluster_inputs",
    "gpu_platform.clusters.kubeconfig": "gpu_platform.clouds.kubeconfig",
    "gpu_platform.nodepools.common": "gpu_platform.clouds.node_pool_component",
    "gpu_platform.operators.helm": "gpu_platform.helm_release",
    "gpu_platform.policy.kube": "gpu_platform.policy_model.kube",
    "gpu_platform.policy.model": "gpu_platform.policy_model.model",
    "gpu_platform.policy.pool_view": "gpu_platform.policy_model.pool_view",
    "gpu_platform.resolve.nodepool": "gpu_platform.resolve.node_pool_args",
    "gpu_platform.resolve.cloud_pools": "gpu_platform.resolve.cluster_pools",
    "gpu_platform.args.nodepools": "gpu_platform.args.node_pool_component",
    "gpu_platform.plans.nodepools": "gpu_platform.plans.node_pool_plan",
    "gpu_platform.policy.nodepools": "gpu_platform.policy.node_pool_readers",
}

GONE_PACKAGES = frozenset({"gpu_platform.clusters", "gpu_platform.nodepools", "gpu_platform.operators"})
"""Packages that are gone, all of whose modules moved: importing one gives an empty module, with a warning."""

MOVED_NAMES: dict[str, dict[str, str]] = {
    "gpu_platform.addons.volcano.plan": {
        "plan_volcano": "gpu_platform.addons.volcano.plan:volcano_args_plan"
    },
    "gpu_platform.addons.workloads.plan": {
        "plan_jobset": "gpu_platform.addons.workloads.plan:jobset_plan",
        "plan_leader_worker_set": "gpu_platform.addons.workloads.plan:leader_worker_set_plan",
        "plan_kuberay": "gpu_platform.addons.workloads.plan:kuberay_plan",
        "plan_kubeflow_trainer": "gpu_platform.addons.workloads.plan:kubeflow_trainer_plan",
    },
    "gpu_platform.addons.kserve.service_plan": {
        "plan_gpu_inference_service": "gpu_platform.addons.kserve.service_plan:gpu_inference_service_plan",
    },
    "gpu_platform.addons.gpu_operator.plan": {
        "GKE_CRITICAL_PRIORITY_CLASSES": "gpu_platform.cloud_facts.gke.critical_pods",
        "GKE_QUOTA_NAME": "gpu_platform.cloud_facts.gke.critical_pods",
        "GKE_QUOTA_BASE_PODS": "gpu_platform.cloud_facts.gke.critical_pods",
        "GKE_QUOTA_PODS_PER_GPU_NODE": "gpu_platform.cloud_facts.gke.critical_pods",
        "gke_resource_quota_spec": "gpu_platform.cloud_facts.gke.critical_pods",
        "GKE_INSTALLER_NAME": "gpu_platform.cloud_facts.gke.driver_installer",
        "GKE_INSTALLER_SUFFIX": "gpu_platform.cloud_facts.gke.driver_installer",
        "gke_driver_installer": "gpu_platform.cloud_facts.gke.driver_installer",
        "gke_driver_installers": "gpu_platform.cloud_facts.gke.driver_installer",
    },
    "gpu_platform.policy.rules": {
        "GKE_NETWORKING": "gpu_platform.clouds.gke.policy",
        "INTERFACES_ANNOTATION": "gpu_platform.clouds.gke.policy",
        "GPUDIRECT_INSTALLERS": "gpu_platform.clouds.gke.policy",
    },
    "gpu_platform.plans.node_daemonsets": {
        "gke_driver_installer_requests": "gpu_platform.plans.node_daemonsets:driver_installer_requests",
    },
    "gpu_platform.catalog.gpudirect": {
        name: "gpu_platform.cloud_facts.gke.gpudirect"
        for name in (
            "TCPX",
            "TCPXO",
            "RDMA",
            "RDMA_A4X",
            "GKE_TCPX_DOC",
            "GKE_RDMA_DOC",
            "DEFAULT_GPU_NETWORK_CIDR",
            "GCE_RESERVED_ADDRESSES",
            "GCE_SMALLEST_SUBNET",
            "GpuNetworkLayout",
            "LONGEST_GPU_NETWORK_PREFIX",
        )
    },
    "gpu_platform.resolve.autoprovisioning": {
        "karpenter_pool_problems": "gpu_platform.cloud_facts.eks.autoprovisioning",
        "nap_pool_problems": "gpu_platform.cloud_facts.aks.autoprovisioning",
        "compute_class_pool_problems": "gpu_platform.cloud_facts.gke.autoprovisioning",
    },
    "gpu_platform.resolve.pools": {"EKS_CAPACITY_TYPE": "gpu_platform.cloud_facts.eks.profile:CAPACITY_TYPE"},
    "gpu_platform.catalog.topology": {
        "GCE_TOPOLOGY": "gpu_platform.cloud_facts.gke.topology",
        "GCE_A4X_TOPOLOGY": "gpu_platform.cloud_facts.gke.topology",
        "EC2_TOPOLOGY": "gpu_platform.cloud_facts.eks.topology",
    },
    "gpu_platform.versions": {"ALL_CHARTS": "gpu_platform.releases"},
    "gpu_platform.clouds": {
        "PROFILES": "gpu_platform.cloud_facts",
        "CLOUD_EXTRAS": "gpu_platform.cloud_facts",
        "EXTRAS": "gpu_platform.cloud_facts",
        "profile_of": "gpu_platform.cloud_facts",
        "clouds_where": "gpu_platform.cloud_facts",
    },
    "gpu_platform.addons": {
        "Addon": "gpu_platform.releases",
        "chart_name": "gpu_platform.releases",
        "GPU_OPERATOR": "gpu_platform.releases",
        "KUEUE": "gpu_platform.releases",
        "CERT_MANAGER": "gpu_platform.releases",
        "KSERVE_CRD": "gpu_platform.releases",
        "KSERVE_RESOURCES": "gpu_platform.releases",
        "KSERVE_RUNTIME_CONFIGS": "gpu_platform.releases",
        "CLUSTER_AUTOSCALER": "gpu_platform.releases",
        "AWS_EFA_DEVICE_PLUGIN": "gpu_platform.releases",
        "NETWORK_OPERATOR": "gpu_platform.releases",
        "JOBSET": "gpu_platform.releases",
        "LEADER_WORKER_SET": "gpu_platform.releases",
        "TRAINER": "gpu_platform.releases",
        "KUBERAY": "gpu_platform.releases",
        "VOLCANO": "gpu_platform.releases",
        "DRA_DRIVER": "gpu_platform.releases",
        "KARPENTER": "gpu_platform.releases",
        "KARPENTER_CRD": "gpu_platform.releases",
        "SLURM_OPERATOR_CRDS": "gpu_platform.releases",
        "SLURM_OPERATOR": "gpu_platform.releases",
        "SLURM": "gpu_platform.releases",
        "PROMETHEUS_OPERATOR_CRDS": "gpu_platform.releases",
        "KUBE_PROMETHEUS_STACK": "gpu_platform.releases",
        "NODE_PROBLEM_DETECTOR": "gpu_platform.releases",
        "ADDONS": "gpu_platform.releases",
        "BY_KEY": "gpu_platform.releases",
        "WORKLOAD_CONTROLLERS": "gpu_platform.releases",
        "addon": "gpu_platform.releases",
        "reserved_namespaces": "gpu_platform.releases",
        "scheduling_namespaces": "gpu_platform.releases",
        "crd_charts": "gpu_platform.releases",
    },
    "gpu_platform.args": {
        "ClusterQueueArgs": "gpu_platform.addons.kueue.settings",
        "KueueArgs": "gpu_platform.addons.kueue.settings",
        "PreemptionArgs": "gpu_platform.addons.kueue.settings",
        "PriorityClassArgs": "gpu_platform.addons.kueue.settings",
        "RequeuingStrategyArgs": "gpu_platform.addons.kueue.settings",
        "TeamArgs": "gpu_platform.addons.kueue.settings",
        "WaitForPodsReadyArgs": "gpu_platform.addons.kueue.settings",
        "GpuInferenceServiceArgs": "gpu_platform.addons.kserve.service_settings",
        "InferenceServiceConfigArgs": "gpu_platform.addons.kserve.service_settings",
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
"""Names that moved out of a module that stayed: old module -> name -> the module that has it now
(``module:new_name`` when it was renamed too)."""


def moved_attribute(module: str, name: str) -> object:
    """A module's ``__getattr__``: the moved name from its new module, with a warning; else AttributeError."""
    new = MOVED_NAMES.get(module, {}).get(name)
    if new is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    new_module, _, new_name = new.partition(":")
    where = f"{new_module}.{new_name}" if new_name else new_module
    warnings.warn(
        f"{module}.{name} moved to {where}; the old path goes in gpu-platform {REMOVED_IN}",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(new_module), new_name or name)


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


class _EmptyPackageLoader(importlib.abc.Loader):
    """A package that is gone but whose old submodules moved (``gpu_platform.clusters``): an empty module, so
    ``import gpu_platform.clusters.gke`` reaches the alias of its submodule."""

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(
            f"{spec.name} is gone; its modules moved (docs/UPGRADE.md), the old paths go in gpu-platform "
            f"{REMOVED_IN}",
            DeprecationWarning,
            stacklevel=2,
        )
        return ModuleType(spec.name, "Old package; its modules moved (gpu_platform._moved.MOVED).")

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run."""


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is not None:
            return importlib.machinery.ModuleSpec(fullname, _AliasLoader(new))
        if fullname in GONE_PACKAGES:
            return importlib.machinery.ModuleSpec(fullname, _EmptyPackageLoader(), is_package=True)
        return None


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())
