"""The vendored Compute Engine GPU zone table: its shape, its sources, and that it covers every GKE GPU machine."""

from __future__ import annotations

import datetime
import re
from importlib import resources

import yaml

from gpu_platform.clouds.gke import zones
from gpu_platform.clouds.gke.machines import MACHINES

RAW = yaml.safe_load(resources.files("gpu_platform").joinpath("data", zones.DATA_FILE).read_text())
REGION = re.compile(r"^[a-z]+-[a-z]+[0-9]+$")


def test_every_source_says_what_it_is_where_it_is_and_when_it_was_read() -> None:
    assert set(RAW) == {"sources", "regions", "accelerators"}
    assert RAW["sources"], "no source"
    for name, source in RAW["sources"].items():
        assert set(source) >= {"what", "url", "retrieved"}, name
        assert source["url"].startswith("https://"), name
        datetime.date.fromisoformat(source["retrieved"])


def test_regions_list_their_own_zones_once_in_order() -> None:
    for region, listed in RAW["regions"].items():
        assert REGION.match(region), region
        assert listed == sorted(set(listed)), region
        assert all(re.fullmatch(rf"{re.escape(region)}-[a-z]", z) for z in listed), region


def test_every_gpu_zone_is_a_known_zone_and_every_list_names_its_source() -> None:
    for accelerator, entry in RAW["accelerators"].items():
        assert set(entry) == {"gpu", "machine_families", "zones"}, accelerator
        assert entry["zones"] and set(entry["zones"]) <= set(RAW["sources"]), accelerator
        for source, listed in entry["zones"].items():
            assert listed == sorted(set(listed)), (accelerator, source)
            for zone in listed:
                assert zone in RAW["regions"].get(zones.region_of_zone(zone), ()), (accelerator, source, zone)


def test_every_gke_gpu_machine_has_its_gpu_in_the_table_under_its_family() -> None:
    for machine in MACHINES.values():
        entry = RAW["accelerators"].get(machine.accelerator_type)
        assert entry is not None, f"{machine.name}: {machine.accelerator_type} has no zones"
        assert any(machine.name.startswith(f"{family}-") for family in entry["machine_families"]), (
            machine.name
        )


def test_a_zone_listed_by_any_source_offers_the_gpu() -> None:
    """The sources are snapshots of different days: us-central1-f has the L4 on Google's page only, and the
    B200 in us-central1-a likewise; both count, so a valid pool is never refused for one source's gap."""
    table = zones.table()
    api_l4 = RAW["accelerators"]["nvidia-l4"]["zones"]["compute-api"]
    assert "us-central1-f" not in api_l4
    assert zones.zones_with("nvidia-l4", "us-central1") == (
        "us-central1-a",
        "us-central1-b",
        "us-central1-c",
        "us-central1-f",
    )
    assert zones.zones_with("nvidia-b200", "us-central1") == ("us-central1-a", "us-central1-b")
    assert table.retrieved == "2026-12-02"


def test_what_the_table_does_not_know_is_none_not_empty() -> None:
    assert zones.zones_with("nvidia-l4", "mars-north1") is None
    assert zones.zones_with("nvidia-gb200", "us-central1") is None
    assert zones.zones_with(None, "us-central1") is None
    assert zones.zones_with("nvidia-b200", "europe-west2") == ()
    assert "europe-west2" not in zones.regions_with("nvidia-b200")
    assert "europe-west4" in zones.regions_with("nvidia-b200")
