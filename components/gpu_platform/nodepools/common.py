"""What every cloud's GPU node pool component exposes: its nodes' labels, taints and tolerations."""

from typing import Any, TypeVar

import pulumi

from gpu_platform.component import PlannedComponent
from gpu_platform.plans.nodepools import NodePoolPlan

P = TypeVar("P", bound=NodePoolPlan)


class GpuNodePoolComponent(PlannedComponent[P]):
    """Base of ``GkeGpuNodePool``, ``EksGpuNodePool`` and ``AksGpuNodePool`` (not a component itself)."""

    node_pool_name: pulumi.Output[str]
    """Name of the cloud's node pool / node group / agent pool."""
    labels: pulumi.Output[dict[str, str]]
    """Labels every node carries (what workloads select on)."""
    taints: pulumi.Output[list[dict[str, str]]]
    """Taints in Kubernetes shape, including those the cloud adds itself, as pods must tolerate them."""
    tolerations: pulumi.Output[list[dict[str, str]]]
    """Tolerations a workload needs to run on this pool."""

    def _pool_outputs(self, plan: P, node_pool_name: pulumi.Output[str]) -> dict[str, Any]:
        self.node_pool_name = node_pool_name
        self.labels = pulumi.Output.from_input(plan.labels)
        self.taints = pulumi.Output.from_input(plan.taint_dicts)
        self.tolerations = pulumi.Output.from_input(plan.tolerations)
        return {
            "node_pool_name": self.node_pool_name,
            "labels": self.labels,
            "taints": self.taints,
            "tolerations": self.tolerations,
        }
