"""What a node offers pods: its capacity minus what the cloud reserves, per cloud, as pure arithmetic.

Kueue's cpu and memory quotas must be what pods can actually be scheduled on, not the machine's size:
a quota above the nodes' *allocatable* admits jobs that never schedule, are evicted at the
``waitForPodsReady`` timeout and end up deactivated. Every number below is the cloud's published
reservation; each is cited, and anything not confirmed from the source is marked [U].

``allocatable = capacity - kube-reserved - eviction threshold`` (Kubernetes "Reserve Compute Resources
for System Daemons"), where each cloud sets kube-reserved from the node's size:

- **GKE** (https://cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes, "Node allocatable
  resources"; the same tiers are quoted by hatemosphere/gke-node-allocatable-memory-calculator, which
  cites that page): CPU 6% of the first core, 1% of the second, 0.5% of cores 3-4, 0.25% of every core
  above 4. Memory 255 MiB on machines under 1 GiB, else 25% of the first 4 GiB, 20% of the next 4 GiB,
  10% of the next 8 GiB, 6% of the next 112 GiB and 2% above 128 GiB; plus a 100 MiB eviction threshold.
  The page's own example node (4 vCPU) reports ``cpu: 3920m`` allocatable: 60+10+5+5 = 80m reserved.
  GKE does not say how fractions are rounded [U]: the reservation is rounded up here.
- **EKS** (awslabs/amazon-eks-ami ``nodeadm/internal/kubelet/config.go`` at 81fec2e8, the AL2023
  bootstrap of the ``AL2023_x86_64_NVIDIA`` AMI): ``kubeReserved.cpu`` is the same 6/1/0.5/0.25% tiers
  computed in integer millicores per range (``getCPUMillicoresToReserve``), ``kubeReserved.memory`` is
  ``11 * maxPods + 255`` MiB (``getMemoryMebibytesToReserve``) and ``evictionHard`` is
  ``memory.available: 100Mi``. ``maxPods`` is ``ENIs x (IPv4 per ENI - 1) + 2`` of the instance's default
  network card (``eni_max_pods.go``, ``instance-info.jsonl``); managed node groups without a custom AMI
  cap it at 110 below 30 vCPUs and 250 above (EKS user guide "Choose an optimal Amazon EC2 node instance
  type", awsdocs/amazon-eks-user-guide ``choosing-instance-type.adoc``, "How maxPods is determined").
  Bottlerocket applies the same reservation [U: not checked against the Bottlerocket source].
- **AKS** (https://learn.microsoft.com/azure/aks/node-resource-reservations, MicrosoftDocs/azure-aks-docs
  ``articles/aks/node-resource-reservations.md``): CPU reservations 60/100/140/180/260/420/740m for
  1/2/4/8/16/32/64 cores, i.e. 6% of the first core, 4% of the second, 2% of cores 3-4 and 1% above
  (the bracket Azure/karpenter-provider-azure ``KubeReservedResources`` uses; the table stops at 64
  cores, so above 64 it is [U]). Memory on Kubernetes 1.29+: the lesser of ``20 MB x maxPods + 50 MB``
  and 25% of the node's memory, plus the ``memory.available < 100Mi`` eviction rule. The page writes
  "MB"; it is taken as MiB here, which reserves slightly more [U]. ``maxPods`` defaults to 250 with
  Azure CNI Overlay, which ``AksCluster`` uses (``concepts-network-ip-address-planning.md``, "Maximum
  pods per node"); 250 is also the AKS maximum, so it is the largest reservation on attached clusters.

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
GKE_CPU_BRACKETS: tuple[tuple[int | None, Fraction], ...] = (
    (1000, Fraction(6, 100)),
    (2000, Fraction(1, 100)),
    (4000, Fraction(5, 1000)),
    (None, Fraction(25, 10000)),
)
"""Millicores; GKE and the EKS AMI use the same tiers."""
GKE_MEMORY_BRACKETS: tuple[tuple[int | None, Fraction], ...] = (
    (4 * 1024, Fraction(25, 100)),
    (8 * 1024, Fraction(20, 100)),
    (16 * 1024, Fraction(10, 100)),
    (128 * 1024, Fraction(6, 100)),
    (None, Fraction(2, 100)),
)
"""MiB."""
GKE_SMALL_MACHINE_MEMORY_MIB = 255
"""Reserved on machines with less than 1 GiB of memory."""
AKS_CPU_BRACKETS: tuple[tuple[int | None, Fraction], ...] = (
    (1000, Fraction(6, 100)),
    (2000, Fraction(4, 100)),
    (4000, Fraction(2, 100)),
    (None, Fraction(1, 100)),
)
"""Millicores: reproduces the AKS table (60, 100, 140, 180, 260, 420, 740m for 1-64 cores)."""
AKS_MEMORY_PER_POD_MIB = 20
AKS_MEMORY_BASE_MIB = 50
AKS_MEMORY_CAP = Fraction(25, 100)
AKS_DEFAULT_MAX_PODS = 250
"""Azure CNI Overlay's default (and the AKS maximum)."""
EKS_MEMORY_PER_POD_MIB = 11
EKS_MEMORY_BASE_MIB = 255
EKS_AMI_CPU_RANGES = (0, 1000, 2000, 4000)
EKS_AMI_CPU_BASIS_POINTS = (600, 100, 50, 25)
"""``getCPUMillicoresToReserve``: per range, ``(min(total, end) - start) * points / 10000`` (integer)."""
EKS_HOST_NETWORK_PODS = 2
"""``maxPods`` padding for kube-proxy and the VPC CNI, which use the host network."""
EKS_MANAGED_NODE_GROUP_MAX_PODS = (110, 250)
"""Cap on ``maxPods`` in managed node groups: at most 30 vCPUs, more than 30 vCPUs."""
EKS_MANAGED_NODE_GROUP_CPU_THRESHOLD = 30
GKE_DEFAULT_MAX_PODS = 110
"""GKE Standard's default Pods per node; GKE's reservation does not depend on it."""

EKS_ENI_LIMITS: dict[str, tuple[int, int]] = {
    # (ENIs on the default network card, IPv4 addresses per ENI), copied from awslabs/amazon-eks-ami
    # nodeadm/internal/kubelet/instance-info.jsonl at 4d63a3bc (2026-07-01): the GPU catalog's EKS
    # machines and common system-pool families. Types not listed get the managed-node-group cap.
    "g4dn.xlarge": (3, 10),
    "g4dn.2xlarge": (3, 10),
    "g4dn.4xlarge": (3, 10),
    "g4dn.8xlarge": (4, 15),
    "g4dn.12xlarge": (8, 30),
    "g4dn.16xlarge": (4, 15),
    "g4dn.metal": (15, 50),
    "g5.xlarge": (4, 15),
    "g5.2xlarge": (4, 15),
    "g5.4xlarge": (8, 30),
    "g5.8xlarge": (8, 30),
    "g5.12xlarge": (15, 50),
    "g5.16xlarge": (8, 30),
    "g5.24xlarge": (15, 50),
    "g5.48xlarge": (7, 50),
    "g6.xlarge": (4, 15),
    "g6.2xlarge": (4, 15),
    "g6.4xlarge": (8, 30),
    "g6.8xlarge": (8, 30),
    "g6.12xlarge": (8, 30),
    "g6.16xlarge": (15, 50),
    "g6.24xlarge": (15, 50),
    "g6.48xlarge": (15, 50),
    "g6e.xlarge": (4, 15),
    "g6e.2xlarge": (4, 15),
    "g6e.4xlarge": (8, 30),
    "g6e.8xlarge": (8, 30),
    "g6e.12xlarge": (10, 30),
    "g6e.16xlarge": (15, 50),
    "g6e.24xlarge": (10, 50),
    "g6e.48xlarge": (10, 50),
    "p4d.24xlarge": (15, 50),
    "p4de.24xlarge": (15, 50),
    "p5.48xlarge": (2, 50),
    "p5e.48xlarge": (2, 50),
    "p5en.48xlarge": (4, 50),
    **{
        f"{family}.{size}": limits
        for family in ("m5", "m6i", "m7i", "c6i", "r6i")
        for size, limits in (
            ("large", (3, 10)),
            ("xlarge", (4, 15)),
            ("2xlarge", (4, 15)),
            ("4xlarge", (8, 30)),
            ("8xlarge", (8, 30)),
            ("12xlarge", (8, 30)),
            ("16xlarge", (15, 50)),
        )
    },
}


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


def eks_max_pods(instance_type: str, vcpus: int) -> int:
    """``maxPods`` of a managed node group node: the ENI formula, capped at 110 (<= 30 vCPUs) or 250."""
    cap = EKS_MANAGED_NODE_GROUP_MAX_PODS[vcpus > EKS_MANAGED_NODE_GROUP_CPU_THRESHOLD]
    limits = EKS_ENI_LIMITS.get(instance_type)
    if limits is None:
        return cap
    enis, ips = limits
    return min(enis * (ips - 1) + EKS_HOST_NETWORK_PODS, cap)


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
