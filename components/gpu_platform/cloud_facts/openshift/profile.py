"""OpenShift: a cluster made elsewhere (GPU nodes from MachineSets, declared as pools) whose NVIDIA GPU Operator
comes from OLM, not Helm. On RHCOS the operator builds the driver with the OpenShift Driver Toolkit, so the
driver is always the operator's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_platform import versions
from gpu_platform.catalog.drivers import DriverVersion
from gpu_platform.cloud_facts.openshift import resource_types as types
from gpu_platform.cloud_facts.openshift.cluster_policy import CLUSTER_POLICY_SECTIONS
from gpu_platform.cloud_facts.profile import CloudProfile, ResourceTypes
from gpu_platform.driver import DriverPlan, DriverPlanError
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool


class OpenShiftProfile(CloudProfile):
    name = "openshift"
    display = "OpenShift"
    article = "an"
    privileged_pods_need_scc = True
    # OpenShift's cluster monitoring owns monitoring.coreos.com and scrapes namespaces labelled
    # openshift.io/cluster-monitoring=true, which the library puts on the operator's namespace (NVIDIA's
    # "GPU Operator on OpenShift" docs, "Enabling the GPU Monitoring Dashboard").
    platform_monitoring_namespace = "gpu-platform-monitoring"
    platform_monitoring_labels = {"openshift.io/cluster-monitoring": "true"}
    platform_prometheus_namespace = "openshift-monitoring"
    gpu_operator_namespace = versions.OPENSHIFT_GPU_OPERATOR.namespace
    platform_namespaces = {
        versions.OPENSHIFT_NFD.namespace: "Node Feature Discovery namespace (OLM)",
        "openshift-machine-api": "Machine API namespace (the GPU MachineSets)",
        "openshift": "own namespace",
    }
    reserved_namespace_prefixes = ("kube-", "openshift-")
    creates_nodes = False
    resource_types = ResourceTypes(diff_rules=types.DIFF_RULES)

    @classmethod
    def plan_driver(
        cls, image: str | None, owner: str, operator: DriverVersion, host: DriverVersion | None
    ) -> DriverPlan:
        if owner == "cloud":
            raise DriverPlanError(
                "RHCOS nodes get the driver from the GPU Operator (Driver Toolkit images); use owner 'operator' "
                "(or 'auto')"
            )
        return DriverPlan("operator", "operator", "operator", operator)

    @classmethod
    def gpu_operator_setting_problems(cls, settings: Mapping[str, Any], p: Problems) -> None:
        # OLM installs the certified operator at the pinned channel and CSV; the library writes a ClusterPolicy
        # from the values' ClusterPolicy sections only (cloud_facts.openshift.cluster_policy).
        pin = versions.OPENSHIFT_GPU_OPERATOR
        if "version" in settings:
            p.add(
                ("version",),
                f"is the Helm chart's version; on OpenShift OLM installs the certified operator at {pin.starting_csv} "
                f"(channel {pin.channel}), the library's pin: remove it (a library upgrade moves the pin)",
            )
        values = settings.get("values")
        for key in values if isinstance(values, Mapping) else ():
            if key not in CLUSTER_POLICY_SECTIONS:
                p.add(
                    ("values", key),
                    "is no ClusterPolicy section, and on OpenShift the values become the ClusterPolicy (no Helm "
                    f"chart reads them): valid: {', '.join(CLUSTER_POLICY_SECTIONS)}",
                )

    @classmethod
    def gpu_operator_values(cls, values: dict[str, Any], driver: DriverPlan) -> None:
        # RHCOS has no kernel headers to build against: the driver container builds with the cluster's Driver
        # Toolkit image, as the certified operator's own example ClusterPolicy (alm-examples) sets.
        values.setdefault("operator", {})["use_ocp_driver_toolkit"] = True

    @classmethod
    def scale_from_zero_problem(cls, pool: GpuPool) -> str | None:
        # The machine API tells the autoscaler an empty MachineSet's GPU count (machine.openshift.io/GPU),
        # which it reads as whole nvidia.com/gpu; slices and renamed replicas exist only once a node runs.
        s = pool.sharing
        if s.mode == "mig":
            return (
                "OpenShift's cluster autoscaler knows an empty MachineSet's GPUs only as whole nvidia.com/gpu; "
                "the GPU Operator's MIG slices exist only once a node runs"
            )
        if s.mode in ("time-slicing", "mps") and s.rename_by_default:
            return (
                "OpenShift's cluster autoscaler does not know nvidia.com/gpu.shared, which the GPU Operator adds "
                "only once a node runs"
            )
        return None


PROFILE = OpenShiftProfile()
