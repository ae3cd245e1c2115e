"""What every cloud's GPU node pool component exposes: its nodes' labels, taints and tolerations."""

from typing import Any, TypeVar, cast

import pulumi
from pulumi_kubernetes.core.v1 import TaintArgsDict, TolerationArgsDict

from gpu_platform.component import PlannedComponent
from gpu_platform.plans.node_pool_plan import NodePoolPlan

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
        """The outputs to register. ``labels``, ``taints`` and ``tolerations`` are registered as the plan's plain
        values (the engine records the same) and become Outputs only when read (``__getattr__``): an Output of
        a list of dicts is an Output per item and per key, and a 1,000-pool stack spent about a fifth of its
        plan time making Outputs nothing read."""
        self.node_pool_name = node_pool_name
        return {"node_pool_name": node_pool_name, **_plain_outputs(plan)}

    def __getattr__(self, name: str) -> Any:
        """``labels``, ``taints`` and ``tolerations`` as Outputs of the plan's values, made on first read."""
        plan = self.__dict__.get("_plan")
        if name not in PLAIN_OUTPUTS or plan is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        output = pulumi.Output.from_input(_plain_outputs(plan)[name])
        self.__dict__[name] = output
        return output


PLAIN_OUTPUTS = ("labels", "taints", "tolerations")
"""The pool outputs known at plan time."""


def _plain_outputs(plan: NodePoolPlan) -> dict[str, Any]:
    # The plans' dicts already have the Kubernetes keys (key, value, effect, operator): typed as the kubernetes
    # SDK's, they go straight into a pod spec, and the schema names the Kubernetes types.
    return {
        "labels": plan.labels,
        "taints": cast(list[TaintArgsDict], plan.taint_dicts),
        "tolerations": cast(list[TolerationArgsDict], plan.tolerations),
    }
