"""What a node offers pods: its capacity minus what the cloud reserves, per cloud, as pure arithmetic.

Kueue's cpu and memory quotas must be what pods can actually be scheduled on, not the machine's size:
a quota above the nodes' *allocatable* admits jobs that never schedule, are evicted at the
``waitForPodsReady`` timeout and end up deactivated. Every number below is the cloud's published
reservation; each is cited, and anything not confirmed from the source is marked [U].

``allocatable = capacity - kube-reserved - eviction threshold`` (Kubernetes "Reserve Compute Resources
for System Daemons"), where each cloud sets kube-reserved from the node's size: each cloud's numbers and their sources are in its
folder (``gpu_platform/clouds/<cloud>/allocatable.py``), and its profile's ``reserved`` applies them.



On top of the published reservations, a node's *capacity* is less than the machine's nominal memory:
the kernel and firmware keep some (GKE's example 16 GiB node reports 13498416Ki allocatable, about
440 MiB below what the published tiers leave). Karpenter, which has to predict allocatable before a
node exists, subtracts ``VM_MEMORY_OVERHEAD_PERCENT`` = 7.5% of the nominal memory on AWS and Azure
(aws/karpenter-provider-aws ``website/reference/settings.md`` ``VM_MEMORY_OVERHEAD_PERCENT``, default
0.075; Azure/karpenter-provider-azure ``pkg/operator/options/options.go``, default 0.075). The same
default is used here on all three clouds (for GKE it is an estimate [U]); a quota a little low holds
back a job that could have run, a quota too high admits one that cannot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar, Protocol

MIB_PER_GIB = 1024
DEFAULT_VM_MEMORY_OVERHEAD_PERCENT = Fraction(15, 2)
"""7.5: Karpenter's default ``vm-memory-overhead-percent`` (AWS and Azure providers)."""


# (upper bound, share) brackets: the share applies to the part of the amount below the bound.
@dataclass(frozen=True)
class Allocatable:
    """One node: what pods can request (``cpu_millicores``, ``memory_mib``) and where the rest goes."""

    cpu_millicores: int
    memory_mib: int
    capacity_cpu_millicores: int
    capacity_memory_mib: int
    """The machine's nominal size."""
    reserved_cpu_millicores: int
    """kube-reserved CPU."""
    reserved_memory_mib: int
    """kube-reserved memory."""
    eviction_memory_mib: int
    vm_overhead_memory_mib: int
    """Memory the kernel and firmware keep (``vm_memory_overhead_percent`` of the nominal size)."""
    max_pods: int


def bracketed(amount: Fraction, brackets: tuple[tuple[int | None, Fraction], ...]) -> Fraction:
    """Sum of ``share x`` the part of ``amount`` inside each bracket (a tax-bracket calculation); a bracket's
    upper bound of ``None`` is open-ended."""
    total, lower = Fraction(0), Fraction(0)
    for upper, share in brackets:
        if amount <= lower:
            break
        top = amount if upper is None else min(amount, Fraction(upper))
        total += (top - lower) * share
        if upper is None:
            break
        lower = Fraction(upper)
    return total


class KubeletReservation(Protocol):
    """What a cloud publishes about its kubelet (a cloud profile answers it)."""

    eviction_memory_mib: ClassVar[int]
    """``memory.available`` hard eviction threshold."""

    def reserved(self, vcpus: int, memory_mib: int, max_pods: int) -> tuple[int, int]:
        """kube-reserved CPU millicores and memory MiB of a node."""
        ...


def node_allocatable(
    cloud: KubeletReservation,
    vcpus: int,
    memory_gib: Fraction | float,
    max_pods: int,
    vm_memory_overhead_percent: Fraction | float = DEFAULT_VM_MEMORY_OVERHEAD_PERCENT,
) -> Allocatable:
    """Allocatable CPU (millicores) and memory (MiB) of one node of ``vcpus`` and ``memory_gib`` on ``cloud``
    (its profile) whose kubelet allows ``max_pods`` pods."""
    cpu = vcpus * 1000
    memory = math.floor(Fraction(memory_gib) * MIB_PER_GIB)
    cpu_reserved, mem_reserved = cloud.reserved(vcpus, memory, max_pods)
    overhead = math.ceil(memory * Fraction(vm_memory_overhead_percent) / 100)
    eviction = cloud.eviction_memory_mib
    return Allocatable(
        cpu_millicores=max(cpu - cpu_reserved, 0),
        memory_mib=max(memory - overhead - mem_reserved - eviction, 0),
        capacity_cpu_millicores=cpu,
        capacity_memory_mib=memory,
        reserved_cpu_millicores=cpu_reserved,
        reserved_memory_mib=mem_reserved,
        eviction_memory_mib=eviction,
        vm_overhead_memory_mib=overhead,
        max_pods=max_pods,
    )
