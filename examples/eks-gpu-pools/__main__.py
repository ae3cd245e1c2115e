"""An EKS cluster, two tainted GPU node groups and what makes them usable, from gpu-platform components.

Both groups run the AL2023 NVIDIA AMI (driver and container toolkit on the image) and carry
``nvidia.com/gpu=present:NO_SCHEDULE``. The GPU Operator adds the device plugin (and GPU feature
discovery, DCGM); the Cluster Autoscaler grows the groups from zero (their Auto Scaling groups are tagged
with what their nodes advertise); the EFA device plugin makes the p5's EFA interfaces requestable.
"""

from __future__ import annotations

from collections.abc import Sequence

import pulumi

from gpu_platform import (
    ClusterAutoscaler,
    ClusterAutoscalerArgs,
    DriverOwnerName,
    EfaDevicePlugin,
    EksCluster,
    EksClusterArgs,
    EksGpuNodePool,
    EksGpuNodePoolArgs,
    GpuOperator,
    GpuPoolArgs,
)

config = pulumi.Config()
region = pulumi.Config("aws").require("region")
version = config.get("kubernetesVersion")

# The NVIDIA AMIs carry the driver: the GPU Operator must use driver.owner "auto" (or "cloud") too.
DRIVER_OWNER: DriverOwnerName = "auto"

cluster_args: EksClusterArgs = {
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


def node_group(
    pool: GpuPoolArgs, subnet_ids: pulumi.Input[Sequence[pulumi.Input[str]]]
) -> EksGpuNodePoolArgs:
    """What both node groups share: the cluster, its node role, who owns the driver."""
    args: EksGpuNodePoolArgs = {
        "cluster_name": cluster.cluster_name,
        "node_role_arn": cluster.node_role_arn,
        "driver": {"owner": DRIVER_OWNER},
        "subnet_ids": subnet_ids,
        "pool": pool,
    }
    if version:
        args["kubernetes_version"] = version
    return args


l4 = EksGpuNodePool("l4-spot", node_group(L4_SPOT, cluster.private_subnet_ids))
# EFA: one zone (the cluster placement group), and the cluster security group on every EFA interface.
h100_args = node_group(H100_EFA, cluster.private_subnet_ids[:1])
h100_args["security_group_ids"] = [cluster.cluster_security_group_id]
h100 = EksGpuNodePool("h100-efa", h100_args)

POOLS = [L4_SPOT, H100_EFA]
k8s = pulumi.ResourceOptions(provider=cluster.kubernetes_provider, depends_on=[l4, h100])
operator = GpuOperator(
    "gpu-operator", {"cloud": "eks", "pools": POOLS, "driver": {"owner": DRIVER_OWNER}}, opts=k8s
)
autoscaler_args: ClusterAutoscalerArgs = {
    "cluster_name": cluster.cluster_name,
    "region": region,
    # On the system node group; Pod Identity for its AWS credentials (the add-on is installed too).
    "node_selector": {"eks.amazonaws.com/nodegroup": cluster.system_node_group_name},
}
if version:
    autoscaler_args["kubernetes_version"] = version  # the autoscaler image of the same minor
autoscaler = ClusterAutoscaler("cluster-autoscaler", autoscaler_args, opts=k8s)
efa = EfaDevicePlugin("efa-device-plugin", {"pools": POOLS}, opts=k8s)

pulumi.export("clusterName", cluster.cluster_name)
pulumi.export("kubeconfig", cluster.kubeconfig)
pulumi.export("oidcProviderArn", cluster.oidc_provider_arn)
pulumi.export("gpuPoolLabels", {p.plan.pool.name: p.labels for p in (l4, h100)})
pulumi.export("gpuPoolTolerations", {p.plan.pool.name: p.plan.tolerations for p in (l4, h100)})
pulumi.export("gpuOperatorStatus", operator.status)
pulumi.export("clusterAutoscalerRoleArn", autoscaler.role_arn)
pulumi.export("efaDevicePluginStatus", efa.status)
