"""An AKS cluster, two tainted GPU agent pools and the GPU Operator that makes them usable.

The GPU Operator owns the driver on both pools (``gpu_profile.driver=None``: AKS skips its own
install), so one operator configuration fits the whole cluster: driver, container toolkit, device
plugin (with the MIG manager on the A100 pool). ``pulumi up`` leaves nodes that advertise GPUs.
"""

from __future__ import annotations

import pulumi

from gpu_platform import AksCluster, AksGpuNodePool, DriverOwnerName, GpuOperator, GpuPoolArgs

config = pulumi.Config()
location = pulumi.Config("azure-native").require("location")

# "auto" on AKS: the GPU Operator installs the driver; pass the same value to its driver.owner.
DRIVER_OWNER: DriverOwnerName = "auto"

cluster = AksCluster(
    config.get("clusterName") or "gpu-demo",
    {
        "location": location,
        "admin_group_object_ids": config.get_object("adminGroupObjectIds") or [],
        "system_pool": {"machine_type": "Standard_D4s_v5", "min_nodes": 1, "max_nodes": 3},
    },
)

POOLS: list[GpuPoolArgs] = [
    # Spot T4s: AKS adds kubernetes.azure.com/scalesetpriority=spot:NoSchedule; the pool declares it
    # and the pool's tolerations include it.
    {
        "name": "t4-spot",
        "machine_type": "Standard_NC8as_T4_v3",
        "max_nodes": 4,
        "spot": True,
        "spot_max_price": -1,
        "zones": ["1", "2"],
    },
    # A100 80GB split by the GPU Operator's MIG manager (mixed strategy, can change without a new pool).
    # One node stays up: AKS's autoscaler cannot scale a MIG pool up from zero (Azure/AKS#4216).
    {
        "name": "a100-mig",
        "machine_type": "Standard_NC24ads_A100_v4",
        "min_nodes": 1,
        "max_nodes": 2,
        "sharing": {"mode": "mig", "mig": {"layout": "all-balanced", "strategy": "mixed"}},
    },
]

pools = [
    AksGpuNodePool(
        pool["name"],
        {
            "resource_group_name": cluster.resource_group_name,
            "cluster_name": cluster.cluster_name,
            "vnet_subnet_id": cluster.node_subnet_id,
            "pool": pool,
            "driver": {"owner": DRIVER_OWNER},
        },
    )
    for pool in POOLS
]

# The driver, toolkit and device plugin for both pools: the same pools and driver owner as above.
operator = GpuOperator(
    "gpu-operator",
    {"cloud": "aks", "pools": POOLS, "driver": {"owner": DRIVER_OWNER}},
    opts=pulumi.ResourceOptions(provider=cluster.kubernetes_provider, depends_on=pools),
)

pulumi.export("clusterName", cluster.cluster_name)
pulumi.export("kubeconfig", cluster.kubeconfig)
pulumi.export("gpuPoolLabels", {p.plan.pool.name: p.labels for p in pools})
pulumi.export("gpuPoolTolerations", {p.plan.pool.name: p.plan.tolerations for p in pools})
pulumi.export("gpuOperatorStatus", operator.status)
