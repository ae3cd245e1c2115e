"""A MultiKueue fleet: one manager cluster queues GPU jobs, a GKE worker (H100) and an EKS worker (L4) run them.

The manager is an existing cluster (kubeconfig from secret config) with no GPUs: teams submit JobSets and batch
Jobs to its LocalQueues; Kueue admits each against the fleet's total quota and copies it to a worker with room.
Each worker is a cluster this library builds (tainted GPU pool, GPU Operator, JobSet). ``GpuFleet`` installs Kueue
on all three from one declaration of queues and teams, gives the manager a least-privilege token kubeconfig per
worker (a Pulumi secret) and checks the fleet: GPUs where each queue is sent, controllers, one Kueue release, and
room for each queue's largest job. See docs/multi-cluster.md.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

from gpu_platform import (
    DriverOwnerName,
    EksCluster,
    EksGpuNodePool,
    GkeCluster,
    GkeGpuNodePool,
    GpuFleet,
    GpuOperator,
    GpuPoolArgs,
    JobSet,
)

config = pulumi.Config()
project = pulumi.Config("gcp").require("project")
region = pulumi.Config("gcp").require("region")
aws_region = pulumi.Config("aws").require("region")
DRIVER_OWNER: DriverOwnerName = "auto"

H100: GpuPoolArgs = {"name": "h100", "machine_type": "a3-highgpu-8g", "min_nodes": 0, "max_nodes": 2}
"""2 x 8 H100 on GKE: training gangs of up to 16 GPUs."""
L4: GpuPoolArgs = {"name": "l4", "machine_type": "g6.12xlarge", "min_nodes": 0, "max_nodes": 4}
"""4 x 4 L4 on EKS: inference and small fine-tuning jobs."""

# The manager: an existing cluster; it runs Kueue and the JobSet CRDs, no GPU job.
manager_kubeconfig = config.require_secret("managerKubeconfig")
manager = k8s.Provider("manager", kubeconfig=manager_kubeconfig)
manager_jobset = JobSet("manager-jobset", opts=pulumi.ResourceOptions(provider=manager))

# Worker 1: GKE with an H100 pool.
gke = GkeCluster(
    "gke-h100",
    {
        "location": region,
        "project": project,
        "system_pool": {"machine_type": "e2-standard-4", "min_nodes": 1, "max_nodes": 3},
        "deletion_protection": False,
    },
)
gke_pool = GkeGpuNodePool(
    "gke-h100-pool",
    {
        "cluster": gke.cluster_name,
        "location": region,
        "project": project,
        "service_account": gke.node_service_account_email,
        "pool": H100,
        "driver": {"owner": DRIVER_OWNER},
    },
)
on_gke = pulumi.ResourceOptions(provider=gke.kubernetes_provider, depends_on=[gke_pool])
gke_operator = GpuOperator(
    "gke-gpu-operator", {"cloud": "gke", "pools": [H100], "driver": {"owner": DRIVER_OWNER}}, opts=on_gke
)
gke_jobset = JobSet("gke-jobset", opts=on_gke)

# Worker 2: EKS with an L4 pool.
eks = EksCluster(
    "eks-l4",
    {"region": aws_region, "system_pool": {"machine_type": "m6i.large", "min_nodes": 2, "max_nodes": 4}},
)
eks_pool = EksGpuNodePool(
    "eks-l4-pool",
    {
        "cluster_name": eks.cluster_name,
        "node_role_arn": eks.node_role_arn,
        "subnet_ids": eks.private_subnet_ids,
        "driver": {"owner": DRIVER_OWNER},
        "pool": L4,
    },
)
eks_operator = GpuOperator(
    "eks-gpu-operator",
    {"cloud": "eks", "pools": [L4], "driver": {"owner": DRIVER_OWNER}},
    opts=pulumi.ResourceOptions(provider=eks.kubernetes_provider, depends_on=[eks_pool]),
)

fleet = GpuFleet(
    "fleet",
    {
        "manager": {"kubeconfig": manager_kubeconfig, "controllers": ["jobset"]},
        "workers": [
            {
                "name": "gke-h100",
                "kubeconfig": gke.kubeconfig,
                "cloud": "gke",
                "pools": [H100],
                "gpu_operator": {"driver": {"owner": DRIVER_OWNER}},
                "controllers": ["jobset"],
            },
            {
                "name": "eks-l4",
                "kubeconfig": eks.kubeconfig,
                "cloud": "eks",
                "pools": [L4],
                "gpu_operator": {"driver": {"owner": DRIVER_OWNER}},
            },
        ],
        "cluster_queues": [
            # Distributed training: JobSets on the H100s only, up to the whole pool at once.
            {
                "name": "training",
                "pools": ["h100"],
                "workers": ["gke-h100"],
                "frameworks": ["jobset.x-k8s.io/jobset"],
                "largest_gang_gpus": 16,
            },
            # Batch inference: L4s first, EKS before GKE (an Incremental dispatcher follows this order).
            {"name": "inference", "pools": ["l4"], "workers": ["eks-l4"]},
        ],
        "teams": [
            {"name": "research", "cluster_queue": "training"},
            {"name": "serving", "cluster_queue": "inference"},
        ],
    },
    opts=pulumi.ResourceOptions(depends_on=[manager_jobset, gke_operator, gke_jobset, eks_operator]),
)

pulumi.export("clusterQueues", fleet.cluster_queue_names)
pulumi.export("localQueues", fleet.local_queues)
pulumi.export("workers", fleet.workers)
