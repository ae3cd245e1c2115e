"""`plan --render` outside a checkout: the pinned charts are fetched once into a user cache, or one line says how.

An installed wheel ships no charts (the checkout's are vendored under ``tests/upstream/charts``). Helm's pull is
replaced by a stand-in: the suite never reaches the network.
"""

import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from gpu_platform.cli import main
from tests.conftest import REPO

FIXTURE = REPO / "tests" / "fixtures" / "existing-minimal"
"""A project with no ``tests/upstream/charts`` beside it, as a platform repository is."""


class Helm:
    """A stand-in ``helm_python``: ``pull`` unpacks an empty chart, ``Chart`` renders nothing."""

    def __init__(self, fail: bool = False) -> None:
        self.pulls: list[tuple[str, str, str | None]] = []
        self.fail = fail

    def pull(
        self, ref: str, *, version: str, repo_url: str | None, untar_dir: str, **_: Any
    ) -> dict[str, Any]:
        self.pulls.append((ref, version, repo_url))
        if self.fail:
            raise RuntimeError(f'failed to fetch {ref}:\n "{version}" not found')
        chart = Path(untar_dir) / ref.rsplit("/", 1)[-1]
        chart.mkdir()
        (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: {chart.name}\nversion: {version}\n")
        return {"output": ""}

    def module(self) -> types.ModuleType:
        module = types.ModuleType("helm_python")
        chart = types.SimpleNamespace(load=lambda path: types.SimpleNamespace(render=lambda **_: {}))
        module.Chart = chart  # type: ignore[attr-defined]
        module.HelmError = RuntimeError  # type: ignore[attr-defined]
        module.pull = self.pull  # type: ignore[attr-defined]
        return module


def plan_render(tmp_path: Path, helm: Helm, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setitem(sys.modules, "helm_python", helm.module())
    monkeypatch.setenv("GPU_PLATFORM_CHART_CACHE", str(tmp_path / "cache"))
    return main(
        ["plan", "--project", str(FIXTURE), "--stack", "test", "--out", str(tmp_path / "out"), "--render"]
    )


def planned_sources(out: Path) -> list[tuple[str, str, str | None]]:
    doc = json.loads((out / "plan.json").read_text())
    resources = doc["resources"] if isinstance(doc, dict) else doc
    releases = sorted(
        (r for r in resources if r["type"] == "kubernetes:helm.sh/v3:Release"), key=lambda r: r["urn"]
    )
    return [
        (r["inputs"]["chart"], r["inputs"]["version"], (r["inputs"].get("repositoryOpts") or {}).get("repo"))
        for r in releases
    ]


def test_outside_a_checkout_each_chart_is_fetched_at_its_pin_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    helm = Helm()
    assert plan_render(tmp_path, helm, monkeypatch) == 0
    sources = planned_sources(tmp_path / "out")
    assert sources and helm.pulls == sources  # each release's own chart, version and repository
    cached = sorted(p.name for p in (tmp_path / "cache").iterdir())
    assert cached == sorted(f"{ref.rsplit('/', 1)[-1]}-{version}" for ref, version, _ in sources)
    err = capsys.readouterr().err
    assert err.count("fetched ") == len(sources) and "Traceback" not in err
    assert len(list((tmp_path / "out" / "rendered").iterdir())) == len(sources)
    # The second plan renders from the cache without fetching anything.
    again = Helm()
    assert plan_render(tmp_path, again, monkeypatch) == 0
    assert again.pulls == [] and "fetched " not in capsys.readouterr().err


def test_a_chart_that_cannot_be_fetched_is_one_line_saying_how(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert plan_render(tmp_path, Helm(fail=True), monkeypatch) == 2
    [line] = capsys.readouterr().err.splitlines()
    ref, version, repo = planned_sources(tmp_path / "out")[0]
    assert line.startswith(
        f"error: chart {ref.rsplit('/', 1)[-1]}-{version}: could not fetch {ref} {version}"
    )
    assert f"helm pull {ref} --repo {repo} --version {version} --untar" in line and "--charts DIR" in line
    assert not list((tmp_path / "cache").iterdir())  # nothing half-fetched is left to be taken for a chart
