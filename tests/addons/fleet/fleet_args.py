"""A fleet of a manager and two workers (GKE H100, EKS L4) as ``GpuFleetArgs``, for the fleet's tests."""

from __future__ import annotations

import copy
from typing import Any

H100 = {"name": "h100", "machine_type": "a3-highgpu-8g", "min_nodes": 0, "max_nodes": 2}
L4 = {"name": "l4", "machine_type": "g6.12xlarge", "min_nodes": 0, "max_nodes": 4}
KUBECONFIG = """\
apiVersion: v1
kind: Config
clusters:
- name: w
  cluster: {server: "https://203.0.113.10", certificate-authority-data: Q0E=}
contexts:
- name: w
  context: {cluster: w, user: admin}
current-context: w
users:
- name: admin
  user: {token: admin-token}
"""


def fleet(**changes: Any) -> dict[str, Any]:
    """The fleet: ``training`` (JobSets, H100 on GKE) and ``inference`` (L4 and H100, both workers)."""
    args: dict[str, Any] = {
        "manager": {"kubeconfig": KUBECONFIG, "controllers": ["jobset"]},
        "workers": [
            {
                "name": "gke-h100",
                "kubeconfig": KUBECONFIG,
                "cloud": "gke",
                "pools": [dict(H100)],
                "controllers": ["jobset"],
            },
            {"name": "eks-l4", "kubeconfig": KUBECONFIG, "cloud": "eks", "pools": [dict(L4)]},
        ],
        "cluster_queues": [
            {
                "name": "training",
                "pools": ["h100"],
                "workers": ["gke-h100"],
                "frameworks": ["jobset.x-k8s.io/jobset"],
                "largest_gang_gpus": 8,
            },
            {"name": "inference", "pools": ["l4", "h100"], "workers": ["eks-l4", "gke-h100"]},
        ],
        "teams": [
            {"name": "research", "cluster_queue": "training"},
            {"name": "serving", "cluster_queue": "inference"},
        ],
    }
    args.update(copy.deepcopy(changes))
    return args
