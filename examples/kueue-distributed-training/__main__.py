"""Distributed PyTorch training on 2 nodes x 8 H100 over EFA, admitted by Kueue only when all 16 GPUs are free.

An EKS cluster (kubeconfig from secret config) with a p5.48xlarge EFA pool, as ``examples/eks-gpu-pools``
creates it (``h100-efa``: every EFA device attached, the EFA device plugin installed), gets JobSet and Kueue
from the gpu-platform library: a ResourceFlavor for the pool, a ClusterQueue whose quota is the pool's capacity
(2 x 8 = 16 ``nvidia.com/gpu``, 2 x 32 = 64 ``vpc.amazonaws.com/efa``, 2 x 5120Mi ``hugepages-2Mi``), a team
namespace with a LocalQueue, and gang admission (``waitForPodsReady``). The JobSet below asks that LocalQueue for 2 pods,
each a whole node: 8 GPUs and the node's 32 EFA devices, so NCCL runs over EFA, not TCP; see README.md.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.apiextensions import CustomResource

from gpu_platform import JobSet, Kueue
from gpu_platform.addons.kueue.plan import PRIORITY_CLASS_LABEL, QUEUE_NAME_LABEL
from gpu_platform.addons.workloads.plan import kueue_integrations

NODES = 2
GPUS_PER_NODE = 8
EFA_PER_NODE = 32
"""EFA devices of a p5.48xlarge; a pod that asks for none gets none, and NCCL falls back to TCP."""
HUGEPAGES_2MI = "5120Mi"
"""What AWS's EFA pod spec requests (EKS user guide, "Run machine learning training on Amazon EKS with Elastic
Fabric Adapter"): libfabric's EFA provider uses 2 MiB huge pages, which EFA instances pre-allocate; Kueue
covers ``hugepages-2Mi`` for EFA pools and the Auto Scaling group's template offers it."""
TOPOLOGY = {"kueue.x-k8s.io/podset-preferred-topology": "topology.k8s.aws/network-node-layer-3"}
"""Kueue topology-aware scheduling (the pool sets ``topology: true``): place both pods under one EC2 network node
of the lowest layer, the fewest hops between them, or as close as Kueue can get; ``podset-required-topology``
would instead keep the job pending until one such domain has room for both."""
SAFE_TO_EVICT = {"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}
"""A running rank is never evicted by the Cluster Autoscaler (its FAQ); with ``backoffLimit: 0`` one
eviction would fail the whole run. The library's per-group thresholds keep busy GPU nodes too
(docs/autoscaling.md); this annotation is the guarantee that does not depend on requests."""
TEAM = "ml-research"
LOCAL_QUEUE = "training"
JOB = "pytorch-ddp"
WORKERS = "workers"
MASTER_PORT = 29500
DEFAULT_IMAGE = (
    "763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-training:2.5.1-gpu-py311-cu124-ubuntu22.04-ec2"
)
"""AWS Deep Learning Container for EC2/EKS: PyTorch with libfabric and the AWS OFI NCCL plugin, which NCCL
needs to use EFA (a stock PyTorch image has neither). Use the registry of your region."""

config = pulumi.Config()
provider = k8s.Provider(
    "cluster",
    kubeconfig=config.require_secret("kubeconfig"),
    enable_server_side_apply=True,
)
on_cluster = pulumi.ResourceOptions(provider=provider)

# The JobSet controller (pinned chart, on the system nodes); Kueue integrates exactly what runs here.
jobset_controller = JobSet("jobset", opts=on_cluster)
kueue = Kueue(
    "kueue",
    {
        "cloud": "eks",
        # The pool exactly as the EKS node group was given it (examples/eks-gpu-pools, H100_EFA).
        "pools": [
            {
                "name": "h100-efa",
                "machine_type": "p5.48xlarge",
                "min_nodes": 0,
                "max_nodes": NODES,
                "efa": True,
                "topology": True,
                "taints": [{"key": "workload", "value": "training", "effect": "NoSchedule"}],
            }
        ],
        "teams": [{"name": TEAM, "cluster_queue": "gpu", "queue_name": LOCAL_QUEUE}],
        "integrations": kueue_integrations(["jobset"]),
    },
    opts=on_cluster,
)

# A minimal DDP program: every rank trains a small model and all-reduces gradients over NCCL.
TRAIN_PY = """\
import os, time, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("nccl")
rank, world = dist.get_rank(), dist.get_world_size()
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
net = torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 10))
model = DDP(net.cuda(), device_ids=[local])
opt = torch.optim.SGD(model.parameters(), lr=0.01)
start = time.time()
for step in range(200):
    x = torch.randn(256, 4096, device="cuda")
    loss = model(x).square().mean()
    opt.zero_grad(); loss.backward(); opt.step()
torch.cuda.synchronize()
if rank == 0:
    print(f"world={world} steps=200 loss={loss.item():.4f} seconds={time.time() - start:.1f}", flush=True)
dist.destroy_process_group()
"""

script = k8s.core.v1.ConfigMap(
    f"{JOB}-script",
    metadata={"name": f"{JOB}-script", "namespace": TEAM},
    data={"train.py": TRAIN_PY},
    opts=pulumi.ResourceOptions(provider=provider, depends_on=[kueue]),
)

# Requests equal limits: GPUs are extended resources (no overcommit), and Kueue counts requests.
resources = {
    "nvidia.com/gpu": GPUS_PER_NODE,
    "vpc.amazonaws.com/efa": EFA_PER_NODE,
    "hugepages-2Mi": HUGEPAGES_2MI,
    "cpu": "64",
    "memory": "512Gi",
}
# JobSet's headless service names each pod <jobset>-<job>-<job index>-<pod index>.<jobset>: rank 0 is here.
master = f"{JOB}-{WORKERS}-0-0.{JOB}"

jobset = CustomResource(
    JOB,
    api_version="jobset.x-k8s.io/v1alpha2",
    kind="JobSet",
    metadata={
        "name": JOB,
        "namespace": TEAM,
        # Kueue manages the JobSet because of this label; do not set spec.suspend: Kueue's webhook
        # suspends it on creation and resumes it on admission (setting it here would fight Kueue).
        "labels": {QUEUE_NAME_LABEL: LOCAL_QUEUE, PRIORITY_CLASS_LABEL: "training"},
    },
    spec={
        "network": {"enableDNSHostnames": True},
        "failurePolicy": {"maxRestarts": 0},
        "replicatedJobs": [
            {
                "name": WORKERS,
                "replicas": 1,
                "template": {
                    "spec": {
                        "parallelism": NODES,
                        "completions": NODES,
                        "completionMode": "Indexed",
                        "backoffLimit": 0,
                        "template": {
                            "metadata": {"annotations": {**SAFE_TO_EVICT, **TOPOLOGY}},
                            "spec": {
                                "restartPolicy": "Never",
                                # No GPU tolerations or nodeSelector here: Kueue injects the flavor's
                                # (the pool's) on admission.
                                "containers": [
                                    {
                                        "name": "trainer",
                                        "image": config.get("image") or DEFAULT_IMAGE,
                                        "command": [
                                            "bash",
                                            "-c",
                                            f"torchrun --nnodes={NODES} --nproc-per-node={GPUS_PER_NODE} "
                                            "--node-rank=$JOB_COMPLETION_INDEX "
                                            f"--master-addr={master} --master-port={MASTER_PORT} "
                                            "/workspace/train.py",
                                        ],
                                        "env": [
                                            # NCCL over EFA: the AWS OFI NCCL plugin (aws-ofi-nccl, in the
                                            # image) loads libfabric's EFA provider, with GPUDirect RDMA (p4d/p5).
                                            {"name": "FI_PROVIDER", "value": "efa"},
                                            {"name": "FI_EFA_USE_DEVICE_RDMA", "value": "1"},
                                            # INFO prints "NET/OFI Selected provider is efa" once per rank.
                                            {"name": "NCCL_DEBUG", "value": "INFO"},
                                        ],
                                        "ports": [{"containerPort": MASTER_PORT}],
                                        "resources": {"requests": dict(resources), "limits": dict(resources)},
                                        "volumeMounts": [
                                            {"name": "script", "mountPath": "/workspace"},
                                            {"name": "dshm", "mountPath": "/dev/shm"},
                                        ],
                                    }
                                ],
                                "volumes": [
                                    {"name": "script", "configMap": {"name": f"{JOB}-script"}},
                                    # NCCL needs more shared memory than the container default of 64Mi.
                                    {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "64Gi"}},
                                ],
                            },
                        },
                    }
                },
            }
        ],
    },
    opts=pulumi.ResourceOptions(
        provider=provider,
        depends_on=[kueue, jobset_controller, script],
        # A JobSet's replicatedJobs are immutable: a changed job is a new run.
        replace_on_changes=["spec"],
        delete_before_replace=True,
    ),
)

pulumi.export("clusterQueues", kueue.cluster_queue_names)
pulumi.export("localQueues", kueue.local_queues)
pulumi.export("jobset", f"{TEAM}/{JOB}")
