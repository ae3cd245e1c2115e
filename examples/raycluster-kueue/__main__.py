"""A RayCluster with GPU workers on an L4 pool, admitted by Kueue as one workload.

An existing cluster (kubeconfig from secret config) with a pool of 4 x L4 nodes gets KubeRay and Kueue from
the gpu-platform library; Kueue integrates exactly the plain kinds and Ray (``ray.io/rayjob``,
``ray.io/raycluster``, ``ray.io/rayservice``). The RayCluster asks the team's LocalQueue for a head and four
2-GPU workers: Kueue admits them together or not at all. Every pod template carries the pool's node labels and
tolerations, taken from the library. See README.md.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.apiextensions import CustomResource

from gpu_platform import GpuPoolArgs, KubeRay, Kueue
from gpu_platform.addons.kueue.plan import PRIORITY_CLASS_LABEL, QUEUE_NAME_LABEL
from gpu_platform.addons.workloads.plan import kueue_integrations, pool_placements

POOL = "l4"
NODES = 2
GPUS_PER_NODE = 4
TEAM = "ml-research"
LOCAL_QUEUE = "ray"
CLUSTER = "ray-l4"
WORKERS = 4
GPUS_PER_WORKER = 2
RAY_VERSION = "2.52.0"
"""The Ray release KubeRay v1.7.0's samples use."""
DEFAULT_IMAGE = f"rayproject/ray:{RAY_VERSION}-py311-gpu"

POOLS: list[GpuPoolArgs] = [
    {
        "name": POOL,
        "gpu": "l4",
        "gpus_per_node": GPUS_PER_NODE,
        "cpus_per_node": 48,
        "memory_gib_per_node": 192,
        "min_nodes": 0,
        "max_nodes": NODES,
    }
]

config = pulumi.Config()
provider = k8s.Provider(
    "cluster", kubeconfig=config.require_secret("kubeconfig"), enable_server_side_apply=True
)
on_cluster = pulumi.ResourceOptions(provider=provider)

kuberay = KubeRay("kuberay", opts=on_cluster)
kueue = Kueue(
    "kueue",
    {
        "cloud": "existing",
        "pools": POOLS,
        "teams": [{"name": TEAM, "cluster_queue": "gpu", "queue_name": LOCAL_QUEUE}],
        "integrations": kueue_integrations(["kuberay"]),
    },
    opts=on_cluster,
)

# The pool's node labels and taint tolerations, as its Kueue ResourceFlavor injects them. The head runs on the
# pool too: the queue's cpu and memory quota is the pool's, so Kueue places every pod set of the cluster there.
placement = pool_placements("existing", POOLS)[POOL]
image = config.get("image") or DEFAULT_IMAGE


def resources(gpus: int, cpu: str, memory: str) -> dict[str, dict[str, object]]:
    """Requests equal limits (Kueue counts requests; GPUs are whole extended resources)."""
    amounts: dict[str, object] = {"cpu": cpu, "memory": memory}
    if gpus:
        amounts["nvidia.com/gpu"] = gpus
    return {"requests": dict(amounts), "limits": dict(amounts)}


head = {
    "rayStartParams": {"dashboard-host": "0.0.0.0", "num-gpus": "0"},
    "template": {
        "spec": {
            **placement,
            "containers": [
                {
                    "name": "ray-head",
                    "image": image,
                    "ports": [
                        {"containerPort": 6379, "name": "gcs-server"},
                        {"containerPort": 8265, "name": "dashboard"},
                        {"containerPort": 10001, "name": "client"},
                    ],
                    "resources": resources(0, "4", "16Gi"),
                }
            ],
        }
    },
}
worker = {
    "groupName": "gpu-workers",
    # A fixed size: Kueue admits the cluster as it is (no in-tree autoscaling under Kueue).
    "replicas": WORKERS,
    "minReplicas": WORKERS,
    "maxReplicas": WORKERS,
    "rayStartParams": {},
    "template": {
        "spec": {
            **placement,
            "containers": [
                {
                    "name": "ray-worker",
                    "image": image,
                    "resources": resources(GPUS_PER_WORKER, "16", "64Gi"),
                    "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}],
                }
            ],
            "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}}],
        }
    },
}

ray_cluster = CustomResource(
    CLUSTER,
    api_version="ray.io/v1",
    kind="RayCluster",
    metadata={
        "name": CLUSTER,
        "namespace": TEAM,
        # Kueue manages the RayCluster because of this label (and suspends it until admitted: do not set
        # spec.suspend here).
        "labels": {QUEUE_NAME_LABEL: LOCAL_QUEUE, PRIORITY_CLASS_LABEL: "batch-low"},
    },
    spec={"rayVersion": RAY_VERSION, "headGroupSpec": head, "workerGroupSpecs": [worker]},
    opts=pulumi.ResourceOptions(provider=provider, depends_on=[kueue, kuberay]),
)

pulumi.export("localQueues", kueue.local_queues)
pulumi.export("rayCluster", f"{TEAM}/{CLUSTER}")
pulumi.export("dashboard", f"http://{CLUSTER}-head-svc.{TEAM}.svc:8265")
