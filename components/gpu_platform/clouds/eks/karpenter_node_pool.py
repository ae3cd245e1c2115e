"""``EksKarpenterGpuNodePool``: one GPU pool as a Karpenter ``NodePool`` + ``EC2NodeClass`` (scale from zero).

The NodePool carries the labels and taints ``EksGpuNodePool`` would put on a managed node group
(``nvidia.com/gpu=present:NoSchedule`` first, always), so the GPU Operator, Kueue flavors and KServe
placement select these nodes unchanged; ``plans.karpenter`` has the requirements, limits and disruption
settings. Both objects depend on whatever the component depends on (``EksKarpenter``'s CRD release).
"""

from typing import Any, cast

import pulumi
from pulumi_kubernetes.apiextensions import CustomResource

from gpu_platform.clouds.eks import karpenter_plan as kp
from gpu_platform.clouds.eks.args import EksKarpenterGpuNodePoolArgs
from gpu_platform.clouds.eks.checks import karpenter_pool_args
from gpu_platform.clouds.node_pool_component import GpuNodePoolComponent


class EksKarpenterGpuNodePool(GpuNodePoolComponent[kp.EksKarpenterPoolPlan]):
    """A tainted, labelled GPU NodePool that Karpenter scales from zero for pending GPU pods."""

    _type_token = "gpu-platform:index:EksKarpenterGpuNodePool"

    def __init__(
        self, name: str, args: EksKarpenterGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. A tainted, labelled
        GPU NodePool that Karpenter scales from zero for pending GPU pods."""
        self._start(name, kp.eks_karpenter_pool_plan(*karpenter_pool_args(args)), opts)

    def _create(self, name: str, plan: kp.EksKarpenterPoolPlan) -> dict[str, Any]:
        deps = list(self._dependencies)
        node_class = kp.ec2_node_class(plan, plan.inputs["node_role_name"], plan.inputs["discovery"])
        self.node_class = CustomResource(
            f"{name}-nodeclass",
            api_version=node_class["apiVersion"],
            kind=node_class["kind"],
            metadata=node_class["metadata"],
            spec=cast(Any, node_class["spec"]),
            opts=self.child_opts(depends_on=deps),
        )
        node_pool = kp.eks_node_pool(plan)
        self.node_pool = CustomResource(
            f"{name}-nodepool",
            api_version=node_pool["apiVersion"],
            kind=node_pool["kind"],
            metadata=node_pool["metadata"],
            spec=cast(Any, node_pool["spec"]),
            opts=self.child_opts(depends_on=[*deps, self.node_class]),
        )
        return self._pool_outputs(plan, pulumi.Output.from_input(plan.pool.name))
