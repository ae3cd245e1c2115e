"""What a node of the cloud leaves its pods: the kubelet's published reservations, and whether Kueue's VM memory
overhead applies.

A part of ``CloudProfile`` (``gpu_platform.cloud_facts.profile``); a cloud's profile overrides what differs."""

from __future__ import annotations

from typing import ClassVar

from gpu_platform.cloud_facts.parts.base import ProfileBase


class AllocatableFacts(ProfileBase):
    """What the kubelet reserves on a node, where the cloud publishes it."""

    publishes_allocatable: ClassVar[bool] = False
    """The cloud publishes the kubelet's reservations, so node allocatable can be computed."""
    kueue_vm_overhead: ClassVar[bool] = False
    """Kueue's VM memory overhead estimate applies (the node's memory is the VM's)."""
    eviction_memory_mib: ClassVar[int] = 0

    @classmethod
    def default_max_pods(cls, machine_type: str, vcpus: int) -> int:
        raise ValueError(f"no published node reservation for cloud {cls.name!r}")

    @classmethod
    def reserved(cls, vcpus: int, memory_mib: int, max_pods: int) -> tuple[int, int]:
        """CPU millicores and memory MiB the kubelet reserves on a node."""
        raise ValueError(f"no published node reservation for cloud {cls.name!r}")
