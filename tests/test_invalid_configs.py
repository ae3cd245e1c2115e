"""Every invalid stack configuration in ``tests/invalid_configs`` stops the plan with a clear error.

Each file is a whole ``Pulumi.<stack>.yaml`` whose first line says which key must be named
(``# expect: gpuPools[0].sharing.mode``). It runs through the real CLI in a throwaway project whose
program is the library's stack program: exit code 2, one error line naming
``gpu-platform:<key>``, and nothing planned.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from gpu_platform.cli import main

CORPUS = Path(__file__).resolve().parent / "invalid_configs"
FILES = sorted(CORPUS.glob("*.yaml"))
EXPECT = re.compile(r"^# expect: (?P<key>\S+)\s*$", re.MULTILINE)

# Known gaps in the library's validation: file stem -> reason (strict xfail, so a fix is noticed).
KNOWN_GAPS: dict[str, str] = {}

# The cases the guard-rail issue asks for, each by its file.
REQUIRED = [
    "unknown-cloud",
    "unknown-machine-type",
    "mig-on-l4",
    "invalid-mig-profile",
    "unplaceable-mig-layout",
    "single-strategy-mixed-profiles",
    "time-slicing-one-replica",
    "time-slicing-isolation-required",
    "min-above-max-nodes",
    "negative-max-nodes",
    "unknown-top-level-key",
    "unknown-nested-key",
    "missing-max-nodes",
    "duplicate-pool-names",
    "kserve-fractional-gpu",
    "kserve-zero-gpu",
    "kserve-unknown-pool",
    "cuda13-on-570-driver",
    "unknown-cuda-version",
    "capacity-type-on-gke",
    "efa-on-g6",
    "operator-driver-on-eks",
    "operator-driver-on-gke-cos",
    "spot-max-price-without-spot",
    "kueue-team-unknown-queue",
    "kueue-borrowing-without-cohort",
    "reserved-label-key",
    "weakened-gpu-taint",
]


def expected_key(path: Path) -> str:
    match = EXPECT.search(path.read_text())
    assert match, f"{path.name} has no '# expect: <key path>' comment"
    return match["key"]


def test_corpus_is_large_and_covers_the_required_cases() -> None:
    stems = {p.stem for p in FILES}
    assert len(FILES) >= 150
    assert not set(KNOWN_GAPS) - stems, f"gaps without a file: {sorted(set(KNOWN_GAPS) - stems)}"
    assert not set(REQUIRED) - stems, f"missing: {sorted(set(REQUIRED) - stems)}"
    for path in FILES:
        expected_key(path)


def _cases() -> list[object]:
    out: list[object] = []
    for path in FILES:
        marks = (
            [pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[path.stem])] if path.stem in KNOWN_GAPS else []
        )
        out.append(pytest.param(path, id=path.stem, marks=marks))
    return out


@pytest.mark.parametrize("path", _cases())
def test_invalid_config_is_refused_naming_the_key(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: invalid-config\nruntime: python\nmain: __main__.py\n")
    (project / "__main__.py").write_text("from gpu_platform.stack import main\n\nmain()\n")
    shutil.copy(path, project / f"Pulumi.{path.stem}.yaml")
    out = tmp_path / "plan"

    rc = main(["plan", "--project", str(project), "--stack", path.stem, "--out", str(out)])

    captured = capsys.readouterr()
    key = f"gpu-platform:{expected_key(path)}"
    errors = [line for line in captured.err.splitlines() if line.startswith("gpu-platform:")]
    assert rc == 2, captured.err
    assert captured.err.startswith(f"error: invalid configuration for stack '{path.stem}'")
    assert len(errors) == 1, f"one mistake, one error line: {errors}"
    assert errors[0].startswith(key), f"expected an error naming {key}, got: {errors}"
    assert errors[0].split(": ", 1)[1].strip(), "the error says why"
    assert captured.out == "", "nothing is planned"
    assert not (out / "plan.json").exists()
