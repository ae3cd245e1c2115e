"""The vendored Compute Engine GPU zone table: its shape, its sources, and that it covers every GKE GPU machine."""

from __future__ import annotations

import datetime
import re
from importlib import resources

import yaml

from gpu_platform.cloud_facts.gke import zones
from gpu_platform.cloud_facts.gke.machines import MACHINES
from tests.conftest import REPO
from tests.support.scripts import load_script

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
        assert set(entry["zones"]) <= set(RAW["sources"]), accelerator
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


SCRIPT = REPO / "scripts" / "refresh_gce_gpu_zones.py"
refresh = load_script(SCRIPT, "refresh_gce_gpu_zones", register=True)


def _row(zone: str, instance_type: str = "", accelerator: str = "") -> dict[str, str]:
    return {
        "InstanceType": instance_type,
        "AcceleratorName": accelerator,
        "Region": zones.region_of_zone(zone),
        "AvailabilityZone": zone,
    }


def _rows_of_the_vendored_file() -> list[dict[str, str]]:
    """Catalog rows that say exactly what the vendored compute-api lists say: one E2 row per zone of each
    region, one accelerator row per zone of each GPU."""
    names = {acc: name for name, acc in refresh.ACCELERATOR_NAMES.items()}
    rows = [_row(z, "e2-standard-4") for listed in RAW["regions"].values() for z in listed]
    for acc, entry in RAW["accelerators"].items():
        rows += [_row(z, accelerator=names[acc]) for z in entry["zones"].get("compute-api", ())]
    return rows


def test_the_refresh_script_writes_the_vendored_file_back_unchanged_from_the_same_rows() -> None:
    text = (REPO / "components" / "gpu_platform" / "data" / zones.DATA_FILE).read_text()
    assert refresh.rebuilt(text, _rows_of_the_vendored_file()) == text


def test_the_refresh_script_merges_accelerator_and_machine_rows_and_keeps_the_other_sources() -> None:
    text = (REPO / "components" / "gpu_platform" / "data" / zones.DATA_FILE).read_text()
    rows = [
        *(_row(z, "e2-standard-4") for z in ("us-east4-a", "us-east4-b", "us-east4-c")),
        _row("asia-southeast3-a", "n4-standard-2"),
        _row("us-east4-b", "a3-megagpu-8g"),  # a machine row counts for its GPU
        _row("us-east4-a", accelerator="H100-MEGA"),  # and so does an accelerator row
        _row("us-east4-c", accelerator="L4"),
        _row("us-east4-a", "c2-standard-16"),  # neither a GPU nor an every-zone series
        _row("us-east4-b", "n1-standard-4"),  # N1 attaches a T4 on request: its rows say nothing of the T4
        _row("us-east4-a", accelerator="tpu-v6e-1"),
    ]
    new = yaml.safe_load(refresh.rebuilt(text, rows))
    assert new["sources"] == RAW["sources"]
    assert new["regions"] == {
        "asia-southeast3": ["asia-southeast3-a"],
        "us-east4": ["us-east4-a", "us-east4-b", "us-east4-c"],
    }
    mega = new["accelerators"]["nvidia-h100-mega-80gb"]["zones"]
    assert mega == {"compute-api": ["us-east4-a", "us-east4-b"]}
    l4 = new["accelerators"]["nvidia-l4"]["zones"]
    assert l4["compute-api"] == ["us-east4-c"]
    assert l4["gpu-regions-zones-page"] == RAW["accelerators"]["nvidia-l4"]["zones"]["gpu-regions-zones-page"]
    assert new["accelerators"]["nvidia-tesla-t4"]["zones"]["compute-api"] == []
    assert new["accelerators"]["nvidia-gb200"]["zones"] == {}  # no rows for it: still not known


def test_an_accelerator_no_source_lists_is_not_known_so_never_refused() -> None:
    """A4X's zones are in no vendored source: the table knows the GPU but not where it is, so no zone is
    refused for it (an empty list would refuse every zone of every known region)."""
    assert RAW["accelerators"]["nvidia-gb200"]["zones"] == {}
    assert "nvidia-gb200" not in zones.table().offered
    assert zones.zones_with("nvidia-gb200", "us-central1") is None
    assert zones.regions_with("nvidia-gb200") == ()
