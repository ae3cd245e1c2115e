"""How a cloud shares and partitions GPUs itself (``sharing.managed_by: cloud``), and the device plugin it runs
for that.

A part of ``CloudProfile`` (``gpu_platform.cloud_facts.profile``); a cloud's profile overrides what differs."""

from __future__ import annotations

from typing import ClassVar

from gpu_platform.cloud_facts.parts.base import ProfileBase
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool


class SharingFacts(ProfileBase):
    """GPU sharing the cloud manages, its MIG and its own device plugin."""

    mig_manager_reboot: ClassVar[bool] = False
    """The GPU Operator's MIG manager must reboot nodes to apply a layout (cloud VMs)."""
    cloud_sharing_modes: ClassVar[frozenset[str]] = frozenset()
    """Sharing modes the cloud itself can manage (``sharing.managed_by: cloud``)."""
    cloud_mig_needs_cloud_driver: ClassVar[bool] = False
    """The cloud partitions GPUs only with the driver it installs itself (AKS ``gpu_instance_profile``)."""
    cloud_mig_setting: ClassVar[str | None] = None
    """The cloud's own setting that partitions a pool's GPUs, for messages (AKS ``gpu_instance_profile``)."""
    dra_cloud_mig: ClassVar[bool] = False
    """DRA pools may take MIG the cloud partitions (``sharing.managed_by: cloud``): the DRA driver publishes the
    preconfigured slices it finds (AKS)."""
    cloud_mig_strategy: ClassVar[str | None] = None
    """How the cloud's own device plugin advertises cloud-made MIG slices (``None``: the user's strategy)."""
    cloud_sharing_runs_own_device_plugin: ClassVar[bool] = False
    """Cloud-managed sharing is served by the cloud's device plugin, not the operator's."""
    default_device_plugin_off_label: ClassVar[tuple[str, str] | None] = None
    """The node label that keeps the cloud's default device plugin off where the operator's runs."""

    @classmethod
    def dra_pool_problems(cls, pool: GpuPool, p: Problems) -> None:
        """What a DRA pool cannot be on this cloud."""
