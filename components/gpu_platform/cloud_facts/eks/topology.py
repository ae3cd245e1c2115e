"""The network topology EKS publishes as node labels, for Kueue Topology-Aware Scheduling (``catalog.topology``
has the type and why ``kubernetes.io/hostname`` is the lowest level)."""

from __future__ import annotations

from gpu_platform.catalog.topology import HOSTNAME_LABEL, NetworkTopology

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
