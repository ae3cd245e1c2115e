"""MIG tables and the placement search, checked against NVIDIA's tables and the operator's configs."""

from __future__ import annotations

from collections import Counter

import pytest
import yaml

from gpu_platform.catalog.mig import MIG_TABLES, MigLayoutError, named_layouts, place_profiles, resolve_layout
from tests.conftest import upstream

# (gpu, profile) -> (compute slices, memory slices, max instances): MIG user guide tables.
EXPECTED = {
    "a100-40gb": {
        "1g.5gb": (1, 1, 7),
        "1g.5gb+me": (1, 1, 1),
        "1g.10gb": (1, 2, 4),
        "2g.10gb": (2, 2, 3),
        "3g.20gb": (3, 4, 2),
        "4g.20gb": (4, 4, 1),
        "7g.40gb": (7, 8, 1),
    },
    "a100-80gb": {
        "1g.10gb": (1, 1, 7),
        "1g.10gb+me": (1, 1, 1),
        "1g.20gb": (1, 2, 4),
        "2g.20gb": (2, 2, 3),
        "3g.40gb": (3, 4, 2),
        "4g.40gb": (4, 4, 1),
        "7g.80gb": (7, 8, 1),
    },
    "h100-80gb": {
        "1g.10gb": (1, 1, 7),
        "1g.10gb+me": (1, 1, 1),
        "1g.20gb": (1, 2, 4),
        "2g.20gb": (2, 2, 3),
        "3g.40gb": (3, 4, 2),
        "4g.40gb": (4, 4, 1),
        "7g.80gb": (7, 8, 1),
    },
    "h100-94gb": {
        "1g.12gb": (1, 1, 7),
        "1g.12gb+me": (1, 1, 1),
        "1g.24gb": (1, 2, 4),
        "2g.24gb": (2, 2, 3),
        "3g.47gb": (3, 4, 2),
        "4g.47gb": (4, 4, 1),
        "7g.94gb": (7, 8, 1),
    },
    "h200-141gb": {
        "1g.18gb": (1, 1, 7),
        "1g.18gb+me": (1, 1, 1),
        "1g.35gb": (1, 2, 4),
        "2g.35gb": (2, 2, 3),
        "3g.71gb": (3, 4, 2),
        "4g.71gb": (4, 4, 1),
        "7g.141gb": (7, 8, 1),
    },
    "b200-180gb": {
        "1g.23gb": (1, 1, 7),
        "1g.23gb+me": (1, 1, 1),
        "1g.45gb": (1, 2, 4),
        "2g.45gb": (2, 2, 3),
        "3g.90gb": (3, 4, 2),
        "4g.90gb": (4, 4, 1),
        "7g.180gb": (7, 8, 1),
    },
    "gb200-186gb": {
        "1g.23gb": (1, 1, 7),
        "1g.23gb+me": (1, 1, 1),
        "1g.47gb": (1, 2, 4),
        "2g.47gb": (2, 2, 3),
        "3g.93gb": (3, 4, 2),
        "4g.93gb": (4, 4, 1),
        "7g.186gb": (7, 8, 1),
    },
    "a30-24gb": {
        "1g.6gb": (1, 1, 4),
        "1g.6gb+me": (1, 1, 1),
        "2g.12gb": (2, 2, 2),
        "2g.12gb+me": (2, 2, 1),
        "4g.24gb": (4, 4, 1),
    },
}


@pytest.mark.parametrize("gpu", sorted(EXPECTED))
def test_mig_table_matches_nvidia(gpu: str) -> None:
    table = MIG_TABLES[gpu]
    got = {n: (p.compute_slices, p.memory_slices, p.max_instances) for n, p in table.profiles.items()}
    assert got == EXPECTED[gpu]


@pytest.mark.parametrize("gpu", sorted(EXPECTED))
def test_every_all_profile_layout_is_placeable(gpu: str) -> None:
    table = MIG_TABLES[gpu]
    for name, profiles in named_layouts(table).items():
        assert place_profiles(table, list(profiles)) is not None, name


def test_placement_table_offsets() -> None:
    t = MIG_TABLES["h100-80gb"].profiles
    assert t["1g.10gb"].starts == (0, 1, 2, 3, 4, 5, 6)
    assert t["1g.20gb"].starts == (0, 2, 4, 6)
    assert t["2g.20gb"].starts == (0, 2, 4)
    assert t["3g.40gb"].starts == (0, 4)
    assert t["4g.40gb"].starts == (0,)
    assert t["7g.80gb"].starts == (0,)


VALID = [
    ("h100-80gb", ["4g.40gb", "3g.40gb"]),
    ("h100-80gb", ["3g.40gb", "3g.40gb"]),
    ("h100-80gb", ["4g.40gb", "2g.20gb", "1g.10gb"]),
    ("h100-80gb", ["4g.40gb", "1g.10gb", "1g.10gb", "1g.10gb"]),
    ("h100-80gb", ["3g.40gb", "2g.20gb", "2g.20gb"]),
    ("h100-80gb", ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]),
    ("h100-80gb", ["1g.10gb", "1g.10gb", "2g.20gb", "3g.40gb"]),
    ("h100-80gb", ["2g.20gb", "2g.20gb", "2g.20gb", "1g.10gb"]),
    ("h100-80gb", ["1g.10gb"] * 7),
    ("h100-80gb", ["1g.20gb"] * 4),
    ("h100-80gb", ["7g.80gb"]),
    ("a100-40gb", ["3g.20gb", "2g.10gb", "2g.10gb"]),
    ("a100-40gb", ["1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb"]),
    ("h200-141gb", ["4g.71gb", "3g.71gb"]),
    ("b200-180gb", ["3g.90gb", "2g.45gb", "1g.23gb", "1g.23gb"]),
    ("gb200-186gb", ["3g.93gb", "2g.47gb", "1g.23gb", "1g.23gb"]),
    ("gb200-186gb", ["4g.93gb", "3g.93gb"]),
    ("a30-24gb", ["2g.12gb", "1g.6gb", "1g.6gb"]),
    ("a30-24gb", ["2g.12gb", "2g.12gb"]),
]

INVALID = [
    ("h100-80gb", ["4g.40gb", "2g.20gb", "2g.20gb"]),  # second 2g would start at slice 6
    ("h100-80gb", ["3g.40gb", "3g.40gb", "1g.10gb"]),  # memory full
    ("h100-80gb", ["2g.20gb"] * 4),  # max 3 instances
    ("h100-80gb", ["2g.20gb"] * 3 + ["1g.10gb"] * 2),  # only slice 6 remains for a 1g
    ("h100-80gb", ["7g.80gb", "1g.10gb"]),
    ("h100-80gb", ["4g.40gb", "4g.40gb"]),
    ("h100-80gb", ["1g.10gb"] * 8),
    ("h100-80gb", ["1g.20gb"] * 4 + ["1g.10gb"]),
    ("h100-80gb", ["1g.10gb+me", "1g.10gb+me"]),
    ("a100-40gb", ["4g.20gb", "3g.20gb", "1g.5gb"]),
    ("a30-24gb", ["4g.24gb", "1g.6gb"]),
    ("a30-24gb", ["2g.12gb", "2g.12gb", "1g.6gb"]),
]


@pytest.mark.parametrize(("gpu", "profiles"), VALID)
def test_valid_layouts_place(gpu: str, profiles: list[str]) -> None:
    table = MIG_TABLES[gpu]
    placement = place_profiles(table, profiles)
    assert placement is not None
    assert Counter(p for p, _ in placement) == Counter(profiles)
    used: set[int] = set()
    for name, start in placement:
        prof = table.profiles[name]
        span = set(range(start, start + prof.memory_slices))
        assert start in prof.starts and not (span & used) and max(span) < table.memory_slices
        used |= span
    assert resolve_layout(table, profiles) == tuple(profiles)


@pytest.mark.parametrize(("gpu", "profiles"), INVALID)
def test_invalid_layouts_are_refused(gpu: str, profiles: list[str]) -> None:
    table = MIG_TABLES[gpu]
    assert place_profiles(table, profiles) is None
    with pytest.raises(MigLayoutError, match="does not fit"):
        resolve_layout(table, profiles)


def test_unknown_profile_names_the_valid_ones() -> None:
    with pytest.raises(MigLayoutError) as err:
        resolve_layout(MIG_TABLES["h100-80gb"], ["3g.40gb", "2g.25gb"])
    assert "'2g.25gb' is not a MIG profile of H100 80GB" in str(err.value)
    assert err.value.index == 1
    assert "2g.20gb" in str(err.value)


def test_unknown_named_layout() -> None:
    with pytest.raises(MigLayoutError, match="not a MIG layout of H100 80GB"):
        resolve_layout(MIG_TABLES["h100-80gb"], "all-1g.5gb")


@pytest.mark.parametrize(
    ("gpu", "operator_filter_comment"),
    [("h100-80gb", "H100-80GB"), ("a100-40gb", "A100-40GB"), ("h200-141gb", "H200"), ("b200-180gb", "B200")],
)
def test_all_balanced_matches_the_operator_default(gpu: str, operator_filter_comment: str) -> None:
    """``all-balanced`` is derived, not typed: it must equal the operator's per-GPU entry."""
    doc = yaml.safe_load(
        upstream("gpu-operator", "assets", "state-mig-manager", "0400_configmap.yaml").read_text()
    )
    configs = yaml.safe_load(doc["data"]["config.yaml"])["mig-configs"]["all-balanced"]
    from gpu_platform.catalog.gpus import GPUS

    ids = set(GPUS[gpu].pci_device_ids)
    entries = [
        e
        for e in configs
        if ids & set(e["device-filter"] if isinstance(e["device-filter"], list) else [e["device-filter"]])
    ]
    assert entries, operator_filter_comment
    assert Counter(named_layouts(MIG_TABLES[gpu])["all-balanced"]) == Counter(entries[0]["mig-devices"])


def test_all_profile_layouts_match_the_operator_default_counts() -> None:
    doc = yaml.safe_load(
        upstream("gpu-operator", "assets", "state-mig-manager", "0400_configmap.yaml").read_text()
    )
    configs = yaml.safe_load(doc["data"]["config.yaml"])["mig-configs"]
    for gpu in ("h100-80gb", "h200-141gb", "b200-180gb", "gb200-186gb", "a30-24gb"):
        for name, profiles in named_layouts(MIG_TABLES[gpu]).items():
            if name == "all-balanced" or name not in configs:
                continue
            entries = configs[name]
            counts = [e["mig-devices"] for e in entries]
            assert dict(Counter(profiles)) in counts, (gpu, name, counts)


def test_gb200_balanced_layout_is_the_operator_s_gb200_entry() -> None:
    """GB200 has no PCI device ID in the catalog (the operator's 0x294110DE is "GB200 HGX"); its ``all-balanced``
    still equals the operator's entry for that GB200, and every named layout exists in the operator's config."""
    doc = yaml.safe_load(
        upstream("gpu-operator", "assets", "state-mig-manager", "0400_configmap.yaml").read_text()
    )
    configs = yaml.safe_load(doc["data"]["config.yaml"])["mig-configs"]
    (entry,) = [e for e in configs["all-balanced"] if e.get("device-filter") == ["0x294110DE"]]
    layouts = named_layouts(MIG_TABLES["gb200-186gb"])
    assert Counter(layouts["all-balanced"]) == Counter(entry["mig-devices"])
    assert set(layouts) <= set(configs)
