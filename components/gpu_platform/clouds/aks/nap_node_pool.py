"""``AksNapGpuNodePool``: one GPU pool as an AKS Node Auto Provisioning ``NodePool`` + ``AKSNodeClass``.

NAP must be enabled on the cluster (AKS ``nodeProvisioningProfile.mode: Auto``); the objects carry the labels
and taints ``AksGpuNodePool`` would give an agent pool (``clouds.aks.nap_plan``).
"""

from typing import Any, cast

import pulumi
from pulumi_kubernetes.apiextensions import CustomResource

from gpu_platform.clouds.aks import nap_plan as nap
from gpu_platform.clouds.aks.args import AksNapGpuNodePoolArgs
from gpu_platform.clouds.aks.checks import nap_pool_args
from gpu_platform.clouds.node_pool_component import GpuNodePoolComponent


def _custom(name: str, obj: dict[str, Any], opts: pulumi.ResourceOptions) -> CustomResource:
    return CustomResource(
        name,
        api_version=obj["apiVersion"],
        kind=obj["kind"],
        metadata=obj["metadata"],
        spec=cast(Any, obj["spec"]),
        opts=opts,
    )


class AksNapGpuNodePool(GpuNodePoolComponent[nap.AksNapPoolPlan]):
    """A tainted, labelled GPU NodePool that AKS Node Auto Provisioning scales from zero."""

    _type_token = "gpu-platform:index:AksNapGpuNodePool"

    def __init__(
        self, name: str, args: AksNapGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. A tainted, labelled
        GPU NodePool that AKS Node Auto Provisioning scales from zero."""
        self._start(name, nap.aks_nap_pool_plan(*nap_pool_args(args)), opts)

    def _create(self, name: str, plan: nap.AksNapPoolPlan) -> dict[str, Any]:
        deps = list(self._dependencies)
        self.node_class = _custom(
            f"{name}-nodeclass", nap.aks_node_class(plan), self.child_opts(depends_on=deps)
        )
        self.node_pool = _custom(
            f"{name}-nodepool", nap.aks_node_pool(plan), self.child_opts(depends_on=[*deps, self.node_class])
        )
        return self._pool_outputs(plan, pulumi.Output.from_input(plan.pool.name))
