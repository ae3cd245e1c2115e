"""GPU machine types per cloud: which GPU, how many per node, and cloud-specific names.

Sources: GPU_PLATFORM_FACTS.md section 1 (GKE table from Google's cluster-toolkit; EC2 families
from third-party catalogs [3P]; AKS sizes [3P]). NC H100 v5 is recorded as the H100 NVL 94GB,
which is what Microsoft's size page names; the facts file notes a conflicting source.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpu_platform.catalog.gpus import GPUS, GpuModel

CLOUDS = ("gke", "eks", "aks")


@dataclass(frozen=True)
class MachineType:
    cloud: str
    name: str
    gpu_key: str
    gpus: int
    """GPUs per node. For attachable-GPU machines (GKE N1) the default count."""
    vcpus: int
    memory_gib: int
    """Node capacity; Kueue's cpu and memory quotas derive from it."""
    accelerator_type: str | None = None
    """GKE ``guest_accelerators.type``."""
    allowed_gpu_counts: tuple[int, ...] = ()
    """GKE N1: counts of attachable GPUs the user may choose; empty when fixed by the shape."""
    efa_interfaces: int = 0
    """EKS: EFA interfaces on the largest size (0 = no EFA)."""
    aks_mig_capable: bool = False
    """AKS accepts ``gpu_instance_profile`` on this size (documented only for ND A100 v4)."""
    notes: tuple[str, ...] = field(default=())

    @property
    def gpu(self) -> GpuModel:
        return GPUS[self.gpu_key]


def _gke() -> list[MachineType]:
    out: list[MachineType] = []
    for size, n in {"4": 1, "8": 1, "12": 1, "16": 1, "32": 1, "24": 2, "48": 4, "96": 8}.items():
        v = int(size)
        out.append(MachineType("gke", f"g2-standard-{size}", "l4", n, v, 4 * v, "nvidia-l4"))
    for gpus in (1, 2, 4, 8):
        out.append(
            MachineType(
                "gke", f"a2-highgpu-{gpus}g", "a100-40gb", gpus, 12 * gpus, 85 * gpus, "nvidia-tesla-a100"
            )
        )
        out.append(
            MachineType(
                "gke", f"a2-ultragpu-{gpus}g", "a100-80gb", gpus, 12 * gpus, 170 * gpus, "nvidia-a100-80gb"
            )
        )
    out.append(MachineType("gke", "a2-megagpu-16g", "a100-40gb", 16, 96, 1360, "nvidia-tesla-a100"))
    out.append(MachineType("gke", "a3-highgpu-8g", "h100-80gb", 8, 208, 1872, "nvidia-h100-80gb"))
    out.append(MachineType("gke", "a3-megagpu-8g", "h100-80gb", 8, 208, 1872, "nvidia-h100-mega-80gb"))
    out.append(MachineType("gke", "a3-ultragpu-8g", "h200-141gb", 8, 224, 2952, "nvidia-h200-141gb"))
    out.append(MachineType("gke", "a4-highgpu-8g", "b200-180gb", 8, 224, 3968, "nvidia-b200"))
    for family, gib_per_vcpu in (("n1-standard", 3.75), ("n1-highmem", 6.5)):
        for vcpu in (4, 8, 16, 32):
            out.append(
                MachineType(
                    "gke",
                    f"{family}-{vcpu}",
                    "t4",
                    1,
                    vcpu,
                    int(vcpu * gib_per_vcpu),
                    "nvidia-tesla-t4",
                    allowed_gpu_counts=(1, 2, 4),
                )
            )
    return out


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
    family: str, gpu: str, gib_per_vcpu: int, sizes: tuple[str, ...], efa: dict[str, int] | None = None
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
        *_eks_family("g6e", "l40s", 8, _G_SIZES, {"24xlarge": 2, "48xlarge": 4}),
        MachineType("eks", "p4d.24xlarge", "a100-40gb", 8, 96, 1152, efa_interfaces=4),
        MachineType("eks", "p4de.24xlarge", "a100-80gb", 8, 96, 1152, efa_interfaces=4),
        MachineType("eks", "p5.48xlarge", "h100-80gb", 8, 192, 2048, efa_interfaces=32),
        MachineType("eks", "p5e.48xlarge", "h200-141gb", 8, 192, 2048, efa_interfaces=32),
        MachineType("eks", "p5en.48xlarge", "h200-141gb", 8, 192, 2048, efa_interfaces=16),
    ]


def _aks() -> list[MachineType]:
    return [
        MachineType("aks", "Standard_NC4as_T4_v3", "t4", 1, 4, 28),
        MachineType("aks", "Standard_NC8as_T4_v3", "t4", 1, 8, 56),
        MachineType("aks", "Standard_NC16as_T4_v3", "t4", 1, 16, 110),
        MachineType("aks", "Standard_NC64as_T4_v3", "t4", 4, 64, 440),
        MachineType("aks", "Standard_NC24ads_A100_v4", "a100-80gb", 1, 24, 220),
        MachineType("aks", "Standard_NC48ads_A100_v4", "a100-80gb", 2, 48, 440),
        MachineType("aks", "Standard_NC96ads_A100_v4", "a100-80gb", 4, 96, 880),
        MachineType("aks", "Standard_ND96asr_v4", "a100-40gb", 8, 96, 900, aks_mig_capable=True),
        MachineType("aks", "Standard_ND96amsr_A100_v4", "a100-80gb", 8, 96, 1900),
        MachineType("aks", "Standard_NC40ads_H100_v5", "h100-94gb", 1, 40, 320),
        MachineType("aks", "Standard_NC80adis_H100_v5", "h100-94gb", 2, 80, 640),
        MachineType("aks", "Standard_ND96isr_H100_v5", "h100-80gb", 8, 96, 1900),
        MachineType("aks", "Standard_ND96isr_H200_v5", "h200-141gb", 8, 96, 1850),
    ]


MACHINES: dict[str, dict[str, MachineType]] = {
    "gke": {m.name: m for m in _gke()},
    "eks": {m.name: m for m in _eks()},
    "aks": {m.name: m for m in _aks()},
}


def machines_for(cloud: str) -> dict[str, MachineType]:
    return MACHINES.get(cloud, {})


def find_machine(cloud: str, name: str) -> MachineType | None:
    return MACHINES.get(cloud, {}).get(name)
