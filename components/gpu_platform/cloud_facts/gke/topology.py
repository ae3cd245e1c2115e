"""The network topology GKE publishes as node labels, for Kueue Topology-Aware Scheduling (``catalog.topology``
has the type and why ``kubernetes.io/hostname`` is the lowest level)."""

from __future__ import annotations

from gpu_platform.catalog.topology import HOSTNAME_LABEL, NetworkTopology

GCE_TOPOLOGY = NetworkTopology(
    "gce-topology",
    (
        "cloud.google.com/gce-topology-block",
        "cloud.google.com/gce-topology-subblock",
        "cloud.google.com/gce-topology-host",
        HOSTNAME_LABEL,
    ),
    "Google Cloud AI Hypercomputer 'Schedule GKE workloads with Topology Aware Scheduling' (A4, A3 Ultra); "
    "Cluster Toolkit examples/gke-a3-megagpu/kueue-configuration.yaml.tftpl and examples/gke-a4 (A3 Mega, A4)",
)
"""GKE: reservation block, sub-block, host, node. Set on the AI Hypercomputer machine families that are
placed in blocks (A3 Mega, A3 Ultra, A4; A4X has GCE_A4X_TOPOLOGY); the values are dense when the capacity is a reservation
or compactly placed."""

GCE_A4X_TOPOLOGY = NetworkTopology(
    "gce-topology-a4x",
    (
        "cloud.google.com/gce-topology-block",
        "cloud.google.com/gce-topology-subblock",
        "cloud.google.com/gke-nodepool",
        "cloud.google.com/gce-topology-host",
        HOSTNAME_LABEL,
    ),
    "Cluster Toolkit examples/gke-a4x/kueue-configuration.yaml.tftpl (v1.95.0; the level since 90a2f755, "
    "2025-07)",
)
"""GKE A4X: GCE_TOPOLOGY with the node pool between sub-block and host, as Google's A4X Kueue configuration has
it: each pool is one NVL72 domain, placed there by the workload policy (``accelerator_topology: 1x72``) the
library creates with the pool (``catalog/nvlink.py``)."""
