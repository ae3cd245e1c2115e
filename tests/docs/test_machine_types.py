"""docs/machine-types.md is generated from the catalog, and the GKE catalog is checked against Google's list."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpu_platform.catalog.gpus import GPUS
from gpu_platform.cloud_facts import profile_of
from tests.conftest import REPO, UPSTREAM
from tests.support.scripts import load_script

gen = load_script(REPO / "scripts" / "gen_machine_types.py", "gen_machine_types")
MAPPINGS = json.loads((UPSTREAM / "cluster-toolkit" / "machine_mappings.json").read_text())
# Google's GPU names (accelerator_shorthand_map keys) -> the catalog's GPU keys.
GOOGLE_GPU = {
    "l4": "l4",
    "a100-40gb": "a100-40gb",
    "a100-80gb": "a100-80gb",
    "h100-80gb": "h100-80gb",
    "h100-mega-80gb": "h100-80gb",
    "h200-141gb": "h200-141gb",
    "b200": "b200-180gb",
    "gb200": "gb200-186gb",
}


def test_the_doc_is_up_to_date() -> None:
    assert (REPO / "docs" / "machine-types.md").read_text() == gen.render(), (
        "docs/machine-types.md is stale: run python scripts/gen_machine_types.py"
    )


def test_every_catalog_machine_is_a_row_with_its_facts() -> None:
    text = gen.render()
    for cloud in ("gke", "eks", "aks"):
        for m in profile_of(cloud).machines.values():
            row = next(line for line in text.splitlines() if line.startswith(f"| `{m.name}` |"))
            cells = [c.strip() for c in row.strip("|").split("|")]
            assert cells[1] == m.gpu.display and cells[3:5] == [str(m.vcpus), str(m.memory_gib)], row
            assert cells[2].split()[0] == str(m.gpus)
    assert "| `a3-highgpu-1g` | H100 80GB | 1 | 26 | 234 | `nvidia-h100-80gb` | yes |" in text
    assert "| `Standard_ND96asr_v4` | A100 40GB | 8 | 96 | 900 |  | yes (by the cloud) |" in text


def _google_gpu_machines() -> dict[str, tuple[str, int]]:
    """machine type -> (Google's GPU name, count), GPUs only (TPU shorthands dropped)."""
    out = {}
    for short, machine in MAPPINGS["accelerator_shorthand_map"].items():
        m = re.fullmatch(r"(?P<gpu>[a-z0-9-]+?)-(?P<n>\d+)", short)
        if m and not short.startswith(("v4", "v5", "v6", "tpu", "a2-megagpu")):
            out[machine] = (m["gpu"], int(m["n"]))
    out["a2-megagpu-16g"] = ("a100-40gb", 16)
    return out


def test_the_gke_catalog_has_every_gpu_machine_google_lists() -> None:
    google = _google_gpu_machines()
    assert "a3-highgpu-1g" in google and "g2-standard-24" in google
    catalog = profile_of("gke").machines
    modelled = {m: v for m, v in google.items() if v[0] in GOOGLE_GPU}
    missing = sorted(m for m in modelled if m not in catalog)
    assert missing == []
    for name, (gpu, count) in modelled.items():
        assert (catalog[name].gpu_key, catalog[name].gpus) == (GOOGLE_GPU[gpu], count), name
    # What Google lists and the catalog leaves out is named on the page, not silently short.
    unmodelled = sorted(
        {m.split("-")[0] + "-" + m.split("-")[1] for m, v in google.items() if v[0] not in GOOGLE_GPU}
    )
    assert unmodelled == ["g4-standard"]
    for family in unmodelled:
        assert any(f"`{family}" in line for line in gen.NOT_YET["gke"])


def test_gke_accelerator_types_agree_with_googles_family_labels() -> None:
    labels = MAPPINGS["machine_family_to_label_map"]
    for m in profile_of("gke").machines.values():
        family = m.name.rsplit("-", 1)[0]
        if family in labels and family != "a2-ultragpu":
            assert m.accelerator_type == labels[family], m.name
    # Google's map gives the A2 Ultra family the 40GB label; GKE's A2 Ultra nodes carry nvidia-a100-80gb
    # (the GPU documentation's accelerator table), which is what the catalog keeps.
    assert profile_of("gke").machines["a2-ultragpu-1g"].accelerator_type == "nvidia-a100-80gb"


def test_every_gpu_model_the_catalog_names_exists() -> None:
    for cloud in ("gke", "eks", "aks", "yandex"):
        for m in gen.rows(cloud):
            assert m.gpu_key in GPUS


def test_check_mode_reports_a_stale_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "machine-types.md"
    stale.write_text("# old\n")
    monkeypatch.setattr(gen, "OUT", stale)
    monkeypatch.setattr(gen, "REPO", tmp_path)
    assert gen.main(["--check"]) == 1
    assert gen.main([]) == 0
    assert gen.main(["--check"]) == 0
