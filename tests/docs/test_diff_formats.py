"""docs/day2.md, "`gpu-platform diff` output formats": every format the CLI offers is described, and the JSON
keys the page lists are the ones the diff writes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpu_platform.cli import build_parser, main
from tests.conftest import REPO

DOC = (REPO / "docs" / "day2.md").read_text()
SECTION = DOC.split("## `gpu-platform diff` output formats", 1)[1].split("\n## ", 1)[0]


def _diff_formats() -> tuple[str, ...]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    fmt = next(a for a in sub.choices["diff"]._actions if a.dest == "format")  # type: ignore[union-attr]
    return tuple(fmt.choices)


def _plan(urn_name: str, inputs: dict[str, object]) -> dict[str, object]:
    urn = f"urn:pulumi:dev::acme::gcp:container/nodePool:NodePool::{urn_name}"
    return {
        "project": "acme",
        "stack": "dev",
        "resources": [{"urn": urn, "type": "gcp:container/nodePool:NodePool", "inputs": inputs}],
    }


@pytest.fixture
def plans(tmp_path: Path) -> tuple[Path, Path]:
    base, head = tmp_path / "base", tmp_path / "head"
    for d, n in ((base, 4), (head, 6)):
        d.mkdir()
        (d / "plan.json").write_text(
            json.dumps(_plan("l4-spot-nodepool", {"autoscaling": {"totalMaxNodeCount": n}}))
        )
    return base, head


def test_every_format_is_documented() -> None:
    assert _diff_formats() == ("text", "json", "markdown")
    for fmt in _diff_formats():
        assert f"**`{fmt}`**" in SECTION


def test_the_json_keys_the_page_lists_are_the_ones_written(
    plans: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", str(plans[0]), str(plans[1]), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    json_part = SECTION.split("**`json`**", 1)[1]
    listed = set(re.findall(r"`(\w+)`", json_part))
    assert set(doc) <= listed and set(doc["summary"]) <= listed and set(doc["changes"][0]) <= listed
    assert doc["changes"][0]["values"] == ["autoscaling.totalMaxNodeCount: 4 -> 6"]


def test_text_and_markdown_look_as_the_page_shows(
    plans: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", str(plans[0]), str(plans[1])]) == 0
    text = capsys.readouterr().out
    assert text.startswith(
        "Plan diff acme/dev (base) -> acme/dev (head): 0 added, 1 changed, 0 replaced, 0 removed"
    )
    assert (
        "  ~  gcp:container/nodePool:NodePool l4-spot-nodepool: autoscaling.totalMaxNodeCount: 4 -> 6" in text
    )
    assert main(["diff", str(plans[0]), str(plans[1]), "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert md.startswith("### Plan diff `acme/dev`\n")
    assert "| | Action | Type | Name | Details |" in md and "| `l4-spot-nodepool` |" in md
    for heading in ("### Plan diff", "| | Action | Type | Name | Details |", "Resources:", "Plan diff "):
        assert heading in SECTION
