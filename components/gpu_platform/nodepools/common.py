"""What every cloud's GPU node pool component exposes: its nodes' labels, taints and tolerations."""

from typing import Any, TypeVar, cast

import pulumi
from pulumi_kubernetes.core.v1 import TaintArgsDict, TolerationArgsDict

from gpu_platform.component import PlannedComponent
from gpu_platform.plans.nodepools import NodePoolPlan

P = TypeVar("P", bound=NodePoolPlan)


class GpuNodePoolComponent(PlannedComponent[P]):
    """Base of ``GkeGpuNodePool``, ``EksGpuNodePool`` and ``AksGpuNodePool`` (not a component itself)."""

    node_pool_name: pulumi.Output[str]
    """Name of the cloud's node pool / node group / agent pool."""
    labels: pulumi.Output[dict[str, str]]
    """Labels every node carries (what workloads select on)."""
    taints: pulumi.Output[list[TaintArgsDict]]
    """Taints in Kubernetes shape, including those the cloud adds itself, as pods must tolerate them."""
    tolerations: pulumi.Output[list[TolerationArgsDict]]
    """Tolerations a workload needs to run on this pool."""

    def _pool_outputs(self, plan: P, node_pool_name: pulumi.Output[str]) -> dict[str, Any]:
        self.node_pool_name = node_pool_name
        self.labels = pulumi.Output.from_input(plan.labels)
        # The plans' dicts already have the Kubernetes keys (key, value, effect, operator): typed as the
        # kubernetes SDK's, they go straight into a pod spec, and the schema names the Kubernetes types.
        self.taints = pulumi.Output.from_input(cast(list[TaintArgsDict], plan.taint_dicts))
        self.tolerations = pulumi.Output.from_input(cast(list[TolerationArgsDict], plan.tolerations))
        return {
            "node_pool_name": self.node_pool_name,
            "labels": self.labels,
            "taints": self.taints,
            "tolerations": self.tolerations,
        }
