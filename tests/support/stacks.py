"""Stack files (their ``gpu-platform:`` keys) the stack tests start from."""

from __future__ import annotations

from typing import Any


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
