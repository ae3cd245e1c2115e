"""A cloud's own rules on a cluster and its pools: the ``cluster`` keys only it takes, its limits per pool and
across pools, and the labels and taints it puts on nodes.

A part of ``CloudProfile`` (``gpu_platform.cloud_facts.profile``); a cloud's profile overrides what differs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from gpu_platform.cloud_facts.parts.base import PoolProblems, ProfileBase
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool, Taint


class PoolRules(ProfileBase):
    """The cloud's cluster keys, pool limits, labels and taints."""

    cluster_keys: ClassVar[frozenset[str]] = frozenset()
    """``cluster`` keys that mean something on this cloud only."""

    @classmethod
    def pool_problems(cls, pool: GpuPool, p: Problems) -> None:
        """The cloud's own limits on one pool (``p`` is the pool's location)."""

    @classmethod
    def cross_pool_problems(cls, pools: Sequence[GpuPool], at: PoolProblems) -> None:
        """Limits across a cluster's pools."""

    @classmethod
    def auto_pool_problems(cls, pool: GpuPool, p: Problems) -> None:
        """Limits on a pool an auto-provisioner creates (Karpenter, NAP, ComputeClass)."""

    @classmethod
    def node_group_problems(cls, pool: GpuPool, p: Problems) -> None:
        """Limits on a pool the library creates as the cloud's own node group (not an auto-provisioner's)."""

    @classmethod
    def attach_problems(
        cls, c: Mapping[str, Any], pools: Sequence[GpuPool], at: PoolProblems, p: Problems
    ) -> None:
        """What attaching pools to a cluster made elsewhere needs on this cloud."""

    @classmethod
    def cluster_settings_problems(
        cls, c: Mapping[str, Any], vpc: str | None, pools: Sequence[GpuPool], at: PoolProblems, p: Problems
    ) -> None:
        """Cloud-only cluster settings checked (``p`` is the cluster section); ``vpc`` is a new cluster's
        network (``vpc_cidr`` with its default), ``None`` when the cluster was made elsewhere or it is refused."""

    @classmethod
    def accelerator_label(cls, pool: GpuPool) -> tuple[str, str] | None:
        """The autoscaler's GPU label, on pools whose nodes advertise ``nvidia.com/gpu``."""
        return None

    @classmethod
    def added_taints(cls, pool: GpuPool) -> list[Taint]:
        """Taints the cloud adds to a pool's nodes by itself, which workloads must tolerate too."""
        return []

    @classmethod
    def node_agent_taints(cls, pool: GpuPool) -> list[Taint]:
        """Taints the cloud puts on some of the pool's nodes that only the node agents (driver, device plugin,
        exporter, health checks, fabric installers) tolerate, never workloads: the cloud lets only the pods it
        meant for those nodes in (GKE queued provisioning)."""
        return []
