"""One model served by vLLM across two 8 x H100 nodes: a LeaderWorkerSet group admitted whole by Kueue.

Llama 3.1 405B Instruct in BF16 (~810 GB of weights) does not fit in one node's 8 x 80 GB: vLLM splits it with
tensor parallelism 8 inside a node and pipeline parallelism 2 across the two nodes, over a Ray cluster the
leader starts and the worker joins (upstream kubernetes-sigs/lws@v0.10.0 examples/vllm/GPU/lws.yaml). The
gpu-platform library installs LeaderWorkerSet and Kueue (integrations: the plain kinds and
``leaderworkerset.x-k8s.io/leaderworkerset``); Kueue admits the leader and its worker as one workload, so a
group never holds 8 GPUs while waiting for the other 8. See README.md.
"""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.apiextensions import CustomResource

from gpu_platform import GpuPoolArgs, Kueue, LeaderWorkerSet
from gpu_platform.addons.kueue.plan import PRIORITY_CLASS_LABEL, QUEUE_NAME_LABEL
from gpu_platform.addons.workloads.plan import kueue_integrations, pool_placements

POOL = "h100"
NODES_PER_REPLICA = 2
GPUS_PER_NODE = 8
TEAM = "serving"
LOCAL_QUEUE = "online"
NAME = "llama-405b"
MODEL = "meta-llama/Llama-3.1-405B-Instruct"
PORT = 8080
DEFAULT_IMAGE = "vllm/vllm-openai:v0.8.5"
"""The image of the upstream LWS vLLM example, whose ``multi-node-serving.sh`` starts the Ray cluster."""

POOLS: list[GpuPoolArgs] = [
    {
        "name": POOL,
        "gpu": "h100-80gb",
        "gpus_per_node": GPUS_PER_NODE,
        "cpus_per_node": 208,
        "memory_gib_per_node": 1872,
        "min_nodes": 0,
        "max_nodes": NODES_PER_REPLICA,
    }
]

config = pulumi.Config()
provider = k8s.Provider(
    "cluster", kubeconfig=config.require_secret("kubeconfig"), enable_server_side_apply=True
)
on_cluster = pulumi.ResourceOptions(provider=provider)

lws = LeaderWorkerSet("lws", opts=on_cluster)
kueue = Kueue(
    "kueue",
    {
        "cloud": "existing",
        "pools": POOLS,
        "teams": [{"name": TEAM, "cluster_queue": "gpu", "queue_name": LOCAL_QUEUE}],
        "integrations": kueue_integrations(["leaderWorkerSet"]),
        # The group is admitted when both pods are Ready; the leader is Ready once the 405B weights are downloaded
        # and loaded, which takes far longer than Kueue's default 10 minutes.
        "wait_for_pods_ready": {"timeout": "60m"},
    },
    opts=on_cluster,
)

token = k8s.core.v1.Secret(
    "hf-token",
    metadata={"name": "hf-token", "namespace": TEAM},
    string_data={"token": config.require_secret("hfToken")},
    opts=pulumi.ResourceOptions(provider=provider, depends_on=[kueue]),
)

# The pool's node labels and taint tolerations, as its Kueue ResourceFlavor injects them.
placement = pool_placements("existing", POOLS)[POOL]
image = config.get("image") or DEFAULT_IMAGE
# Requests equal limits: Kueue counts requests, GPUs are whole extended resources. No ephemeral-storage request:
# the ClusterQueue covers cpu, memory and GPUs only, and Kueue does not admit a workload asking for more.
resources = {"nvidia.com/gpu": GPUS_PER_NODE, "cpu": "96", "memory": "1200Gi"}
env = [
    {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "token"}}},
    {"name": "HF_HOME", "value": "/models"},
]
mounts = [{"name": "dshm", "mountPath": "/dev/shm"}, {"name": "models", "mountPath": "/models"}]
volumes = [
    {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "32Gi"}},
    {"name": "models", "emptyDir": {"sizeLimit": "1Ti"}},
]
LEADER = (
    "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh leader --ray_cluster_size=$(LWS_GROUP_SIZE); "
    f"python3 -m vllm.entrypoints.openai.api_server --port {PORT} --model {MODEL} "
    f"--tensor-parallel-size {GPUS_PER_NODE} --pipeline-parallel-size {NODES_PER_REPLICA}"
)
WORKER = "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh worker --ray_address=$(LWS_LEADER_ADDRESS)"


def pod(role: str, command: str, probe: bool) -> dict[str, object]:
    container: dict[str, object] = {
        "name": f"vllm-{role}",
        "image": image,
        "command": ["sh", "-c", command],
        "env": env,
        "resources": {"requests": dict(resources), "limits": dict(resources)},
        "volumeMounts": mounts,
    }
    if probe:
        container["ports"] = [{"containerPort": PORT, "name": "http"}]
        container["readinessProbe"] = {
            "tcpSocket": {"port": PORT},
            "initialDelaySeconds": 15,
            "periodSeconds": 10,
        }
    return {
        "metadata": {"labels": {"role": role}},
        "spec": {**placement, "containers": [container], "volumes": volumes},
    }


server = CustomResource(
    NAME,
    api_version="leaderworkerset.x-k8s.io/v1",
    kind="LeaderWorkerSet",
    metadata={
        "name": NAME,
        "namespace": TEAM,
        "labels": {QUEUE_NAME_LABEL: LOCAL_QUEUE, PRIORITY_CLASS_LABEL: "inference-high"},
    },
    spec={
        "replicas": 1,
        "startupPolicy": "LeaderCreated",
        # A new version replaces a group in place, never beside it: no spare 2 x 8 H100 to surge onto. (LWS's
        # own defaults, written out: Kueue's LeaderWorkerSet webhook adds an empty rolloutStrategy that LWS's
        # webhook must otherwise fill, sigs.k8s.io/lws v0.10.0 api/leaderworkerset/v1.)
        "rolloutStrategy": {
            "type": "RollingUpdate",
            "rollingUpdateConfiguration": {"maxUnavailable": 1, "maxSurge": 0},
        },
        "leaderWorkerTemplate": {
            "size": NODES_PER_REPLICA,
            # One model instance spans both pods: if either restarts, the group restarts together.
            "restartPolicy": "RecreateGroupOnPodRestart",
            "leaderTemplate": pod("leader", LEADER, probe=True),
            "workerTemplate": pod("worker", WORKER, probe=False),
        },
    },
    opts=pulumi.ResourceOptions(provider=provider, depends_on=[kueue, lws, token]),
)

service = k8s.core.v1.Service(  # type: ignore[call-overload]  # plain-dict spec below
    f"{NAME}-leader",
    metadata={"name": f"{NAME}-leader", "namespace": TEAM},
    spec={  # pyright: ignore[reportArgumentType]  (plain dicts, as pulumi_kubernetes takes them)
        "type": "ClusterIP",
        "selector": {"leaderworkerset.sigs.k8s.io/name": NAME, "role": "leader"},
        "ports": [{"name": "http", "port": PORT, "targetPort": PORT, "protocol": "TCP"}],
    },
    opts=pulumi.ResourceOptions(provider=provider, depends_on=[kueue]),
)

pulumi.export("endpoint", f"http://{NAME}-leader.{TEAM}.svc:{PORT}/v1")
pulumi.export("localQueues", kueue.local_queues)
