"""GKE GPU machine types (GoogleCloudPlatform/cluster-toolkit
``modules/compute/gke-node-pool/gpu_definition.tf``; v1.95.0 ``pkg/config/machine_mappings.json``) and the
CPU shapes of Compute Engine machine names."""

from __future__ import annotations

import re
from fractions import Fraction

from gpu_platform.catalog.cpu_machines import CpuShape
from gpu_platform.catalog.machines import MachineType
from gpu_platform.catalog.nvlink import GB200_NVL72
from gpu_platform.cloud_facts.gke.gpudirect import RDMA, RDMA_A4X, TCPX, TCPXO
from gpu_platform.cloud_facts.gke.topology import GCE_A4X_TOPOLOGY, GCE_TOPOLOGY


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
    return out + _a3_high() + _hypercomputer() + [_a4x()] + _n1()


def _a3_high() -> list[MachineType]:
    out: list[MachineType] = []
    # A3 High: 26 vCPUs and 234 GB per H100 (cluster-toolkit's machine_mappings.json lists 1g/2g/4g/8g).
    # Only the 8-GPU A3 High has the four extra NICs of GPUDirect-TCPX (Compute Engine "Networking and GPU
    # machines"); the smaller sizes have the primary gVNIC only.
    for gpus in (1, 2, 4, 8):
        out.append(
            MachineType(
                "gke",
                f"a3-highgpu-{gpus}g",
                "h100-80gb",
                gpus,
                26 * gpus,
                234 * gpus,
                "nvidia-h100-80gb",
                gpudirect=TCPX if gpus == 8 else None,
            )
        )
    return out


def _hypercomputer() -> list[MachineType]:
    """The AI Hypercomputer families: placed in reservation blocks, they carry the gce-topology labels."""
    out: list[MachineType] = []
    out.append(
        MachineType(
            "gke",
            "a3-megagpu-8g",
            "h100-80gb",
            8,
            208,
            1872,
            "nvidia-h100-mega-80gb",
            gpudirect=TCPXO,
            topology=GCE_TOPOLOGY,
        )
    )
    out.append(
        MachineType(
            "gke",
            "a3-ultragpu-8g",
            "h200-141gb",
            8,
            224,
            2952,
            "nvidia-h200-141gb",
            gpudirect=RDMA,
            topology=GCE_TOPOLOGY,
        )
    )
    out.append(
        MachineType(
            "gke",
            "a4-highgpu-8g",
            "b200-180gb",
            8,
            224,
            3968,
            "nvidia-b200",
            gpudirect=RDMA,
            topology=GCE_TOPOLOGY,
        )
    )
    return out


def _a4x() -> MachineType:
    """A4X: 4 GB200 on two Grace (Arm) CPUs, 140 vCPUs, 884 GB (Compute Engine "Arm VMs on Compute");
    nvidia-gb200 as Cluster Toolkit's examples/gke-a4x and machine_mappings.json name it; its Kueue
    configuration there adds the node pool level to the gce-topology labels."""
    return MachineType(
        "gke",
        "a4x-highgpu-4g",
        "gb200-186gb",
        4,
        140,
        884,
        "nvidia-gb200",
        gpudirect=RDMA_A4X,
        topology=GCE_A4X_TOPOLOGY,
        nvlink_domain=GB200_NVL72,
        cpu_arch="arm64",
    )


def _n1() -> list[MachineType]:
    out: list[MachineType] = []
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


MACHINES: dict[str, MachineType] = {m.name: m for m in _gke()}


_GKE_SHAPE = re.compile(r"^(?P<series>[a-z0-9]+)-(?P<cls>standard|highmem|highcpu)-(?P<vcpus>\d+)$")
_GKE_GIB_PER_VCPU: dict[tuple[str, str], Fraction] = {
    **{(s, "standard"): Fraction(4) for s in ("e2", "n2", "n2d", "n4", "c3", "c3d", "t2d")},
    **{(s, "highmem"): Fraction(8) for s in ("e2", "n2", "n2d")},
    **{(s, "highcpu"): Fraction(1) for s in ("e2", "n2", "n2d")},
    ("n1", "standard"): Fraction(15, 4),
    ("n1", "highmem"): Fraction(13, 2),
}
MACHINE_NAME = re.compile(
    # <series>-<class>[-<vCPUs>]: the Compute Engine general-purpose and compute-optimized series.
    r"^(e2|n1|n2|n2d|n4|c2|c2d|c3|c3d|c4|c4a|c4d|t2a|t2d|m1|m2|m3)-"
    r"(standard|highmem|highcpu|micro|small|medium|custom|megamem|ultramem)(-\d+)?(-lssd)?$"
)


def cpu_shape(name: str) -> CpuShape | None:
    """``<series>-<class>-<vCPUs>``: memory per vCPU by class (catalog.cpu_machines has the sources)."""
    if m := _GKE_SHAPE.match(name):
        ratio = _GKE_GIB_PER_VCPU.get((m["series"], m["cls"]))
        return CpuShape(int(m["vcpus"]), ratio * int(m["vcpus"])) if ratio else None
    return None
