"""Where a cloud's machines are: its regions and zones, what the cloud publishes of where each GPU is offered, and
the network a new cluster needs.

A part of ``CloudProfile`` (``gpu_platform.cloud_facts.profile``); a cloud's profile overrides what differs."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from gpu_platform.catalog.machines import MachineType
from gpu_platform.cloud_facts.parts.base import PoolProblems, ProfileBase
from gpu_platform.errors import Problems
from gpu_platform.pools import GpuPool


class RegionFacts(ProfileBase):
    """Regions, zones and where each GPU is offered."""

    region_required: ClassVar[bool] = False
    region_shape: ClassVar[re.Pattern[str] | None] = None
    """What ``cluster.region`` looks like on this cloud (its regions, and on GKE its zones too); ``None``: any."""
    region_example: ClassVar[str] = ""
    """A region of this cloud, for messages."""
    min_network_prefix: ClassVar[int] = 16
    """Largest prefix length of a new cluster's network (what the subnet layouts need)."""

    @classmethod
    def zone_region(cls, zone: str) -> str | None:
        """The region of a zone name, or ``None`` when ``zone`` is not one (or the cloud's zones do not name
        their region, like Azure's ``1``)."""
        return None

    @classmethod
    def region_zones(cls, region: str) -> tuple[str, ...] | None:
        """Every zone of ``region`` as the cloud publishes them; ``None``: not published."""
        return None

    @classmethod
    def region_problem(cls, region: str) -> str | None:
        """Why ``region`` is no region of this cloud (an availability zone, another cloud's region), or ``None``."""
        if cls.region_shape is None or cls.region_shape.match(region):
            return None
        zone = region.isdigit() or (region[-1:].isalpha() and cls.region_shape.match(region[:-1]) is not None)
        what = "an availability zone, not a region" if zone else f"not {cls.article} {cls.display} region"
        return f"'{region}' is {what}; give a region like {cls.region_example}"

    @classmethod
    def offered_zones(cls, machine: MachineType, region: str) -> tuple[str, ...] | None:
        """The zones of ``region`` that offer ``machine``'s GPU, in order, where the cloud publishes it;
        ``None`` where nothing is published for that GPU or region, so nothing is refused."""
        return None

    @classmethod
    def offering_regions(cls, machine: MachineType) -> tuple[str, ...]:
        """The regions with a zone that offers ``machine``'s GPU (empty where not published)."""
        return ()

    @classmethod
    def offer_source(cls) -> str:
        """Where ``offered_zones`` comes from, for messages."""
        return ""

    @classmethod
    def zone_pattern(cls, region: str) -> tuple[str, re.Pattern[str], str] | None:
        """The region a pool's zones must be in, what a zone of it looks like and an example."""
        return None

    @classmethod
    def cluster_zones(
        cls, c: Mapping[str, Any], region: str | None, pools: Sequence[GpuPool], at: PoolProblems, p: Problems
    ) -> tuple[str, ...]:
        """The cluster's zones from ``cluster.zones``, checked (``()`` where the cloud chooses)."""
        return ()
