"""Dependency floors: pyproject.toml's lower bounds are the releases CI installs and tests.

ci/constraints-floor.txt pins the oldest release of every runtime dependency and of every extra's SDK
that the suite passed on (found by bisecting releases in throwaway virtualenvs); the ``dependencies``
job of .github/workflows/ci.yml installs exactly those and runs the suite, and the same job runs it on
the newest releases.
"""

from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO
from tests.support.scripts import load_script

SCRIPT = REPO / "scripts" / "check_floors.py"


check_floors = load_script(SCRIPT, "check_floors")


def test_pyproject_lower_bounds_are_the_pinned_floors() -> None:
    assert check_floors.problems(installed=False) == []
    pins = check_floors.constraints()
    runtime = {"pulumi", "pulumi-kubernetes", "pydantic", "pyyaml", "typing-extensions"}
    sdks = {"pulumi-gcp", "pulumi-aws", "pulumi-azure-native", "pulumi-policy", "helm-python-sdk"}
    assert set(pins) == runtime | sdks
    assert all(v and v[0].isdigit() for v in pins.values())


def test_a_disagreement_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "constraints.txt"
    stale.write_text(check_floors.CONSTRAINTS.read_text().replace("pydantic==", "pydantic==1.0.0 # was "))
    monkeypatch.setattr(check_floors, "CONSTRAINTS", stale)
    found = check_floors.problems(installed=False)
    assert len(found) == 1 and found[0].startswith("pydantic: pyproject.toml says >=")


def test_ci_runs_the_suite_on_the_floors_and_on_the_latest_releases() -> None:
    ci = yaml.safe_load((REPO / ".github" / "workflows" / "ci.yml").read_text())
    job = ci["jobs"]["dependencies"]
    assert job["strategy"]["matrix"]["deps"] == ["floor", "latest"]
    runs = "\n".join(s.get("run", "") for s in job["steps"])
    assert "-c ci/constraints-floor.txt -e '.[dev]'" in runs
    assert "--upgrade --upgrade-strategy eager -e '.[dev]'" in runs
    assert 'scripts/check_floors.py "--$DEPS"' in runs and "pip check" in runs
    assert job["steps"][-1]["run"].endswith("-m pytest -q")
    assert "test" in ci["jobs"]  # the cached tests-and-lint job stays
