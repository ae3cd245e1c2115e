"""Network topologies the clouds publish as node labels, for Kueue Topology-Aware Scheduling (TAS).

Kueue's ``Topology`` lists node label keys from the broadest network domain to the narrowest, with
``kubernetes.io/hostname`` last: node taints (the ``nvidia.com/gpu`` taint of every GPU pool) are only
respected when hostname is the lowest level (Kueue ``concepts/topology_aware_scheduling.md``; the
sample ``site/static/examples/tas/sample-gpu-queues.yaml`` at v0.19.2).

Which machines carry which labels is a per-machine fact in each cloud's table
(``clouds/<cloud>/machines.py``, ``MachineType.topology``); a machine without one gets no Topology, and a
pool asking for TAS on it is refused rather than given a hierarchy whose labels no node has (Kueue would
then find no domain and never admit a job).
"""

from __future__ import annotations

from dataclasses import dataclass

HOSTNAME_LABEL = "kubernetes.io/hostname"


@dataclass(frozen=True)
class NetworkTopology:
    name: str
    """The Kueue ``Topology`` object's name (flavors name it in ``spec.topologyName``)."""
    levels: tuple[str, ...]
    """Node label keys, broadest first, ``kubernetes.io/hostname`` last."""
    source: str
    """Where the labels are documented."""

    def __post_init__(self) -> None:
        assert self.levels and self.levels[-1] == HOSTNAME_LABEL, "hostname must be the lowest level"


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

EC2_TOPOLOGY = NetworkTopology(
    "ec2-network-topology",
    (
        "topology.k8s.aws/network-node-layer-1",
        "topology.k8s.aws/network-node-layer-2",
        "topology.k8s.aws/network-node-layer-3",
        HOSTNAME_LABEL,
    ),
    "Amazon EKS user guide 'Place distributed AI/ML workloads with network topology labels' "
    "(ml-workload-topology); EC2 user guide 'Prerequisites for Amazon EC2 topology' (instance types "
    "DescribeInstanceTopology answers with three network nodes)",
)
"""EKS: the three network-node layers of EC2 instance topology, broadest first. Only for the instance
types EC2 describes with three layers (p4d, p4de, p5, p5e, p5en, g6e, ...); p6-b200/p6-b300 have a fourth
layer and are not in the catalog."""

HOST_TOPOLOGY = NetworkTopology(
    "hostname",
    (HOSTNAME_LABEL,),
    "Kueue concepts/topology_aware_scheduling.md (a single hostname level); AKS publishes no network "
    "topology node label",
)
"""AKS ND-series (InfiniBand): AKS documents no node label for a VM's place in the fabric, so the only
level is the node; TAS still packs a pod set onto as few nodes as its requests allow, honours
``podset-required-topology: kubernetes.io/hostname`` and respects the GPU taint."""
