"""Three small LLMs sharing one NVIDIA L4 through time-slicing, served by KServe in Standard mode.

The L4 node advertises 4 ``nvidia.com/gpu`` replicas; each model asks for 1. Time-slicing gives no
memory isolation, so every model server caps its own share of the 24 GB with vLLM's
``--gpu-memory-utilization`` (see README.md).
"""

from __future__ import annotations

import math
from typing import cast

import pulumi
import pulumi_kubernetes as k8s

from gpu_platform import (
    CertManager,
    DriverOwnerName,
    GpuInferenceService,
    GpuOperator,
    GpuOperatorArgs,
    GpuPoolArgs,
    KServe,
)
from gpu_platform.args import DriverArgs
from gpu_platform.catalog.gpus import GPUS
from gpu_platform.scheduling import pool_labels, pool_taints

config = pulumi.Config()
provider = k8s.Provider(
    "cluster", kubeconfig=config.require_secret("kubeconfig"), enable_server_side_apply=True
)
k8s_opts = pulumi.ResourceOptions(provider=provider)

REPLICAS = 4
POOL: GpuPoolArgs = {
    "name": "l4-shared",
    "gpu": "l4",
    "gpus_per_node": 1,
    # e.g. GKE g2-standard-16 / EKS g6.4xlarge: one L4, 16 vCPU, 64 GiB.
    "cpus_per_node": 16,
    "memory_gib_per_node": 64,
    "max_nodes": 1,
    "sharing": {
        "mode": "time-slicing",
        "replicas": REPLICAS,
        # A request for 2 replicas would not get twice the compute: refuse it (NVIDIA's recommendation).
        "fail_requests_greater_than_one": True,
    },
}

# Three models and one spare replica, so a rolling update can start a new pod before the old one
# stops. Even then at most REPLICAS processes share the GPU, so each caps itself at a 1/REPLICAS
# share of memory, leaving ~10% for the CUDA contexts vLLM does not count.
GPU_MEMORY_FRACTION = math.floor(0.9 / REPLICAS * 100) / 100  # 0.22 of 24 GB = ~5.3 GB per model
MODELS = {
    "qwen25-05b": "hf://Qwen/Qwen2.5-0.5B-Instruct",
    "qwen25-15b": "hf://Qwen/Qwen2.5-1.5B-Instruct",
    "smollm2-17b": "hf://HuggingFaceTB/SmolLM2-1.7B-Instruct",
}
assert len(MODELS) < REPLICAS

# The owner comes from the stack's config: the library checks it is one of DriverOwnerName's values.
DRIVER: DriverArgs = {"owner": cast("DriverOwnerName", config.get("driverOwner") or "operator")}
if config.get("hostDriverVersion"):
    DRIVER["host_version"] = config.require("hostDriverVersion")
OPERATOR: GpuOperatorArgs = {
    "cloud": "existing",
    "pools": [POOL],
    # driverOwner "cloud": hostDriverVersion is the version preinstalled on the node, checked against
    # the images' CUDA.
    "driver": DRIVER,
}
operator = GpuOperator("gpu-operator", OPERATOR, opts=k8s_opts)
cert_manager = CertManager("cert-manager", opts=k8s_opts)
kserve = KServe(
    "kserve",
    {"deployment_mode": "Standard"},
    opts=pulumi.ResourceOptions(provider=provider, depends_on=[cert_manager]),
)
namespace = k8s.core.v1.Namespace("llm", metadata={"name": "llm"}, opts=k8s_opts)

services = {}
for name, uri in MODELS.items():
    svc = GpuInferenceService(
        name,
        {
            "namespace": "llm",
            "pool": POOL,
            "cloud": "existing",
            "model_format": "huggingface",
            "storage_uri": uri,
            "gpus": 1,
            "args": [f"--gpu-memory-utilization={GPU_MEMORY_FRACTION}", "--max-model-len=4096"],
            "cpu": "2",
            "memory": "8Gi",
        },
        opts=pulumi.ResourceOptions(provider=provider, depends_on=[kserve, operator, namespace]),
    )
    services[name] = {"resource": svc.gpu_resource, "units": svc.gpu_units}

plan = operator.plan  # plain values, known before anything is created
pool = plan.pools[0]
pulumi.export("inferenceServices", services)
pulumi.export("gpuMemoryPerModelGb", round(GPUS["l4"].memory_gb * GPU_MEMORY_FRACTION, 1))
# Existing cluster: put these on the L4 node (see README.md) so the selectors and the operator match it.
pulumi.export("nodeLabels", pool_labels(pool, plan.driver))
pulumi.export("nodeTaints", [f"{t.key}={t.value}:{t.effect}" for t in pool_taints(pool)])
