"""A GKE cluster and three tainted GPU node pools, built from gpu-platform components.

What a platform repository writes: a cluster, then pools described like the stack config's
``gpuPools``. Every pool carries ``nvidia.com/gpu=present:NoSchedule``; its labels, taints and
driver settings come from the library, so the GPU Operator, Kueue and KServe select the same nodes.
"""

from __future__ import annotations

import pulumi

from gpu_platform import DriverOwnerName, GkeCluster, GkeGpuNodePool, GpuOperator, GpuPoolArgs

config = pulumi.Config()
gcp = pulumi.Config("gcp")
project = gcp.require("project")
region = gcp.require("region")
zones: list[str] = config.get_object("zones") or []

# Who installs the NVIDIA driver; pass the same value to the GPU Operator's driver.owner.
# "auto" on GKE: GKE's own install is disabled and Google's installer DaemonSet provides the driver.
DRIVER_OWNER: DriverOwnerName = "auto"

cluster = GkeCluster(
    config.get("clusterName") or "gpu-demo",
    {
        "location": region,
        "project": project,
        "system_pool": {"machine_type": "e2-standard-4", "min_nodes": 1, "max_nodes": 3},
        # An example should be easy to tear down; keep GKE's default (True) for real clusters.
        "deletion_protection": False,
    },
)

POOLS: list[GpuPoolArgs] = [
    # Spot L4s shared 4 ways by the GPU Operator's device plugin (time-slicing: no memory isolation).
    {
        "name": "l4-spot",
        "machine_type": "g2-standard-8",
        "max_nodes": 4,
        "spot": True,
        "zones": zones,
        "sharing": {"mode": "time-slicing", "replicas": 4},
    },
    # GKE-native time-sharing: gpu_sharing_config on the pool, GKE's device plugin advertises 2 per GPU.
    {
        "name": "l4-gke-shared",
        "machine_type": "g2-standard-8",
        "max_nodes": 2,
        "zones": zones,
        "sharing": {"mode": "time-slicing", "replicas": 2, "managed_by": "cloud"},
    },
    # GKE-native MIG: gpu_partition_size=1g.5gb, seven isolated slices per A100 40GB. Fixed per pool.
    {
        "name": "a100-mig",
        "machine_type": "a2-highgpu-1g",
        "max_nodes": 2,
        "zones": zones[:1],
        "sharing": {"mode": "mig", "managed_by": "cloud", "mig": {"layout": "all-1g.5gb"}},
    },
]

pools = [
    GkeGpuNodePool(
        pool["name"],
        {
            "cluster": cluster.cluster_name,
            "location": region,
            "project": project,
            "service_account": cluster.node_service_account_email,
            "pool": pool,
            "driver": {"owner": DRIVER_OWNER},
        },
    )
    for pool in POOLS
]

# The driver path for every pool: Google's COS installer DaemonSet (driver owner "auto" on COS) plus the
# GPU Operator's toolkit and device plugin, except on the GKE-shared pools, where GKE's device plugin
# implements the sharing. Same pools and driver owner as above. Kueue and KServe would come next.
operator = GpuOperator(
    "gpu-operator",
    {"cloud": "gke", "pools": POOLS, "driver": {"owner": DRIVER_OWNER}},
    opts=pulumi.ResourceOptions(provider=cluster.kubernetes_provider, depends_on=pools),
)

pulumi.export("clusterName", cluster.cluster_name)
pulumi.export("kubeconfig", cluster.kubeconfig)
pulumi.export("gpuPoolLabels", {p.plan.pool.name: p.labels for p in pools})
pulumi.export("gpuPoolTolerations", {p.plan.pool.name: p.plan.tolerations for p in pools})
pulumi.export("gpuOperatorStatus", operator.status)
