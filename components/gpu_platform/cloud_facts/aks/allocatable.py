"""AKS's kubelet reservation (catalog.allocatable has the formula and the VM overhead).

(https://learn.microsoft.com/azure/aks/node-resource-reservations, MicrosoftDocs/azure-aks-docs
  ``articles/aks/node-resource-reservations.md``): CPU reservations 60/100/140/180/260/420/740m for
  1/2/4/8/16/32/64 cores, i.e. 6% of the first core, 4% of the second, 2% of cores 3-4 and 1% above
  (the bracket Azure/karpenter-provider-azure ``KubeReservedResources`` uses; the table stops at 64
  cores, so above 64 it is [U]). Memory on Kubernetes 1.29+: the lesser of ``20 MB x maxPods + 50 MB``
  and 25% of the node's memory, plus the ``memory.available < 100Mi`` eviction rule. The page writes
  "MB"; it is taken as MiB here, which reserves slightly more [U]. ``maxPods`` defaults to 250 with
  Azure CNI Overlay, which ``AksCluster`` uses (``concepts-network-ip-address-planning.md``, "Maximum
  pods per node"); 250 is also the AKS maximum, so it is the largest reservation on attached clusters.
"""

from __future__ import annotations

from fractions import Fraction

CPU_BRACKETS: tuple[tuple[int | None, Fraction], ...] = (
    (1000, Fraction(6, 100)),
    (2000, Fraction(4, 100)),
    (4000, Fraction(2, 100)),
    (None, Fraction(1, 100)),
)
"""Millicores: reproduces the AKS table (60, 100, 140, 180, 260, 420, 740m for 1-64 cores)."""
MEMORY_PER_POD_MIB = 20
MEMORY_BASE_MIB = 50
MEMORY_CAP = Fraction(25, 100)
DEFAULT_MAX_PODS = 250
"""Azure CNI Overlay's default (and the AKS maximum)."""
