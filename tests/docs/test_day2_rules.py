"""docs/day2.md lists what ``gpu-platform diff`` flags from the rules each add-on and cloud declares: the list is
generated (``scripts/gen_day2.py``) and cannot drift from what the gate does."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_platform.offline.diff_rules import DECLARED
from tests.conftest import REPO
from tests.support.scripts import load_script

gen_day2 = load_script(REPO / "scripts" / "gen_day2.py", "gen_day2")


def test_the_list_of_flags_is_up_to_date() -> None:
    text = (REPO / "docs" / "day2.md").read_text()
    assert text == gen_day2.render(text), "docs/day2.md is stale: run python scripts/gen_day2.py"


def test_every_addon_and_cloud_and_every_rule_is_listed() -> None:
    section = gen_day2.section()
    for kind, name, rules in DECLARED:
        assert (f"**{name}** (`addons/{name}/" if kind == "add-on" else f"`cloud: {name}`") in section
        for rule in rules:
            assert gen_day2.cell(rule.reason) in section, rule


def test_check_mode_reports_a_stale_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "day2.md"
    stale.write_text(f"# Day 2\n\n{gen_day2.BEGIN}\nold\n{gen_day2.END}\n\nafter\n")
    monkeypatch.setattr(gen_day2, "OUT", stale)
    monkeypatch.setattr(gen_day2, "REPO", tmp_path)
    assert gen_day2.main(["--check"]) == 1
    assert gen_day2.main([]) == 0
    assert gen_day2.main(["--check"]) == 0
    assert stale.read_text().endswith(f"{gen_day2.END}\n\nafter\n") and "reloads driver" in stale.read_text()
