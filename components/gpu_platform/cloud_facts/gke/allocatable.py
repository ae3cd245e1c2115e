"""GKE's kubelet reservation (catalog.allocatable has the formula and the VM overhead).

(https://cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes, "Node allocatable
  resources"; the same tiers are quoted by hatemosphere/gke-node-allocatable-memory-calculator, which
  cites that page): CPU 6% of the first core, 1% of the second, 0.5% of cores 3-4, 0.25% of every core
  above 4. Memory 255 MiB on machines under 1 GiB, else 25% of the first 4 GiB, 20% of the next 4 GiB,
  10% of the next 8 GiB, 6% of the next 112 GiB and 2% above 128 GiB; plus a 100 MiB eviction threshold.
  The page's own example node (4 vCPU) reports ``cpu: 3920m`` allocatable: 60+10+5+5 = 80m reserved.
  GKE does not say how fractions are rounded [U]: the reservation is rounded up here.
"""

from __future__ import annotations

from fractions import Fraction

CPU_BRACKETS: tuple[tuple[int | None, Fraction], ...] = (
    (1000, Fraction(6, 100)),
    (2000, Fraction(1, 100)),
    (4000, Fraction(5, 1000)),
    (None, Fraction(25, 10000)),
)
"""Millicores; GKE and the EKS AMI use the same tiers."""
MEMORY_BRACKETS: tuple[tuple[int | None, Fraction], ...] = (
    (4 * 1024, Fraction(25, 100)),
    (8 * 1024, Fraction(20, 100)),
    (16 * 1024, Fraction(10, 100)),
    (128 * 1024, Fraction(6, 100)),
    (None, Fraction(2, 100)),
)
"""MiB."""
SMALL_MACHINE_MEMORY_MIB = 255
"""Reserved on machines with less than 1 GiB of memory."""
DEFAULT_MAX_PODS = 110
"""GKE Standard's default Pods per node; GKE's reservation does not depend on it."""
