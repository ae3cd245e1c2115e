"""EKS (EC2) GPU instance types (EC2 families from third-party catalogs: rapidsai/deployment
``source/cloud/aws/index.md``, meta-pytorch/torchx ``torchx/specs/named_resources_aws.py``) and the CPU shapes
of EC2 instance names."""

from __future__ import annotations

import re
from fractions import Fraction

from gpu_platform.catalog.cpu_machines import CpuShape
from gpu_platform.catalog.machines import MachineType
from gpu_platform.catalog.topology import NetworkTopology
from gpu_platform.cloud_facts.eks.topology import EC2_TOPOLOGY

# EC2 size suffix -> (GPUs, vCPUs); memory is vCPUs x the family's GiB per vCPU.
_EC2_SIZES = {
    "xlarge": (1, 4),
    "2xlarge": (1, 8),
    "4xlarge": (1, 16),
    "8xlarge": (1, 32),
    "16xlarge": (1, 64),
    "12xlarge": (4, 48),
    "24xlarge": (4, 96),
    "48xlarge": (8, 192),
    "metal": (8, 96),
}


def _eks_family(
    family: str,
    gpu: str,
    gib_per_vcpu: int,
    sizes: tuple[str, ...],
    efa: dict[str, int] | None = None,
    topology: NetworkTopology | None = None,
) -> list[MachineType]:
    efa = efa or {}
    return [
        MachineType(
            "eks",
            f"{family}.{size}",
            gpu,
            _EC2_SIZES[size][0],
            _EC2_SIZES[size][1],
            _EC2_SIZES[size][1] * gib_per_vcpu,
            efa_interfaces=efa.get(size, 0),
            topology=topology,
        )
        for size in sizes
    ]


_G_SIZES = ("xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge", "12xlarge", "24xlarge", "48xlarge")


def _eks() -> list[MachineType]:
    return [
        *_eks_family(
            "g4dn",
            "t4",
            4,
            ("xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge", "12xlarge", "metal"),
            {"metal": 1},
        ),
        *_eks_family("g5", "a10g", 4, _G_SIZES, {"48xlarge": 1}),
        *_eks_family("g6", "l4", 4, _G_SIZES),
        # EC2 describes the instance topology (three network-node layers) of g6e, p4d/p4de and p5/p5e/p5en
        # (EC2 user guide "Prerequisites for Amazon EC2 topology"); EKS labels their nodes with it.
        *_eks_family("g6e", "l40s", 8, _G_SIZES, {"24xlarge": 2, "48xlarge": 4}, EC2_TOPOLOGY),
        MachineType("eks", "p4d.24xlarge", "a100-40gb", 8, 96, 1152, efa_interfaces=4, topology=EC2_TOPOLOGY),
        MachineType(
            "eks", "p4de.24xlarge", "a100-80gb", 8, 96, 1152, efa_interfaces=4, topology=EC2_TOPOLOGY
        ),
        MachineType(
            "eks", "p5.48xlarge", "h100-80gb", 8, 192, 2048, efa_interfaces=32, topology=EC2_TOPOLOGY
        ),
        MachineType(
            "eks", "p5e.48xlarge", "h200-141gb", 8, 192, 2048, efa_interfaces=32, topology=EC2_TOPOLOGY
        ),
        MachineType(
            "eks", "p5en.48xlarge", "h200-141gb", 8, 192, 2048, efa_interfaces=16, topology=EC2_TOPOLOGY
        ),
    ]


MACHINES: dict[str, MachineType] = {m.name: m for m in _eks()}


_EC2_SHAPE = re.compile(r"^(?P<family>[mcr])(?P<gen>[5-7])(?P<extra>[a-z]*)\.(?P<size>large|\d*xlarge)$")
_EC2_GIB_PER_VCPU = {"m": Fraction(4), "c": Fraction(2), "r": Fraction(8)}
MACHINE_NAME = re.compile(r"^[a-z][a-z0-9-]*\.(nano|micro|small|medium|large|\d*xlarge|metal(-\d+xl)?)$")
"""``<family>.<size>``: EC2 sizes."""


def _ec2_vcpus(size: str) -> int:
    if size == "large":
        return 2
    multiple = size.removesuffix("xlarge")
    return 4 * (int(multiple) if multiple else 1)


def cpu_shape(name: str) -> CpuShape | None:
    """``<family>.<size>`` of the m, c and r families (catalog.cpu_machines has the sources)."""
    if m := _EC2_SHAPE.match(name):
        vcpus = _ec2_vcpus(m["size"])
        return CpuShape(vcpus, _EC2_GIB_PER_VCPU[m["family"]] * vcpus)
    return None
