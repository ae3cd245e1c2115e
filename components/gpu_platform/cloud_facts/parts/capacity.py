"""Where a cloud's GPU nodes come from and what grows them: capacity types, reservations, fallback chains and
their auto-provisioner, maximum run durations, placement and fabrics, and the cluster autoscaler.

A part of ``CloudProfile`` (``gpu_platform.cloud_facts.profile``); a cloud's profile overrides what differs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from gpu_platform.cloud_facts.parts.base import PoolProblems, ProfileBase
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool


class CapacityFacts(ProfileBase):
    """Capacity sources, reservations, chains, placement and autoscaling."""

    capacity_types: ClassVar[bool] = False
    """Pools take ``capacity_type`` (EKS ``ON_DEMAND``/``SPOT``/``CAPACITY_BLOCK``): ``pool_capacity_type``."""
    reservation_kind: ClassVar[str | None] = None
    """What a pool's ``reservation`` names on this cloud, for messages; ``None`` when it takes none."""
    capacity_sources: ClassVar[frozenset[str]] = frozenset({"on-demand", "spot"})
    """``capacity`` sources a pool of one source may name here (docs/capacity.md)."""
    chain_sources: ClassVar[frozenset[str]] = frozenset()
    """Sources a fallback chain (``capacity`` with several entries) may name; empty: no chains here."""
    chain_served_by: ClassVar[str | None] = None
    """What serves a chain on this cloud, for messages (GKE ComputeClass, Karpenter, AKS NAP)."""
    chain_provisioner: ClassVar[str | None] = None
    """The auto-provisioner of chains (``compute-class``, ``karpenter``, ``nap``), whose limits the pool meets."""
    chain_autoscaler: ClassVar[str | None] = None
    """The ``cluster.autoscaler`` a chain needs (EKS ``karpenter``); ``None``: the cloud's own provisioner."""
    chain_needs_created_cluster: ClassVar[bool] = False
    """The stack switches the chain's provisioner on in the cluster it creates (AKS NAP)."""
    reservation_affinities: ClassVar[bool] = False
    """Reservations take ``affinity`` (specific/any) and ``project`` (shared reservations): GKE."""
    max_run_sources: ClassVar[frozenset[str]] = frozenset()
    """Sources whose nodes the cloud reclaims after a maximum run duration (``max_run_hours``)."""
    max_run_hours: ClassVar[int] = 0
    """The cloud's largest ``max_run_hours`` (its default too)."""
    provisioning_request_class: ClassVar[str | None] = None
    """The ProvisioningRequest class of ``queued-provisioning`` pools (Kueue's ProvisioningRequestConfig)."""
    efa: ClassVar[bool] = False
    efa_machines: ClassVar[str] = ""
    """Which machines have EFA interfaces, for messages (where ``efa``)."""
    compact_placement: ClassVar[str | None] = None
    """What ``compact_placement`` makes on this cloud, for messages; ``None`` when it offers none."""
    compact_placement_series: ClassVar[tuple[str, ...]] = ()
    """Machine-name prefixes compact placement is documented for (empty: every GPU machine)."""
    spot_max_price: ClassVar[bool] = False
    autoscaler_choice: ClassVar[bool] = False
    """The stack chooses the cluster's autoscaler (``cluster.autoscaler``)."""
    startup_taint_for_late_resources: ClassVar[bool] = False
    """The cloud's pools are grown by an upstream Cluster Autoscaler the library knows honours startup taints
    (``pools.STARTUP_TAINT``): pools whose GPU resources appear late carry it until they do."""

    @classmethod
    def chain_selector(cls, pool: GpuPool) -> dict[str, str]:
        """Node labels a pod must select so the chain's auto-provisioner creates nodes for it (beyond the pool's
        own labels, which every node of the pool carries)."""
        return {}

    @classmethod
    def reservation_problem(cls, source: str, reservation: str) -> str | None:
        """Why ``reservation`` cannot name a reservation of ``source`` here (``None``: it can)."""
        return None

    @classmethod
    def pool_capacity_type(cls, source: str) -> str | None:
        """The ``capacity_type`` of a one-source pool whose first source is ``source`` (where the cloud has
        ``capacity_types``)."""
        return None

    @classmethod
    def provisioner_problems(cls, pool: GpuPool, p: Problems) -> None:
        """What the cloud's auto-provisioner (``chain_provisioner``) cannot express of a pool it serves
        (``cloud_facts/<cloud>/autoprovisioning.py``); nothing where the cloud has none."""

    @classmethod
    def autoscaler_problems(
        cls,
        c: Mapping[str, Any],
        create: bool,
        pools: Sequence[GpuPool],
        at: PoolProblems,
        p: Problems,
        version: str | None,
    ) -> str | None:
        """Where the stack chooses the cluster's autoscaler (``autoscaler_choice``): the choice, with its
        default, after what it needs of the cluster section ``c`` and the pools (``version``: the cluster's
        ``kubernetes_version`` when it is a valid one). ``None``: no choice here."""
        return None

    @classmethod
    def scale_from_zero_problem(cls, pool: GpuPool) -> str | None:
        """Why the cloud's autoscaler cannot grow this pool from zero nodes, or ``None`` when it can."""
        return None

    scale_from_zero_fix: ClassVar[str] = "{{min_nodes}} 1 (one node always up)"
