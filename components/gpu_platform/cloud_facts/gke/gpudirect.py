"""GPUDirect on GKE: which NICs a GPU machine type has beside its primary gVNIC, and the addresses of their VPCs.

Google documents three paths, one per machine family ("Networking and GPU machines",
https://cloud.google.com/compute/docs/gpus/gpu-network-bandwidth; "Maximize GPU network bandwidth in Standard
mode clusters", https://cloud.google.com/kubernetes-engine/docs/how-to/gpu-bandwidth-gpudirect-tcpx; AI
Hypercomputer "Network services", https://cloud.google.com/ai-hypercomputer/docs/networking-services; Cluster
Toolkit ``examples/gke-a3-megagpu`` and ``examples/gke-a4`` at v1.95.0):

- **TCPX** (A3 High ``a3-highgpu-8g``): 4 extra gVNICs, each in its own VPC (MTU 8244);
- **TCPXO** (A3 Mega ``a3-megagpu-8g``): 8 extra gVNICs, each in its own VPC (MTU 8244);
- **RDMA** (A3 Ultra ``a3-ultragpu-8g``, A4 ``a4-highgpu-8g``): a second gVNIC in its own VPC and 8 CX-7 RDMA
  NICs in one VPC with the zone's RoCE network profile, one subnet per NIC (MTU 8896); A4X ``a4x-highgpu-4g``
  the same with 4 CX-7 NICs ("two Titanium NICs", the primary and the second gVNIC; Cluster Toolkit
  ``examples/gke-a4x`` at v1.91.0: ``net-1`` and a RoCE VPC of ``count: 4`` subnets; container-engine-accelerators
  ``gpudirect-rdma/nccl-test-imex-a4x.yaml``: pods attach ``rdma-0``..``rdma-3`` as ``eth2``..``eth5``).

The path's type (``GpuDirect``: its NICs and the Kubernetes ``Network`` names Google's manifests use) is
``catalog.gpudirect``, where the machine and pool models refer to it; the paths themselves are GKE's facts.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

# The setting's default is defined with the setting (``cluster.gpu_network_cidr``); the layout reads it here.
from gpu_platform.args.cluster import DEFAULT_GPU_NETWORK_CIDR as DEFAULT_GPU_NETWORK_CIDR
from gpu_platform.catalog.gpudirect import GpuDirect

GKE_TCPX_DOC = "https://cloud.google.com/kubernetes-engine/docs/how-to/gpu-bandwidth-gpudirect-tcpx"
GKE_RDMA_DOC = "https://cloud.google.com/compute/docs/gpus/gpu-network-bandwidth"

TCPX = GpuDirect("tcpx", "GPUDirect-TCPX", 4, 0, 8244, GKE_TCPX_DOC)
TCPXO = GpuDirect("tcpxo", "GPUDirect-TCPXO", 8, 0, 8244, GKE_TCPX_DOC)
RDMA = GpuDirect("rdma", "GPUDirect RDMA", 1, 8, 8896, GKE_RDMA_DOC)
RDMA_A4X = GpuDirect("rdma", "GPUDirect RDMA", 1, 4, 8896, GKE_RDMA_DOC)


# --- the addresses of the extra VPCs ---------------------------------------------------------------------

GCE_RESERVED_ADDRESSES = 4
"""Compute Engine keeps four addresses of every subnet's primary range: the network, the gateway, the
second-to-last and the broadcast address (VPC "Subnets", https://cloud.google.com/vpc/docs/subnets)."""
GCE_SMALLEST_SUBNET = 29
"""The longest prefix of a Compute Engine subnet's primary IPv4 range (same page)."""


@dataclass(frozen=True)
class GpuNetworkLayout:
    """How one range is split without overlap, so every path's subnets keep their addresses when another path
    joins: the gVNIC subnets (TCPX/TCPXO, one VPC each) a sixteenth each in the lower half, ``gvnic-1`` (the
    RDMA machines' second gVNIC) the third quarter, the RDMA subnets a thirty-second each in the last quarter
    (Cluster Toolkit ``examples/gke-a4`` takes the same quarters of 192.168.0.0/16)."""

    network: ipaddress.IPv4Network

    @classmethod
    def of(cls, cidr: str) -> GpuNetworkLayout:
        return cls(ipaddress.IPv4Network(cidr))

    def _split(self, within: ipaddress.IPv4Network, extra_bits: int) -> list[ipaddress.IPv4Network]:
        return list(within.subnets(new_prefix=self.network.prefixlen + extra_bits))

    @property
    def gvnic_subnets(self) -> list[ipaddress.IPv4Network]:
        """Eight of them for the widest TCP path (TCPXO); sixteen slots."""
        return self._split(self._split(self.network, 1)[0], 4)

    @property
    def second_gvnic(self) -> ipaddress.IPv4Network:
        return self._split(self.network, 2)[2]

    @property
    def rdma_subnets(self) -> list[ipaddress.IPv4Network]:
        """One per RDMA NIC (eight on A3 Ultra/A4, four on A4X); eight slots."""
        return self._split(self._split(self.network, 2)[3], 5)

    @staticmethod
    def usable(subnet: ipaddress.IPv4Network) -> int:
        """Addresses a subnet gives nodes: each node takes one in every subnet its NICs attach."""
        return subnet.num_addresses - GCE_RESERVED_ADDRESSES


LONGEST_GPU_NETWORK_PREFIX = GCE_SMALLEST_SUBNET - 5
"""A range's RDMA subnets are 5 bits longer than it: /24 is the longest range whose subnets Compute Engine takes."""
