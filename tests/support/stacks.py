"""Stack files (their ``gpu-platform:`` keys) the stack tests start from."""

from __future__ import annotations

from typing import Any


def declared_h100_and_l4() -> list[dict[str, Any]]:
    """Two pools of an existing cluster, declared (8 x H100 and 4 x L4 nodes), for Slurm-and-queues stacks."""
    return [
        {
            "name": "h100",
            "gpu": "h100-80gb",
            "gpusPerNode": 8,
            "cpusPerNode": 208,
            "memoryGibPerNode": 1872,
            "maxNodes": 2,
        },
        {
            "name": "l4",
            "gpu": "l4",
            "gpusPerNode": 4,
            "cpusPerNode": 48,
            "memoryGibPerNode": 192,
            "maxNodes": 2,
        },
    ]


def with_compute_domains(raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` (an ``existing`` stack) with ComputeDomains on and its DRA pool of GB200 NVL72 nodes (4 GPUs), the
    hardware ComputeDomains need (a rack-scale NVLink fabric)."""
    pools = [dict(p) for p in raw["gpuPools"]]
    pools[0] = {**pools[0], "gpu": "gb200-186gb", "gpusPerNode": 4}
    return {**raw, "gpuPools": pools, "dra": {**raw["dra"], "computeDomains": True}}


def existing(**extra: Any) -> dict[str, Any]:
    """An existing cluster whose operator owns the driver, one DRA pool and one device-plugin pool."""
    return {
        "cloud": "existing",
        "cluster": {"name": "onprem", "kubeconfig": "apiVersion: v1", "kubernetesVersion": "1.34.2"},
        "gpuPools": [
            {
                "name": "h100",
                "gpu": "h100-80gb",
                "gpusPerNode": 8,
                "cpusPerNode": 192,
                "memoryGibPerNode": 2048,
                "maxNodes": 2,
                "allocation": "dra",
            },
            {
                "name": "l40s",
                "gpu": "l40s",
                "gpusPerNode": 4,
                "cpusPerNode": 64,
                "memoryGibPerNode": 512,
                "maxNodes": 2,
                "sharing": {"mode": "time-slicing", "replicas": 2},
            },
        ],
        "gpuOperator": {"driver": {"owner": "operator"}},
        "kueue": {"teams": [{"name": "ml", "clusterQueue": "gpu"}]},
        "dra": {"enabled": True, "claimNamespaces": ["ml"]},
        **extra,
    }
