"""GPUDirect: the extra NICs a GPU machine type has beside its primary NIC, and which of them a pod attaches.

The type the machine and pool models refer to (``MachineType.gpudirect``, ``GpuPool.gpudirect``). The paths
themselves, the machines that have them and the addresses of their VPCs are GKE's facts
(``cloud_facts/gke/gpudirect.py``: TCPX, TCPXO, RDMA, with Google's sources).

The Kubernetes ``Network`` names are the ones Google's manifests and pod annotations use (Cluster Toolkit
``examples/gke-a3-megagpu``: ``vpc1``..``vpc8``; ``examples/gke-a4``: ``gvnic-1`` and ``rdma-0``..``rdma-7``;
container-engine-accelerators ``gpudirect-tcpxo/nccl-test-latest.yaml``, ``gpudirect-rdma/nccl-test-a4.yaml``),
so a workload written for Google's guides runs unchanged.
"""

from __future__ import annotations

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


def __getattr__(name: str) -> object:
    """GKE's paths and GPU network layout moved to ``cloud_facts.gke.gpudirect`` (``gpu_platform._moved``)."""
    from gpu_platform._moved import moved_attribute

    return moved_attribute(__name__, name)
