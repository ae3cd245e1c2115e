"""The ``serving`` stacks the tests plan: three models on each cloud, one on a MIG slice, one on a whole GPU and one
over the 8 GPUs of one H100 node, on the pools each cloud names its machines by."""

from __future__ import annotations

import copy
from typing import Any

MIG = {"mode": "mig", "mig": {"strategy": "mixed", "layout": "all-balanced"}}
"""H100 / A100 80GB ``all-balanced``: 1g.10gb x2, 2g.20gb and 3g.40gb per GPU."""

CLUSTERS: dict[str, dict[str, Any]] = {
    "gke": {
        "cloud": "gke",
        "cluster": {"name": "llm", "project": "example", "region": "us-central1"},
        "gpuPools": [
            {"name": "h100", "machineType": "a3-highgpu-8g", "maxNodes": 2, "zones": ["us-central1-a"]},
            # GKE's autoscaler cannot see operator MIG slices on an empty pool: one node stays.
            {
                "name": "h100-mig",
                "machineType": "a3-highgpu-8g",
                "minNodes": 1,
                "maxNodes": 1,
                "zones": ["us-central1-a"],
                "sharing": MIG,
            },
            {"name": "l4", "machineType": "g2-standard-8", "maxNodes": 4, "zones": ["us-central1-a"]},
        ],
    },
    "eks": {
        "cloud": "eks",
        "cluster": {
            "name": "llm",
            "region": "us-east-1",
            "vpcCidr": "10.40.0.0/16",
            "zones": ["us-east-1a", "us-east-1b"],
        },
        "gpuPools": [
            {"name": "h100", "machineType": "p5.48xlarge", "maxNodes": 2, "zones": ["us-east-1a"]},
            {
                "name": "h100-mig",
                "machineType": "p5.48xlarge",
                "maxNodes": 1,
                "zones": ["us-east-1a"],
                "sharing": MIG,
            },
            {"name": "l4", "machineType": "g6.2xlarge", "maxNodes": 4, "zones": ["us-east-1a"]},
        ],
    },
    "aks": {
        "cloud": "aks",
        "cluster": {"name": "llm", "region": "westeurope", "resourceGroup": "rg-llm"},
        "gpuPools": [
            {"name": "h100", "machineType": "Standard_ND96isr_H100_v5", "maxNodes": 2},
            # AKS's autoscaler cannot scale MIG pools up from 0 (Azure/AKS#4216).
            {
                "name": "a100-mig",
                "machineType": "Standard_NC24ads_A100_v4",
                "minNodes": 1,
                "maxNodes": 2,
                "sharing": MIG,
            },
            {"name": "a100", "machineType": "Standard_NC24ads_A100_v4", "maxNodes": 2},
        ],
        "gpuOperator": {"driver": {"owner": "operator"}},
    },
    "existing": {
        "cloud": "existing",
        "cluster": {"name": "onprem", "kubeconfig": {"secure": "v1:placeholder"}},
        "gpuPools": [
            {
                "name": "h100",
                "gpu": "h100-80gb",
                "gpusPerNode": 8,
                "cpusPerNode": 192,
                "memoryGibPerNode": 2048,
                "maxNodes": 2,
            },
            {
                "name": "h100-mig",
                "gpu": "h100-80gb",
                "gpusPerNode": 1,
                "cpusPerNode": 26,
                "memoryGibPerNode": 234,
                "maxNodes": 1,
                "sharing": MIG,
            },
            {
                "name": "l4",
                "gpu": "l4",
                "gpusPerNode": 1,
                "cpusPerNode": 8,
                "memoryGibPerNode": 32,
                "maxNodes": 2,
            },
        ],
        "gpuOperator": {"driver": {"owner": "operator"}},
    },
}
MIG_POOL = {"gke": "h100-mig", "eks": "h100-mig", "aks": "a100-mig", "existing": "h100-mig"}
WHOLE_POOL = {"gke": "l4", "eks": "l4", "aks": "a100", "existing": "l4"}


def models(cloud: str) -> list[dict[str, Any]]:
    """Llama 3.1 8B on a 3g.40gb slice, Qwen2.5 7B on one whole GPU, Llama 3.1 405B in fp8 over one 8 x H100 node."""
    return [
        {
            "name": "llama-8b",
            "model": "llama-3.1-8b",
            "contextLength": 8192,
            "concurrentSequences": 4,
            "pools": [MIG_POOL[cloud]],
        },
        {
            "name": "qwen-7b",
            "model": "qwen2.5-7b",
            "contextLength": 8192,
            "concurrentSequences": 4,
            "pools": [WHOLE_POOL[cloud]],
            "minReplicas": 2,
            "maxReplicas": 4,
        },
        {
            "name": "llama-405b",
            "model": "llama-3.1-405b",
            "precision": "fp8",
            "contextLength": 8192,
            "concurrentSequences": 8,
            "pools": ["h100"],
        },
    ]


def serving_raw(cloud: str) -> dict[str, Any]:
    """The stack file's keys as ``load_platform`` takes them (a kubeconfig read from its secret already)."""
    raw = {k.removeprefix("gpu-platform:"): v for k, v in serving_stack(cloud).items()}
    if cloud == "existing":
        raw["cluster"]["kubeconfig"] = "apiVersion: v1"
    return raw


def serving_stack(cloud: str, **serving: Any) -> dict[str, Any]:
    """The cloud's stack file (``gpu-platform:`` keys) with KServe and the three models."""
    raw = copy.deepcopy(CLUSTERS[cloud])
    raw["kserve"] = {"enabled": True}
    raw["serving"] = {"namespace": "llm", "models": models(cloud), **serving}
    return {f"gpu-platform:{k}": v for k, v in raw.items()}
