"""An EKS cluster and two tainted GPU node groups, built from gpu-platform components.

Both groups run the AL2023 NVIDIA AMI (driver and container toolkit on the image), carry
``nvidia.com/gpu=present:NO_SCHEDULE`` and scale from zero; the autoscaler owns their desired size.
"""

from __future__ import annotations

import pulumi

from gpu_platform import EksCluster, EksGpuNodePool, GpuPoolArgs

config = pulumi.Config()
region = pulumi.Config("aws").require("region")
version = config.get("kubernetesVersion")

# The NVIDIA AMIs carry the driver: the GPU Operator must use driver.owner "auto" (or "cloud") too.
DRIVER_OWNER = "auto"

cluster_args = {
    "region": region,
    "system_pool": {"machine_type": "m6i.large", "min_nodes": 2, "max_nodes": 4},
}
if version:
    cluster_args["kubernetes_version"] = version
cluster = EksCluster(config.get("clusterName") or "gpu-demo", cluster_args)

L4_SPOT: GpuPoolArgs = {
    "name": "l4-spot",
    "machine_type": "g6.2xlarge",
    "max_nodes": 6,
    "spot": True,
    "disk_size_gb": 200,
    "sharing": {"mode": "time-slicing", "replicas": 2},
}
# Multi-node training: every EFA interface of the p5 through the launch template, one zone, a
# cluster placement group. On-demand here; CAPACITY_BLOCK takes the Capacity Block ID as pool.reservation.
H100_EFA: GpuPoolArgs = {
    "name": "h100-efa",
    "machine_type": "p5.48xlarge",
    "max_nodes": 2,
    "efa": True,
    "disk_size_gb": 1000,
    "taints": [{"key": "workload", "value": "training", "effect": "NoSchedule"}],
}

common = {
    "cluster_name": cluster.cluster_name,
    "node_role_arn": cluster.node_role_arn,
    "driver": {"owner": DRIVER_OWNER},
}
if version:
    common["kubernetes_version"] = version
l4 = EksGpuNodePool("l4-spot", {**common, "subnet_ids": cluster.private_subnet_ids, "pool": L4_SPOT})
h100 = EksGpuNodePool(
    "h100-efa",
    {
        **common,
        "subnet_ids": cluster.private_subnet_ids[:1],
        "security_group_ids": [cluster.cluster_security_group_id],
        "pool": H100_EFA,
    },
)

pulumi.export("clusterName", cluster.cluster_name)
pulumi.export("kubeconfig", cluster.kubeconfig)
pulumi.export("oidcProviderArn", cluster.oidc_provider_arn)
pulumi.export("gpuPoolLabels", {p.plan.pool.name: p.labels for p in (l4, h100)})
pulumi.export("gpuPoolTolerations", {p.plan.pool.name: p.plan.tolerations for p in (l4, h100)})
