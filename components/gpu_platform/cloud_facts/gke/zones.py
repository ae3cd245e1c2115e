"""Which Compute Engine zones offer each GPU model (``data/gce-gpu-zones.yaml``, with its sources).

Google publishes GPU availability per zone as a web page, so the library vendors a dated copy and checks pools
against it. A zone counts as offering a GPU when any source lists it: the sources are snapshots taken at
different times, and a zone wrongly missing would refuse a valid pool. What the table does not know (a region
it does not list) is never refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from gpu_platform.packaged_data import packaged_text, parse_yaml

DATA_FILE = "gce-gpu-zones.yaml"


@dataclass(frozen=True)
class GpuZoneTable:
    """The vendored table: every zone of each known region, and the zones that offer each accelerator type."""

    regions: dict[str, tuple[str, ...]]
    """Region -> all of its zones."""
    offered: dict[str, frozenset[str]]
    """GKE accelerator type (``nvidia-l4``) -> zones any source lists for it."""
    sources: dict[str, dict[str, Any]]
    """Source id -> what it is, its URL and when it was retrieved."""

    @property
    def retrieved(self) -> str:
        """The oldest retrieval date of the sources, for messages."""
        return min(str(s["retrieved"]) for s in self.sources.values())


def read_table(text: str) -> GpuZoneTable:
    """The table from the data file's text."""
    raw = parse_yaml(text)
    return GpuZoneTable(
        regions={region: tuple(zones) for region, zones in raw["regions"].items()},
        offered={
            accelerator: frozenset(z for listed in entry["zones"].values() for z in listed)
            for accelerator, entry in raw["accelerators"].items()
            if entry["zones"]  # no source lists its zones: not known
        },
        sources=dict(raw["sources"]),
    )


@cache
def table() -> GpuZoneTable:
    """The packaged table, read once."""
    return read_table(packaged_text(DATA_FILE))


def region_of_zone(zone: str) -> str:
    """``us-central1-a`` -> ``us-central1``."""
    return zone.rsplit("-", 1)[0]


def zones_with(accelerator: str | None, region: str) -> tuple[str, ...] | None:
    """The zones of ``region`` that offer ``accelerator``, in order; ``None`` when the table does not know the
    region or the accelerator (nothing can be said, so nothing is refused)."""
    t = table()
    if accelerator is None or accelerator not in t.offered or region not in t.regions:
        return None
    return tuple(z for z in t.regions[region] if z in t.offered[accelerator])


def regions_with(accelerator: str) -> tuple[str, ...]:
    """The known regions with at least one zone offering ``accelerator``."""
    t = table()
    offered = t.offered.get(accelerator, frozenset())
    return tuple(r for r, zones in sorted(t.regions.items()) if offered.intersection(zones))
