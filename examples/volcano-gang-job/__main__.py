"""Distributed PyTorch on 2 nodes x 8 H100 as a Volcano Job: both pods are scheduled together or not at all.

An existing cluster (kubeconfig from secret config) with one H100 pool gets Volcano from the gpu-platform
library, configured with the capacity plugin, and a ``research`` Queue whose deserved share and capability are
the pool's capacity (2 x 8 = 16 ``nvidia.com/gpu``, plus its cpu and memory). The Job's ``minAvailable: 2``
makes Volcano's gang plugin bind both workers at once. Its pod template carries the pool's node labels and
tolerations from the Volcano component's plan (Volcano injects nothing). See README.md.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.apiextensions import CustomResource

from gpu_platform import Volcano
from gpu_platform.addons.volcano.plan import SCHEDULER_NAME

POOL = "h100"
NODES = 2
GPUS_PER_NODE = 8
TEAM = "research"
JOB = "ddp"
TASK = "worker"
MASTER_PORT = 29500
DEFAULT_IMAGE = "pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime"

config = pulumi.Config()
provider = k8s.Provider(
    "cluster", kubeconfig=config.require_secret("kubeconfig"), enable_server_side_apply=True
)
on_cluster = pulumi.ResourceOptions(provider=provider)

volcano = Volcano(
    "volcano",
    {
        "cloud": "existing",
        "pools": [
            {
                "name": POOL,
                "gpu": "h100-80gb",
                "gpus_per_node": GPUS_PER_NODE,
                "cpus_per_node": 208,
                "memory_gib_per_node": 1872,
                "min_nodes": 0,
                "max_nodes": NODES,
            }
        ],
        "teams": [{"name": TEAM}],
    },
    opts=on_cluster,
)
# What the pool's nodes need: their labels as nodeSelector, their taints as tolerations (known at plan time).
placement = volcano.plan.placements[POOL]

TRAIN_PY = """\
import os, time, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("nccl")
local = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local)
model = DDP(torch.nn.Linear(8192, 8192).cuda(), device_ids=[local])
opt = torch.optim.SGD(model.parameters(), lr=0.01)
start = time.time()
for step in range(300):
    loss = model(torch.randn(256, 8192, device="cuda")).square().mean()
    opt.zero_grad(); loss.backward(); opt.step()
torch.cuda.synchronize()
if dist.get_rank() == 0:
    print(f"world={dist.get_world_size()} seconds={time.time() - start:.1f}", flush=True)
dist.destroy_process_group()
"""

script = k8s.core.v1.ConfigMap(
    f"{JOB}-script",
    metadata={"name": f"{JOB}-script", "namespace": TEAM},
    data={"train.py": TRAIN_PY},
    opts=pulumi.ResourceOptions(provider=provider, depends_on=[volcano]),
)

# Requests equal limits: whole GPUs, and the queue counts requests.
resources = {"nvidia.com/gpu": GPUS_PER_NODE, "cpu": "96", "memory": "896Gi"}
# The svc plugin gives each pod the hostname <job>-<task>-<index> in a headless service named after the job;
# the env plugin sets VC_TASK_INDEX. Rank 0 is the first worker.
master = f"{JOB}-{TASK}-0.{JOB}"

job = CustomResource(
    JOB,
    api_version="batch.volcano.sh/v1alpha1",
    kind="Job",
    metadata={"name": JOB, "namespace": TEAM},
    spec={
        "schedulerName": SCHEDULER_NAME,
        "queue": TEAM,
        # Gang scheduling: Volcano binds no pod until all NODES pods fit.
        "minAvailable": NODES,
        "maxRetry": 3,
        # A lost pod restarts the whole gang (NCCL cannot continue without it).
        "policies": [
            {"event": "PodEvicted", "action": "RestartJob"},
            {"event": "PodFailed", "action": "RestartJob"},
        ],
        "plugins": {"env": [], "svc": []},
        "tasks": [
            {
                "name": TASK,
                "replicas": NODES,
                "template": {
                    "spec": {
                        **placement,
                        "restartPolicy": "Never",
                        "containers": [
                            {
                                "name": "trainer",
                                "image": config.get("image") or DEFAULT_IMAGE,
                                "command": [
                                    "bash",
                                    "-c",
                                    f"torchrun --nnodes={NODES} --nproc-per-node={GPUS_PER_NODE} "
                                    f"--node-rank=$VC_TASK_INDEX --master-addr={master} --master-port={MASTER_PORT} "
                                    "/workspace/train.py",
                                ],
                                "env": [{"name": "NCCL_DEBUG", "value": "WARN"}],
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
                            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "64Gi"}},
                        ],
                    }
                },
            }
        ],
    },
    opts=pulumi.ResourceOptions(
        provider=provider,
        depends_on=[volcano, script],
        # A Volcano Job's tasks are immutable: a changed job is a new run.
        replace_on_changes=["spec"],
        delete_before_replace=True,
    ),
)

pulumi.export("queues", volcano.queue_names)
pulumi.export("job", f"{TEAM}/{JOB}")
