"""``GkeGpuComputeClass``: one GPU pool as a GKE custom ComputeClass with node pool auto-creation.

GKE creates node pools for pending pods that select the class (``workload_node_selector``) and removes
them when empty; the nodes carry the pool's labels and taints (``clouds.gke.compute_class_plan``). Nothing else is
installed: ComputeClass is a GKE API (GKE >= 1.30.3-gke.1451000 on Standard clusters).
"""

from typing import Any, cast

import pulumi
from pulumi_kubernetes.apiextensions import CustomResource
from pulumi_kubernetes.core.v1 import TolerationArgsDict

from gpu_platform.clouds.gke import compute_class_plan as cc
from gpu_platform.clouds.gke.args import GkeGpuComputeClassArgs
from gpu_platform.clouds.gke.checks import compute_class_args
from gpu_platform.component import PlannedComponent


class GkeGpuComputeClass(PlannedComponent[cc.ComputeClassPlan]):
    """A GKE ComputeClass that auto-creates tainted, labelled node pools for one GPU pool."""

    _type_token = "gpu-platform:index:GkeGpuComputeClass"

    compute_class: pulumi.Output[str]
    """Name of the ComputeClass (pods select it with ``cloud.google.com/compute-class``)."""
    labels: pulumi.Output[dict[str, str]]
    """Labels every auto-created node carries."""
    tolerations: pulumi.Output[list[TolerationArgsDict]]
    """Tolerations a workload needs to run on these nodes."""
    node_selector: pulumi.Output[dict[str, str]]
    """What a workload puts in ``nodeSelector`` to get these nodes."""

    def __init__(
        self, name: str, args: GkeGpuComputeClassArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. A GKE ComputeClass
        that auto-creates tainted, labelled node pools for one GPU pool."""
        self._start(name, cc.compute_class_plan(*compute_class_args(args)), opts)

    def _create(self, name: str, plan: cc.ComputeClassPlan) -> dict[str, Any]:
        obj = cc.compute_class(plan)
        CustomResource(
            f"{name}-computeclass",
            api_version=obj["apiVersion"],
            kind=obj["kind"],
            metadata=obj["metadata"],
            spec=cast(Any, obj["spec"]),
            opts=self.child_opts(depends_on=list(self._dependencies)),
        )
        self.compute_class = pulumi.Output.from_input(plan.name)
        self.labels = pulumi.Output.from_input(plan.labels)
        self.tolerations = pulumi.Output.from_input(cast(list[TolerationArgsDict], plan.tolerations))
        self.node_selector = pulumi.Output.from_input(plan.workload_node_selector)
        return {
            "compute_class": self.compute_class,
            "labels": self.labels,
            "tolerations": self.tolerations,
            "node_selector": self.node_selector,
        }
