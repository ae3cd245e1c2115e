"""``AksGpuNodePool``: a tainted, labelled, autoscaled AKS GPU agent pool (``mode=User``).

- ``node_taints``: ``nvidia.com/gpu=present:NoSchedule`` always (AKS adds none for GPUs), then the user's,
  then on spot pools AKS's own ``kubernetes.azure.com/scalesetpriority=spot:NoSchedule`` (declared so
  Pulumi sees no drift; ``scheduling.pool_tolerations`` tolerates it).
- ``gpu_profile.driver`` from the shared ``DriverPlan``: ``None`` when the GPU Operator installs the
  driver, ``Install`` when AKS does. AKS-managed MIG: ``gpu_instance_profile`` (fixed at creation).
- ``enable_auto_scaling`` with ``min_count``/``max_count``; ``count`` starts at ``initial_nodes`` and is in
  ``ignore_changes``.
"""

from typing import Any

import pulumi

from gpu_platform.cloud_facts.aks.profile import PROFILE
from gpu_platform.clouds.aks.args import AksGpuNodePoolArgs
from gpu_platform.clouds.aks.checks import node_pool_args
from gpu_platform.clouds.aks.node_pool_plan import AksNodePoolPlan, aks_node_pool_plan
from gpu_platform.clouds.node_pool_component import GpuNodePoolComponent

IGNORE_CHANGES = ["count"]
"""The autoscaler owns the node count; AKS refuses manual scaling of an autoscaled pool."""
REPLACE_ON_CHANGES = [
    "vmSize",
    "gpuInstanceProfile",
    "gpuProfile",
    "scaleSetPriority",
    "scaleSetEvictionPolicy",
    "spotMaxPrice",
    "availabilityZones",
    "osDiskSizeGB",
    "capacityReservationGroupID",
    "osSKU",
    "vnetSubnetID",
]
"""AKS fixes these when the pool is created; changing one needs a new pool."""


class AksGpuNodePool(GpuNodePoolComponent[AksNodePoolPlan]):
    """A tainted, labelled, autoscaled AKS GPU agent pool."""

    _type_token = "gpu-platform:index:AksGpuNodePool"

    def __init__(
        self, name: str, args: AksGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. A tainted,
        labelled, autoscaled AKS GPU agent pool."""
        self._start(name, aks_node_pool_plan(*node_pool_args(args)), opts)

    def _create(self, name: str, plan: AksNodePoolPlan) -> dict[str, Any]:
        PROFILE.sdk(self)  # one line naming the extra when the SDK is missing
        import pulumi_azure_native.containerservice as aks

        pool, inputs = plan.pool, plan.inputs
        assert pool.machine is not None
        self.agent_pool = aks.AgentPool(
            f"{name}-agentpool",
            resource_group_name=inputs["resource_group_name"],
            resource_name_=inputs["cluster_name"],
            agent_pool_name=plan.physical_name,
            mode="User",
            os_type="Linux",
            os_sku=plan.os_sku,
            vm_size=pool.machine.name,
            count=pool.initial_nodes,
            enable_auto_scaling=True,
            min_count=pool.min_nodes,
            max_count=pool.max_nodes,
            node_labels=plan.labels,
            node_taints=plan.cloud_taints,
            availability_zones=list(pool.zones) or None,
            os_disk_size_gb=pool.disk_size_gb,
            gpu_profile=aks.GPUProfileArgs(driver=plan.driver.pool_driver),
            gpu_instance_profile=plan.gpu_instance_profile,
            capacity_reservation_group_id=plan.capacity_reservation_group_id,
            vnet_subnet_id=inputs.get("vnet_subnet_id"),
            orchestrator_version=inputs.get("kubernetes_version"),
            **plan.spot,
            opts=self.child_opts(
                ignore_changes=IGNORE_CHANGES,
                replace_on_changes=REPLACE_ON_CHANGES,
                # A fixed name cannot exist twice: only then the old pool goes first.
                delete_before_replace="agent_pool_name" in plan.inputs,
                protect=plan.protect,
            ),
        )
        return self._pool_outputs(plan, pulumi.Output.from_input(plan.physical_name))
