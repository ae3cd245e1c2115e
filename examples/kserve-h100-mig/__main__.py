"""One model per MIG slice of an NVIDIA H100 80GB, served by KServe in Standard mode.

The GPU is split into ``3g.40gb + 2g.20gb + 2g.20gb`` (a placement that fits: 2g at memory slices
0 and 2, 3g at 4) with the ``mixed`` strategy, so the node advertises ``nvidia.com/mig-3g.40gb: 1``
and ``nvidia.com/mig-2g.20gb: 2``. Each model requests one slice: its own memory, compute and
fault domain, unlike time-slicing.
"""

from __future__ import annotations

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
from gpu_platform.scheduling import pool_labels, pool_taints
from gpu_platform.sharing import advertised_resources

config = pulumi.Config()
provider = k8s.Provider(
    "cluster", kubeconfig=config.require_secret("kubeconfig"), enable_server_side_apply=True
)
k8s_opts = pulumi.ResourceOptions(provider=provider)

POOL: GpuPoolArgs = {
    "name": "h100-mig",
    "gpu": "h100-80gb",
    "gpus_per_node": 1,
    # e.g. GKE a3-highgpu-1g: one H100 80GB, 26 vCPU, 234 GiB.
    "cpus_per_node": 26,
    "memory_gib_per_node": 234,
    "max_nodes": 1,
    "isolation_required": True,
    "sharing": {"mode": "mig", "mig": {"profiles": ["3g.40gb", "2g.20gb", "2g.20gb"], "strategy": "mixed"}},
}

# model name -> (storage URI, MIG profile, cpu, memory). vLLM sees its slice as a whole GPU, so the
# default --gpu-memory-utilization (0.9) is 0.9 of the slice, not of the H100.
MODELS = {
    "qwen25-7b": ("hf://Qwen/Qwen2.5-7B-Instruct", "3g.40gb", "8", "48Gi"),
    "qwen25-3b": ("hf://Qwen/Qwen2.5-3B-Instruct", "2g.20gb", "4", "24Gi"),
    "phi35-mini": ("hf://microsoft/Phi-3.5-mini-instruct", "2g.20gb", "4", "24Gi"),
}

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
for name, (uri, profile, cpu, memory) in MODELS.items():
    svc = GpuInferenceService(
        name,
        {
            "namespace": "llm",
            "pool": POOL,
            "cloud": "existing",
            "model_format": "huggingface",
            "storage_uri": uri,
            "mig_profile": profile,
            "gpus": 1,
            "args": ["--max-model-len=8192"],
            "cpu": cpu,
            "memory": memory,
        },
        opts=pulumi.ResourceOptions(provider=provider, depends_on=[kserve, operator, namespace]),
    )
    services[name] = {"resource": svc.gpu_resource, "units": svc.gpu_units}

plan = operator.plan  # plain values, known before anything is created
pool = plan.pools[0]
pulumi.export("inferenceServices", services)
pulumi.export("sliceCapacity", advertised_resources(pool))
# Existing cluster: put these on the H100 node (see README.md); nvidia.com/mig.config selects the layout.
pulumi.export("nodeLabels", pool_labels(pool, plan.driver))
pulumi.export("nodeTaints", [f"{t.key}={t.value}:{t.effect}" for t in pool_taints(pool)])
