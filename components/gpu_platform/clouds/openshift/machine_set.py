"""``OpenShiftGpuMachineSet``: GPU MachineSets (one per zone) with the library's taint, labels and sharing
config, each with a MachineAutoscaler when the pool autoscales (``machine_set_plan``)."""

from typing import Any, cast

import pulumi
from pulumi_kubernetes.core.v1 import TolerationArgsDict

from gpu_platform.clouds.openshift.args import OpenShiftGpuMachineSetArgs
from gpu_platform.clouds.openshift.checks import machine_set_args
from gpu_platform.clouds.openshift.machine_set_plan import MachineSetPlan, machine_set_plan
from gpu_platform.clouds.openshift.olm import kubernetes_object
from gpu_platform.component import PlannedComponent
from gpu_platform.scheduling import pool_tolerations, selector_labels

REPLICAS = ["spec.replicas"]
"""The cluster autoscaler owns the replica count of an autoscaled MachineSet."""


class OpenShiftGpuMachineSet(PlannedComponent[MachineSetPlan]):
    """GPU MachineSets of an OpenShift cluster (self-managed, ROSA or ARO), tainted and labelled like every
    other GPU pool of the library, scaled by the cluster autoscaler through MachineAutoscalers."""

    _type_token = "gpu-platform:index:OpenShiftGpuMachineSet"

    machine_set_names: pulumi.Output[list[str]]
    """The MachineSets, one per zone, in ``openshift-machine-api``."""
    node_selector: pulumi.Output[dict[str, str]]
    """Labels that select the pool's nodes."""
    tolerations: pulumi.Output[list[TolerationArgsDict]]
    """Tolerations a workload needs on these nodes."""
    cluster_autoscaler_gpu_limit: pulumi.Output[dict[str, Any]]
    """The ``resourceLimits.gpus`` entry the cluster's ``ClusterAutoscaler`` needs for these nodes."""

    def __init__(
        self, name: str, args: OpenShiftGpuMachineSetArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. GPU MachineSets,
        one per zone, with the library's taint and labels."""
        self._start(name, machine_set_plan(*machine_set_args(args)), opts)

    def _create(self, name: str, plan: MachineSetPlan) -> dict[str, Any]:
        names = []
        for zone in plan.zones:
            autoscaled = zone.machine_autoscaler is not None
            machine_set = kubernetes_object(
                f"{name}-{zone.zone}",
                zone.machine_set,
                self.child_opts(
                    ignore_changes=REPLICAS if autoscaled else None, depends_on=self._dependencies
                ),
            )
            if zone.machine_autoscaler is not None:
                kubernetes_object(
                    f"{name}-{zone.zone}-autoscaler",
                    zone.machine_autoscaler,
                    self.child_opts(depends_on=[machine_set]),
                )
            names.append(zone.machine_set["metadata"]["name"])
        self.machine_set_names = pulumi.Output.from_input(names)
        self.node_selector = pulumi.Output.from_input(selector_labels(plan.pool))
        self.tolerations = pulumi.Output.from_input(
            cast(list[TolerationArgsDict], pool_tolerations(plan.pool))
        )
        self.cluster_autoscaler_gpu_limit = pulumi.Output.from_input(plan.gpu_limit)
        return {
            "machineSetNames": self.machine_set_names,
            "nodeSelector": self.node_selector,
            "tolerations": self.tolerations,
            "clusterAutoscalerGpuLimit": self.cluster_autoscaler_gpu_limit,
        }
