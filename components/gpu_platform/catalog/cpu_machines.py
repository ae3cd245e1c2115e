"""vCPUs and memory of the CPU machine types a system pool may use, read from the machine type's name.

Only series whose shape follows from the name are known; anything else returns ``None`` and Kueue's
system flavor then needs its quota given (``kueue.systemFlavor.cpus`` / ``memoryGib``).

- **GKE** ``<series>-<class>-<vCPUs>``: memory per vCPU by class. ``n2-standard-4`` is "4 vCPUs and
  16 GB of memory" (https://cloud.google.com/compute/docs/machine-resource); N1 standard is 3.75 GB and
  N1 highmem 6.5 GB per vCPU (https://cloud.google.com/compute/docs/machine-types). Compute Engine's
  "GB" are GiB. The highmem (8 GB) and highcpu (1 GB) ratios of E2/N2/N2D and the standard ratio of
  E2/N2D/N4/C3/C3D/T2D are the same family rule [U: not checked per series]. Shared-core (``e2-medium``)
  and custom shapes are not derived.
- **EKS** ``<family>.<size>``: ``large`` is 2 vCPUs and each size doubles (``xlarge`` 4, ``2xlarge`` 8 ...);
  general purpose (m) 4 GiB, compute optimized (c) 2 GiB, memory optimized (r) 8 GiB per vCPU
  (https://aws.amazon.com/ec2/instance-types/) [U: ratios per family not checked one by one].
- **AKS** ``Standard_<D|E><vCPUs><features>_v<3-6>`` (not the low-memory ``l`` sizes): D-series 4 GiB and E-series 8 GiB per vCPU,
  ``Standard_F<vCPUs>s_v2`` 2 GiB (``Standard_D4s_v5``: 4 vCPUs, 16 GiB; Azure VM size pages) [U: the
  per-series ratios are the general rule, not checked for every version].
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class CpuShape:
    vcpus: int
    memory_gib: Fraction


_GKE_SHAPE = re.compile(r"^(?P<series>[a-z0-9]+)-(?P<cls>standard|highmem|highcpu)-(?P<vcpus>\d+)$")
_GKE_GIB_PER_VCPU: dict[tuple[str, str], Fraction] = {
    **{(s, "standard"): Fraction(4) for s in ("e2", "n2", "n2d", "n4", "c3", "c3d", "t2d")},
    **{(s, "highmem"): Fraction(8) for s in ("e2", "n2", "n2d")},
    **{(s, "highcpu"): Fraction(1) for s in ("e2", "n2", "n2d")},
    ("n1", "standard"): Fraction(15, 4),
    ("n1", "highmem"): Fraction(13, 2),
}

_EC2_SHAPE = re.compile(r"^(?P<family>[mcr])(?P<gen>[5-7])(?P<extra>[a-z]*)\.(?P<size>large|\d*xlarge)$")
_EC2_GIB_PER_VCPU = {"m": Fraction(4), "c": Fraction(2), "r": Fraction(8)}

_AKS_DE_SHAPE = re.compile(
    r"^Standard_(?P<series>[DE])(?P<vcpus>\d+)(?P<features>[a-km-z]*)_v(?P<version>[3-6])$"
)
_AKS_F_SHAPE = re.compile(r"^Standard_F(?P<vcpus>\d+)s_v2$")
_AKS_GIB_PER_VCPU = {"D": Fraction(4), "E": Fraction(8), "F": Fraction(2)}


def _ec2_vcpus(size: str) -> int:
    if size == "large":
        return 2
    multiple = size.removesuffix("xlarge")
    return 4 * (int(multiple) if multiple else 1)


def cpu_machine_shape(cloud: str, name: str) -> CpuShape | None:
    """The vCPUs and memory of a CPU machine type, or ``None`` when the name does not say."""
    if cloud == "gke" and (m := _GKE_SHAPE.match(name)):
        ratio = _GKE_GIB_PER_VCPU.get((m["series"], m["cls"]))
        return CpuShape(int(m["vcpus"]), ratio * int(m["vcpus"])) if ratio else None
    if cloud == "eks" and (m := _EC2_SHAPE.match(name)):
        vcpus = _ec2_vcpus(m["size"])
        return CpuShape(vcpus, _EC2_GIB_PER_VCPU[m["family"]] * vcpus)
    if cloud == "aks" and (m := _AKS_DE_SHAPE.match(name) or _AKS_F_SHAPE.match(name)):
        vcpus = int(m["vcpus"])
        series = m.groupdict().get("series") or "F"
        return CpuShape(vcpus, _AKS_GIB_PER_VCPU[series] * vcpus)
    return None
