"""EKS's kubelet reservation (catalog.allocatable has the formula and the VM overhead).

(awslabs/amazon-eks-ami ``nodeadm/internal/kubelet/config.go`` at 81fec2e8, the AL2023
  bootstrap of the ``AL2023_x86_64_NVIDIA`` AMI): ``kubeReserved.cpu`` is the same 6/1/0.5/0.25% tiers
  computed in integer millicores per range (``getCPUMillicoresToReserve``), ``kubeReserved.memory`` is
  ``11 * maxPods + 255`` MiB (``getMemoryMebibytesToReserve``) and ``evictionHard`` is
  ``memory.available: 100Mi``. ``maxPods`` is ``ENIs x (IPv4 per ENI - 1) + 2`` of the instance's default
  network card (``eni_max_pods.go``, ``instance-info.jsonl``); managed node groups without a custom AMI
  cap it at 110 below 30 vCPUs and 250 above (EKS user guide "Choose an optimal Amazon EC2 node instance
  type", awsdocs/amazon-eks-user-guide ``choosing-instance-type.adoc``, "How maxPods is determined").
  Bottlerocket applies the same reservation [U: not checked against the Bottlerocket source].
"""

from __future__ import annotations

MEMORY_PER_POD_MIB = 11
MEMORY_BASE_MIB = 255
AMI_CPU_RANGES = (0, 1000, 2000, 4000)
AMI_CPU_BASIS_POINTS = (600, 100, 50, 25)
"""``getCPUMillicoresToReserve``: per range, ``(min(total, end) - start) * points / 10000`` (integer)."""
HOST_NETWORK_PODS = 2
"""``maxPods`` padding for kube-proxy and the VPC CNI, which use the host network."""
MANAGED_NODE_GROUP_MAX_PODS = (110, 250)
"""Cap on ``maxPods`` in managed node groups: at most 30 vCPUs, more than 30 vCPUs."""
MANAGED_NODE_GROUP_CPU_THRESHOLD = 30
ENI_LIMITS: dict[str, tuple[int, int]] = {
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


def node_group_max_pods(instance_type: str, vcpus: int) -> int:
    """``maxPods`` of a managed node group node: the ENI formula, capped at 110 (<= 30 vCPUs) or 250."""
    cap = MANAGED_NODE_GROUP_MAX_PODS[vcpus > MANAGED_NODE_GROUP_CPU_THRESHOLD]
    limits = ENI_LIMITS.get(instance_type)
    if limits is None:
        return cap
    enis, ips = limits
    return min(enis * (ips - 1) + HOST_NETWORK_PODS, cap)
