"""Rack-scale NVLink domains: GPUs of several nodes joined by NVLink switches into one fabric (GB200 NVL72).

A pool of such a machine is useful for one multi-node NVLink job only when all its nodes sit in one domain, so
the cloud has to be told to place them there. On Compute Engine that is a workload policy
(``compute.ResourcePolicy`` ``workload_policy {type: HIGH_THROUGHPUT, accelerator_topology: 1x72}``) named in
the GKE node pool's ``placement_policy`` (``type: COMPACT``, ``policy_name``): Cluster Toolkit
``examples/gke-a4x/gke-a4x.yaml`` and ``modules/compute/resource-policy``; Compute Engine "About workload
policies in MIGs": for A4X a workload policy is required but for a single test VM, A4X MIGs are reservation
bound, and the policy cannot change while the group has VMs.
"""

from __future__ import annotations

from dataclasses import dataclass

HIGH_THROUGHPUT = "HIGH_THROUGHPUT"
"""``workload_policy.type`` that places VMs by accelerator topology (Compute Engine workload policies)."""


@dataclass(frozen=True)
class NvlinkDomain:
    name: str
    """What the domain is called in messages (``NVL72``)."""
    accelerator_topology: str
    """Compute Engine ``workload_policy.accelerator_topology``: the domain's shape (``1x72``)."""
    gpus: int
    """GPUs in one domain."""
    source: str
    """Where the shape and the placement are documented."""

    def nodes(self, gpus_per_node: int) -> int:
        """How many nodes of ``gpus_per_node`` GPUs fill one domain (18 A4X VMs of 4 GB200)."""
        return self.gpus // gpus_per_node


GB200_NVL72 = NvlinkDomain(
    "NVL72",
    "1x72",
    72,
    "Cluster Toolkit examples/gke-a4x/gke-a4x.yaml (workload_policy accelerator_topology 1x72, type "
    "HIGH_THROUGHPUT); Compute Engine 'About workload policies in MIGs'",
)
"""GB200 NVL72: 72 GPUs in one NVLink domain, 18 Compute Engine A4X VMs of 4 GPUs."""


NVLINK_DOMAIN_GPUS = {"gb200-186gb": GB200_NVL72}
"""GPUs that come only in a rack-scale NVLink domain on the clouds (GB200 NVL72: GKE A4X, EKS P6e-GB200, Azure
ND GB200-v6), for pools described by their GPU alone (existing clusters, OpenShift) rather than a machine type."""
