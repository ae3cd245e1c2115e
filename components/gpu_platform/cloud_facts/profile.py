"""What cross-cloud code may ask about a cloud: the ``CloudProfile`` interface, joined from its parts
(``cloud_facts/parts/``: machines, allocatable, regions, drivers, sharing, capacity, pool rules, platform, services).

Each cloud answers in its own folder (``gpu_platform/cloud_facts/<name>/profile.py``) and is registered once
in ``gpu_platform.cloud_facts``. Code outside the cloud folders never compares a cloud's name; it asks the pool's or
the stack's profile (``profile_of``). A profile holds facts and rules only: it imports nothing above the
catalog, the pool model and the driver plan, so every layer may ask it. Plans, components and the stack
wiring of a cloud are in ``gpu_platform/clouds/<cloud>/``, reached through ``clouds.registry``.
"""

from __future__ import annotations

from gpu_platform.cloud_facts.parts.allocatable import AllocatableFacts
from gpu_platform.cloud_facts.parts.base import PoolProblems, ProfileBase, ResourceTypes
from gpu_platform.cloud_facts.parts.capacity import CapacityFacts
from gpu_platform.cloud_facts.parts.drivers import DriverFacts, NodeImage, OperatorObject
from gpu_platform.cloud_facts.parts.machines import MachineFacts
from gpu_platform.cloud_facts.parts.platform import PlatformFacts
from gpu_platform.cloud_facts.parts.pool_rules import PoolRules
from gpu_platform.cloud_facts.parts.regions import RegionFacts
from gpu_platform.cloud_facts.parts.services import (
    DockerHostImage,
    InferenceGateway,
    MetricsReader,
    ModelBucket,
    ServiceFacts,
)
from gpu_platform.cloud_facts.parts.sharing import SharingFacts

__all__ = [
    "AllocatableFacts",
    "CapacityFacts",
    "CloudProfile",
    "DockerHostImage",
    "DriverFacts",
    "InferenceGateway",
    "MachineFacts",
    "MetricsReader",
    "ModelBucket",
    "NodeImage",
    "OperatorObject",
    "PlatformFacts",
    "PoolProblems",
    "PoolRules",
    "ProfileBase",
    "RegionFacts",
    "ResourceTypes",
    "ServiceFacts",
    "SharingFacts",
]


class CloudProfile(
    MachineFacts,
    AllocatableFacts,
    RegionFacts,
    DriverFacts,
    SharingFacts,
    CapacityFacts,
    PoolRules,
    PlatformFacts,
    ServiceFacts,
):
    """One cloud's facts and rules. Subclasses override what differs; the defaults describe a cloud that
    creates nothing special (no cloud-managed sharing, no capacity types, no extra labels).

    Each part is one concern (``cloud_facts/parts/``); every attribute and method is reached on the profile itself
    (``profile.machines``, ``profile.plan_driver(...)``), as before the split."""
