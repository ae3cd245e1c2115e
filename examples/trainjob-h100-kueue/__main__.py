"""A Kubeflow Trainer v2 TrainJob on 2 nodes x 8 H100, gang-admitted by Kueue.

An existing cluster (kubeconfig from secret config) with one H100 pool gets, from the gpu-platform library:
JobSet and Kubeflow Trainer (with its ``torch-distributed`` ClusterTrainingRuntime), and Kueue whose
integrations are exactly what runs here (``batch/job``, ``pod``, ``deployment``, JobSet, TrainJob), with a
ClusterQueue whose quota is the pool (2 x 8 = 16 ``nvidia.com/gpu``) and a team LocalQueue. The TrainJob asks
that LocalQueue for 2 nodes x 8 GPUs; its pods carry the pool's node labels and tolerations, taken from the
library (never typed here). See README.md.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.apiextensions import CustomResource

from gpu_platform import GpuPoolArgs, JobSet, KubeflowTrainer, Kueue
from gpu_platform.addons.kueue.plan import PRIORITY_CLASS_LABEL, QUEUE_NAME_LABEL
from gpu_platform.addons.workloads.plan import kueue_integrations, pool_placements

NODES = 2
GPUS_PER_NODE = 8
POOL = "h100"
TEAM = "ml-research"
LOCAL_QUEUE = "training"
JOB = "llm-pretrain"
RUNTIME = "torch-distributed"
# The torch runtime's own image is CUDA 13.0 (driver 580+); this one runs on 550+ drivers.
DEFAULT_IMAGE = "pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime"
PLACEMENT_MANAGER = "gpu-platform.io/pool-placement"
"""The owner of this program's runtime patch (Kueue adds its own, ``kueue.x-k8s.io/manager``)."""

POOLS: list[GpuPoolArgs] = [
    {
        "name": POOL,
        "gpu": "h100-80gb",
        "gpus_per_node": GPUS_PER_NODE,
        "cpus_per_node": 208,
        "memory_gib_per_node": 1872,
        "min_nodes": 0,
        "max_nodes": NODES,
    }
]

config = pulumi.Config()
provider = k8s.Provider(
    "cluster", kubeconfig=config.require_secret("kubeconfig"), enable_server_side_apply=True
)
on_cluster = pulumi.ResourceOptions(provider=provider)

jobset = JobSet("jobset", opts=on_cluster)
trainer = KubeflowTrainer(
    "kubeflow-trainer",
    {"runtimes": ["torch"]},
    opts=pulumi.ResourceOptions(provider=provider, depends_on=[jobset]),
)
kueue = Kueue(
    "kueue",
    {
        "cloud": "existing",
        "pools": POOLS,
        "teams": [{"name": TEAM, "cluster_queue": "gpu", "queue_name": LOCAL_QUEUE}],
        "integrations": kueue_integrations(["jobset", "trainer"]),
    },
    opts=on_cluster,
)

# What the pool's nodes need: their labels as nodeSelector, their taints as tolerations (the same values the
# pool's Kueue ResourceFlavor injects on admission).
placement = pool_placements("existing", POOLS)[POOL]

TRAIN_PY = """\
import os, time, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("nccl")
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
net = torch.nn.Sequential(torch.nn.Linear(8192, 8192), torch.nn.GELU(), torch.nn.Linear(8192, 8192))
model = DDP(net.cuda(), device_ids=[local])
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
start = time.time()
for step in range(300):
    x = torch.randn(64, 8192, device="cuda", dtype=torch.bfloat16)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).float().square().mean()
    opt.zero_grad(); loss.backward(); opt.step()
torch.cuda.synchronize()
if dist.get_rank() == 0:
    print(f"world={dist.get_world_size()} steps=300 seconds={time.time() - start:.1f}", flush=True)
dist.destroy_process_group()
"""

# The runtime's "node" pods: on the pool, with a memory-backed /dev/shm (NCCL needs more than the 64Mi default).
node_pod = {
    **placement,
    "containers": [{"name": "node", "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}]}],
    "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "64Gi"}}],
}
placement_patch = {
    "template": {
        "spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": node_pod}}}}]}
    }
}

# Requests equal limits: GPUs are whole extended resources, and Kueue counts requests.
resources = {"nvidia.com/gpu": GPUS_PER_NODE, "cpu": "96", "memory": "896Gi"}

train_job = CustomResource(
    JOB,
    api_version="trainer.kubeflow.org/v1alpha1",
    kind="TrainJob",
    metadata={
        "name": JOB,
        "namespace": TEAM,
        # Kueue manages the TrainJob because of this label. Do not set spec.suspend: Kueue's webhook suspends
        # it on creation and resumes it on admission; a value here would fight Kueue on the next `pulumi up`.
        "labels": {QUEUE_NAME_LABEL: LOCAL_QUEUE, PRIORITY_CLASS_LABEL: "training"},
    },
    spec={
        "runtimeRef": {"apiGroup": "trainer.kubeflow.org", "kind": "ClusterTrainingRuntime", "name": RUNTIME},
        "trainer": {
            "image": config.get("image") or DEFAULT_IMAGE,
            "numNodes": NODES,
            "numProcPerNode": GPUS_PER_NODE,
            # Trainer sets PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK, PET_MASTER_ADDR/PORT for torchrun.
            "command": ["torchrun", "--no-python", "python3", "-c", TRAIN_PY],
            "env": [{"name": "NCCL_DEBUG", "value": "WARN"}],
            "resourcesPerNode": {"requests": dict(resources), "limits": dict(resources)},
        },
        "runtimePatches": [{"manager": PLACEMENT_MANAGER, "trainingRuntimeSpec": placement_patch}],
    },
    opts=pulumi.ResourceOptions(
        provider=provider,
        depends_on=[kueue, trainer],
        # A TrainJob's trainer and runtime are immutable: a changed job is a new run.
        replace_on_changes=["spec"],
        delete_before_replace=True,
    ),
)

pulumi.export("localQueues", kueue.local_queues)
pulumi.export("runtimes", trainer.runtimes)
pulumi.export("trainJob", f"{TEAM}/{JOB}")
