"""AKS GPU VM sizes (third-party catalogs: huggingface.co/docs/microsoft-azure/azure-ai/hardware, aspire.dev
``AksNodeVmSizes``). NC H100 v5 is recorded as the H100 NVL 94GB, which is what Microsoft's size page names;
the Hugging Face page says "H100 80GB". Also the CPU shapes of Azure VM size names."""

from __future__ import annotations

import re
from fractions import Fraction

from gpu_platform.catalog.cpu_machines import CpuShape
from gpu_platform.catalog.machines import MachineType
from gpu_platform.catalog.topology import HOST_TOPOLOGY

IB = HOST_TOPOLOGY
"""AKS labels no place in the InfiniBand fabric: TAS on ND-series nodes has the node as its one level."""


def _aks() -> list[MachineType]:
    return [
        MachineType("aks", "Standard_NC4as_T4_v3", "t4", 1, 4, 28),
        MachineType("aks", "Standard_NC8as_T4_v3", "t4", 1, 8, 56),
        MachineType("aks", "Standard_NC16as_T4_v3", "t4", 1, 16, 110),
        MachineType("aks", "Standard_NC64as_T4_v3", "t4", 4, 64, 440),
        MachineType("aks", "Standard_NC24ads_A100_v4", "a100-80gb", 1, 24, 220),
        MachineType("aks", "Standard_NC48ads_A100_v4", "a100-80gb", 2, 48, 440),
        MachineType("aks", "Standard_NC96ads_A100_v4", "a100-80gb", 4, 96, 880),
        # ND-series with "r" in the size name: InfiniBand (RDMA) between the VMs of a scale set.
        MachineType(
            "aks",
            "Standard_ND96asr_v4",
            "a100-40gb",
            8,
            96,
            900,
            cloud_mig=True,
            infiniband=True,
            topology=IB,
        ),
        MachineType(
            "aks", "Standard_ND96amsr_A100_v4", "a100-80gb", 8, 96, 1900, infiniband=True, topology=IB
        ),
        MachineType("aks", "Standard_NC40ads_H100_v5", "h100-94gb", 1, 40, 320),
        MachineType("aks", "Standard_NC80adis_H100_v5", "h100-94gb", 2, 80, 640),
        MachineType(
            "aks", "Standard_ND96isr_H100_v5", "h100-80gb", 8, 96, 1900, infiniband=True, topology=IB
        ),
        MachineType(
            "aks", "Standard_ND96isr_H200_v5", "h200-141gb", 8, 96, 1850, infiniband=True, topology=IB
        ),
    ]


MACHINES: dict[str, MachineType] = {m.name: m for m in _aks()}


_AKS_DE_SHAPE = re.compile(
    r"^Standard_(?P<series>[DE])(?P<vcpus>\d+)(?P<features>[a-km-z]*)_v(?P<version>[3-6])$"
)
_AKS_F_SHAPE = re.compile(r"^Standard_F(?P<vcpus>\d+)s_v2$")
_AKS_GIB_PER_VCPU = {"D": Fraction(4), "E": Fraction(8), "F": Fraction(2)}
MACHINE_NAME = re.compile(r"^Standard_[A-Z][A-Za-z0-9_]*$")


def cpu_shape(name: str) -> CpuShape | None:
    """D, E and F series sizes (catalog.cpu_machines has the sources)."""
    if m := _AKS_DE_SHAPE.match(name) or _AKS_F_SHAPE.match(name):
        vcpus = int(m["vcpus"])
        series = m.groupdict().get("series") or "F"
        return CpuShape(vcpus, _AKS_GIB_PER_VCPU[series] * vcpus)
    return None
