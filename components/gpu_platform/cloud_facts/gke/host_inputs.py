"""A Compute Engine Docker host's inputs, checked as Compute Engine checks them.

- ``gce.zone``: a zone (``<region>-<letter>``), not a region, that offers the host's GPU (the vendored zone table,
  ``cloud_facts.gke.zones``; a region it does not list is not refused).
- ``labels``: Compute Engine labels ("Requirements for labels"): at most 64; keys 1 to 63 characters, values up to
  63, of lowercase letters (international ones too), digits, ``_`` and ``-``; a key starts with a lowercase letter;
  each under 128 bytes.
- ``gce.tags``: network tags are RFC 1035 names (lowercase letters, digits, dashes; 1 to 63).
- ``image`` and ``gce.subnetwork``: a reference of another cloud's kind (an AMI, an Azure image) is refused.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from gpu_platform.catalog.machines import MachineType
from gpu_platform.cloud_facts.gke import zones as gpu_zones
from gpu_platform.errors import Key, Problems
from gpu_platform.formats.resource_ids import GCE_REGION, GCE_ZONE, what_is

MAX_LABELS = 64
MAX_LABEL_CHARS = 63
NETWORK_TAG = re.compile(r"^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$")


def _label_char(c: str) -> bool:
    """A character Compute Engine takes in a label: a lowercase or uncased letter, a digit, ``_`` or ``-``."""
    return c in "_-" or unicodedata.category(c) in ("Ll", "Lo", "Nd", "Nl", "No")


def _label_text_problem(text: str, what: str) -> str | None:
    if len(text) > MAX_LABEL_CHARS or len(text.encode()) >= 128:
        return f"{what} '{text}' is too long: at most 63 characters (under 128 bytes)"
    if not all(_label_char(c) for c in text):
        return (
            f"{what} '{text}' holds characters Compute Engine labels refuse: lowercase letters (international ones "
            "too), digits, '_' and '-' only"
        )
    return None


def gce_label_problems(labels: Mapping[str, Any], p: Problems) -> None:
    """Compute Engine's label rules on ``labels`` (``p`` is at the host's arguments)."""
    if len(labels) > MAX_LABELS:
        p.add(("labels",), f"{len(labels)} labels: Compute Engine takes at most {MAX_LABELS} on a resource")
    for key, value in labels.items():
        where = ("labels", Key(str(key)))
        if not key or unicodedata.category(key[0]) not in ("Ll", "Lo"):
            p.add(where, f"key '{key}' must start with a lowercase letter (Compute Engine labels)")
        elif (reason := _label_text_problem(key, "key")) or (
            reason := _label_text_problem(str(value), "value")
        ):
            p.add(where, reason)


def _zone_problem(zone: str, machine: MachineType | None) -> str | None:
    if GCE_REGION.match(zone):
        return f"'{zone}' is a region; give one of its zones, such as {zone}-a"
    if not GCE_ZONE.match(zone):
        return f"'{zone}' is not a Compute Engine zone like us-central1-a"
    region = gpu_zones.region_of_zone(zone)
    offered = gpu_zones.zones_with(machine.accelerator_type, region) if machine is not None else None
    if offered is None or zone in offered:
        return None
    assert machine is not None
    where = (
        f"zones of {region} that have it: {', '.join(offered)}"
        if offered
        else f"regions that do: {', '.join(gpu_zones.regions_with(machine.accelerator_type or '')) or 'none listed'}"
    )
    return f"'{zone}' does not offer {machine.name} ({machine.gpu.display}); {where} (Compute Engine GPU regions and zones)"


def host_input_problems(
    checked: Mapping[str, Any], settings: Mapping[str, Any], machine: MachineType | None, p: Problems
) -> None:
    """Every Compute Engine rule on a Docker host's arguments (``settings`` is its ``gce`` section)."""
    zone = settings.get("zone")
    if isinstance(zone, str) and (reason := _zone_problem(zone, machine)):
        p.add(("gce", "zone"), reason)
    for i, tag in enumerate(settings.get("tags") or ()):
        if isinstance(tag, str) and not NETWORK_TAG.match(tag):
            p.add(
                ("gce", "tags", i),
                f"'{tag}' is not a network tag: lowercase letters, digits and dashes, 1 to 63",
            )
    subnetwork = settings.get("subnetwork")
    if isinstance(subnetwork, str) and (what := what_is(subnetwork)) and "Compute Engine" not in what:
        p.add(
            ("gce", "subnetwork"),
            f"'{subnetwork}' is {what}; give a Compute Engine subnetwork's name or link",
        )
    image = checked.get("image")
    if isinstance(image, str) and (what := what_is(image)) and "Compute Engine" not in what:
        p.add(
            ("image",),
            f"'{image}' is {what}; give a Compute Engine image (projects/<project>/global/images/...)",
        )
    gce_label_problems(checked.get("labels") or {}, p)
