"""GPUDirect on GKE: which NICs a GPU machine type has beside its primary gVNIC, and how each path uses them.

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

The Kubernetes ``Network`` names are the ones Google's manifests and pod annotations use (Cluster Toolkit
``examples/gke-a3-megagpu``: ``vpc1``..``vpc8``; ``examples/gke-a4``: ``gvnic-1`` and ``rdma-0``..``rdma-7``;
container-engine-accelerators ``gpudirect-tcpxo/nccl-test-latest.yaml``, ``gpudirect-rdma/nccl-test-a4.yaml``),
so a workload written for Google's guides runs unchanged.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Literal

GpuDirectKind = Literal["tcpx", "tcpxo", "rdma"]

NET_DEVICE = "NetDevice"
"""``GKENetworkParamSet.spec.deviceMode`` of a gVNIC handed to the pod as a network device."""
RDMA_DEVICE = "RDMA"
"""``deviceMode`` of an RDMA NIC (A3 Ultra, A4)."""


@dataclass(frozen=True)
class GpuNic:
    """One extra NIC of a node: the Kubernetes ``Network`` a pod attaches to it by, and its device mode."""

    network: str
    """``Network`` / ``GKENetworkParamSet`` name, and the ``network`` of the pod's interface annotation."""
    device_mode: str
    """``NetDevice`` (gVNIC) or ``RDMA``."""
    interface: str
    """The pod's interface name for it (``eth1`` ...), as Google's pod manifests number them."""


@dataclass(frozen=True)
class GpuDirect:
    kind: GpuDirectKind
    display: str
    gvnics: int
    """Extra gVNICs, each in a VPC of its own."""
    rdma_nics: int
    """RDMA NICs, all in one RoCE VPC, one subnet each."""
    mtu: int
    """MTU of the extra VPCs (8244 for TCPX/TCPXO, 8896 for the RDMA machines' VPCs)."""
    source: str

    @property
    def nics(self) -> tuple[GpuNic, ...]:
        """Every extra NIC in the order the node pool attaches them (GKE numbers them ``eth1``...)."""
        if self.kind == "rdma":
            gvnics = [GpuNic(f"gvnic-{i}", NET_DEVICE, f"eth{i}") for i in range(1, self.gvnics + 1)]
            rdma = [
                GpuNic(f"rdma-{i}", RDMA_DEVICE, f"eth{self.gvnics + 1 + i}") for i in range(self.rdma_nics)
            ]
            return (*gvnics, *rdma)
        return tuple(GpuNic(f"vpc{i}", NET_DEVICE, f"eth{i}") for i in range(1, self.gvnics + 1))

    @property
    def pod_nics(self) -> tuple[GpuNic, ...]:
        """The NICs a training pod attaches: TCPX/TCPXO every gVNIC; RDMA only the RDMA NICs (Google's A3
        Ultra/A4 pods keep ``eth1``, the second gVNIC, for the node)."""
        return tuple(n for n in self.nics if self.kind != "rdma" or n.device_mode == RDMA_DEVICE)


GKE_TCPX_DOC = "https://cloud.google.com/kubernetes-engine/docs/how-to/gpu-bandwidth-gpudirect-tcpx"
GKE_RDMA_DOC = "https://cloud.google.com/compute/docs/gpus/gpu-network-bandwidth"

TCPX = GpuDirect("tcpx", "GPUDirect-TCPX", 4, 0, 8244, GKE_TCPX_DOC)
TCPXO = GpuDirect("tcpxo", "GPUDirect-TCPXO", 8, 0, 8244, GKE_TCPX_DOC)
RDMA = GpuDirect("rdma", "GPUDirect RDMA", 1, 8, 8896, GKE_RDMA_DOC)
RDMA_A4X = GpuDirect("rdma", "GPUDirect RDMA", 1, 4, 8896, GKE_RDMA_DOC)


# --- the addresses of the extra VPCs ---------------------------------------------------------------------

DEFAULT_GPU_NETWORK_CIDR = "192.168.0.0/16"
"""The range every GPUDirect subnet of a cluster comes from unless the stack names another (Google's guides and
Cluster Toolkit ``examples/gke-a4``, ``examples/gke-a4x`` use it)."""
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
