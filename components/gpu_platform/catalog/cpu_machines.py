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

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class CpuShape:
    vcpus: int
    memory_gib: Fraction
