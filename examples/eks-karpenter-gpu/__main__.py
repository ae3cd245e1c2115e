"""A GPU NodePool that Karpenter scales from zero when Kueue admits a queued training Job (EKS).

- ``EksCluster``: VPC, control plane, and an untainted ``system`` node group of two nodes: Karpenter's two
  controller replicas run there (never on Karpenter's own nodes, one per node).
- ``EksCluster`` also tags its private subnets (in the subnets' own ``tags``) and its security group
  ``karpenter.sh/discovery`` (``karpenter_discovery``), as the stack does: a separate ``aws.ec2.Tag`` on a subnet
  whose ``tags`` the cluster owns is stripped by the next ``pulumi up --refresh``, and Karpenter then finds
  no subnet and launches nothing.
- ``EksKarpenter``: Karpenter 1.14.1, its IAM through EKS Pod Identity, the node role's ``EC2_LINUX`` access
  entry, the SQS interruption queue and its EventBridge rules (``tag_discovery: false``: the cluster tags).
- ``EksKarpenterGpuNodePool``: per GPU pool a NodePool + EC2NodeClass with the labels and taints a managed
  node group of the library would carry; ``limits`` from ``max_nodes``; only empty nodes are removed.
- ``GpuOperator`` and ``Kueue`` are given the same pools, exactly as for managed node groups; Kueue's
  integrations are what this program installs (plain Jobs and pods, no JobSet/Trainer/LWS/KubeRay).
- The ``finetune`` Job is queued in the team's LocalQueue. When Kueue admits it, it injects the pool's node
  selector and tolerations; the pod is pending on a pool with no node, and Karpenter launches one
  ``g6.2xlarge`` spot node for it. The pod carries ``karpenter.sh/do-not-disrupt`` so the node is neither
  consolidated nor drifted while it runs.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

from gpu_platform import (
    EksCluster,
    EksKarpenter,
    EksKarpenterGpuNodePool,
    GpuOperator,
    GpuPoolArgs,
    Kueue,
)
from gpu_platform.addons.kueue.plan import QUEUE_NAME_LABEL
from gpu_platform.addons.workloads.plan import kueue_integrations
from gpu_platform.plans.karpenter import DO_NOT_DISRUPT

config = pulumi.Config()
region = pulumi.Config("aws").require("region")
TEAM = "ml"
LOCAL_QUEUE = "training"

cluster = EksCluster(
    config.get("clusterName") or "gpu-karpenter",
    {
        "region": region,
        "kubernetes_version": config.get("kubernetesVersion") or "1.34",
        "system_pool": {"machine_type": "m6i.large", "min_nodes": 2, "max_nodes": 3},
        # The cluster owns its subnets' tags: the discovery tag must be among them.
        "karpenter_discovery": True,
    },
)
on_cluster = pulumi.ResourceOptions(provider=cluster.kubernetes_provider)

POOLS: list[GpuPoolArgs] = [
    # One L4 per node, spot: fine-tuning and experiments. Scales 0-4.
    {"name": "l4-spot", "machine_type": "g6.2xlarge", "max_nodes": 4, "spot": True},
    # Whole 8 x H100 nodes on demand, in one zone, for a second team's training (an extra taint).
    {
        "name": "h100",
        "machine_type": "p5.48xlarge",
        "max_nodes": 1,
        "zones": [f"{region}a"],
        "disk_size_gb": 1000,
        "taints": [{"key": "workload", "value": "training"}],
    },
]

karpenter = EksKarpenter(
    "karpenter",
    {
        "cluster_name": cluster.cluster_name,
        "subnet_ids": cluster.private_subnet_ids,
        "security_group_ids": [cluster.cluster_security_group_id],
        "system_node_group": cluster.system_node_group_name,
        "tag_discovery": False,  # EksCluster's karpenter_discovery tags them
    },
    opts=pulumi.ResourceOptions(provider=cluster.kubernetes_provider, depends_on=[cluster]),
)
node_pools = [
    EksKarpenterGpuNodePool(
        pool["name"],
        {
            "pool": pool,
            "node_role_name": karpenter.node_role_name,
            "discovery": karpenter.discovery,
            # Jobs of a day: empty nodes go after 10 minutes, one node at a time.
            "disruption": {"consolidate_after": "10m"},
        },
        # The NodePool waits for Karpenter's CRDs (and the controller) through this dependency.
        opts=pulumi.ResourceOptions(provider=cluster.kubernetes_provider, depends_on=[karpenter]),
    )
    for pool in POOLS
]

operator = GpuOperator("gpu-operator", {"cloud": "eks", "pools": POOLS}, opts=on_cluster)
kueue = Kueue(
    "kueue",
    {
        "cloud": "eks",
        "pools": POOLS,
        "teams": [{"name": TEAM, "cluster_queue": "gpu", "queue_name": LOCAL_QUEUE}],
        # No workload controllers run here: only Kueue's built-in kinds (batch/job, pods).
        "integrations": kueue_integrations([]),
    },
    opts=on_cluster,
)

# A queued fine-tuning Job. No node selector or tolerations here: Kueue injects the pool's (its flavor's)
# when it admits the Job; Kueue suspends it on creation (queue-name label) and resumes it on admission.
job = k8s.batch.v1.Job(  # type: ignore[call-overload]  # plain-dict spec below
    "finetune",
    metadata={
        "name": "finetune",
        "namespace": TEAM,
        "labels": {QUEUE_NAME_LABEL: LOCAL_QUEUE},
        # Pulumi would otherwise wait for the Job to finish; it waits in the queue first.
        "annotations": {"pulumi.com/skipAwait": "true"},
    },
    spec={  # pyright: ignore[reportArgumentType]  (plain dicts, as pulumi_kubernetes takes them)
        "backoffLimit": 0,
        "template": {
            "metadata": {"annotations": DO_NOT_DISRUPT},
            "spec": {
                "restartPolicy": "Never",
                "containers": [
                    {
                        "name": "train",
                        "image": "pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime",
                        "command": [
                            "python",
                            "-c",
                            "import torch; print(torch.cuda.get_device_name(0)); "
                            "x = torch.randn(8192, 8192, device='cuda'); print((x @ x).sum().item())",
                        ],
                        # Requests equal limits; Kueue counts them against the pool's quota.
                        "resources": {
                            "requests": {"nvidia.com/gpu": 1, "cpu": "4", "memory": "16Gi"},
                            "limits": {"nvidia.com/gpu": 1, "cpu": "4", "memory": "16Gi"},
                        },
                    }
                ],
            },
        },
    },
    opts=pulumi.ResourceOptions(
        provider=cluster.kubernetes_provider, depends_on=[kueue, operator, *node_pools]
    ),
)

pulumi.export("clusterName", cluster.cluster_name)
pulumi.export("kubeconfig", cluster.kubeconfig)
pulumi.export("karpenterNodeRole", karpenter.node_role_name)
pulumi.export("interruptionQueue", karpenter.interruption_queue)
pulumi.export("gpuPoolLabels", {p.plan.pool.name: p.labels for p in node_pools})
pulumi.export("gpuPoolTolerations", {p.plan.pool.name: p.plan.tolerations for p in node_pools})
