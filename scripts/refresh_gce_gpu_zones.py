#!/usr/bin/env python3
"""Rebuild the ``compute-api`` lists of ``components/gpu_platform/data/gce-gpu-zones.yaml`` from a SkyPilot GCP
catalog (``catalogs/v8/gcp/vms.csv`` of skypilot-org/skypilot-catalog), the Compute Engine API's per-zone
machine types and accelerator types.

    scripts/refresh_gce_gpu_zones.py VMS_CSV           rewrite the data file
    scripts/refresh_gce_gpu_zones.py VMS_CSV --check   exit 1 if the data file differs from what VMS_CSV gives

Per GPU, the zones are those of its accelerator rows (empty ``InstanceType``, ``AcceleratorName`` such as
``H100-MEGA``) and of the rows of its machine families (``a3-megagpu-8g``): the two API lists disagree at the
edges and a zone missing from the table would refuse a valid pool. Each region's zones come from the rows of
machine types that run in every zone (E2, and N4 where E2 is not offered). The header of the data file (its
``sources``, with their URLs and dates) and the other sources' lists are kept; update the ``compute-api`` URL
and ``retrieved`` date by hand to the catalog commit read. An accelerator whose zones no source lists (``zones: {}``,
not known, never refused) gets a ``compute-api`` list only once the catalog has rows for it. Needs only the standard library and PyYAML.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

DATA = Path(__file__).resolve().parent.parent / "components" / "gpu_platform" / "data" / "gce-gpu-zones.yaml"
SOURCE = "compute-api"
ACCELERATOR_NAMES = {
    "T4": "nvidia-tesla-t4",
    "L4": "nvidia-l4",
    "A100": "nvidia-tesla-a100",
    "A100-80GB": "nvidia-a100-80gb",
    "H100": "nvidia-h100-80gb",
    "H100-MEGA": "nvidia-h100-mega-80gb",
    "H200": "nvidia-h200-141gb",
    "B200": "nvidia-b200",
}
"""SkyPilot's ``AcceleratorName`` -> GKE's accelerator type."""
ATTACHABLE_SERIES = ("n1-",)
"""Machine series whose GPUs are attached on request (N1 with T4): a row of one says nothing about the GPU."""
EVERY_ZONE_SERIES = ("e2-", "n4-")
"""Machine series offered in every zone of a region, whose rows list the region's zones."""


def _family(instance_type: str) -> str:
    """``a3-megagpu-8g`` -> ``a3-megagpu``; ``g2-standard-8`` -> ``g2-standard``."""
    return instance_type.rsplit("-", 1)[0]


def zones_from_rows(
    rows: Iterable[Mapping[str, str]], families: Mapping[str, Iterable[str]]
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(region -> every zone, accelerator type -> zones that offer it) from the catalog's rows; ``families``
    maps each accelerator type to the machine families that carry it."""
    by_family = {
        family: acc
        for acc, fams in families.items()
        for family in fams
        if not family.startswith(ATTACHABLE_SERIES)
    }
    regions: dict[str, set[str]] = {}
    offered: dict[str, set[str]] = {acc: set() for acc in families}
    for row in rows:
        zone, region, machine = row["AvailabilityZone"], row["Region"], row["InstanceType"]
        if machine.startswith(EVERY_ZONE_SERIES):
            regions.setdefault(region, set()).add(zone)
        accelerator = (
            ACCELERATOR_NAMES.get(row["AcceleratorName"]) if not machine else by_family.get(_family(machine))
        )
        if accelerator in offered:
            offered[accelerator].add(zone)
    return {r: sorted(z) for r, z in sorted(regions.items())}, {a: sorted(z) for a, z in offered.items()}


def rebuilt(text: str, rows: Iterable[Mapping[str, str]]) -> str:
    """The data file's text with its regions and ``compute-api`` lists taken from ``rows``."""
    raw: dict[str, Any] = yaml.safe_load(text)
    families = {acc: entry["machine_families"] for acc, entry in raw["accelerators"].items()}
    regions, offered = zones_from_rows(rows, families)
    for acc, entry in raw["accelerators"].items():
        if offered[acc] or SOURCE in entry["zones"]:  # an accelerator the catalog never had stays "not known"
            entry["zones"][SOURCE] = offered[acc]
    header = text[: text.index("\nregions:\n") + 1]
    body = {"regions": regions, "accelerators": raw["accelerators"]}
    return header + yaml.safe_dump(body, sort_keys=False, default_flow_style=None, width=116)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("vms_csv", type=Path)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args(argv)
    text = args.data.read_text()
    with args.vms_csv.open(newline="") as f:
        new = rebuilt(text, csv.DictReader(f))
    if args.check:
        if new != text:
            print(f"{args.data} differs from what {args.vms_csv} gives", file=sys.stderr)
            return 1
        return 0
    args.data.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
