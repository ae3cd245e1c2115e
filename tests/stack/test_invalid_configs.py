"""Every invalid stack configuration in ``tests/invalid_configs`` stops the plan with a clear error.

Each file is a whole ``Pulumi.<stack>.yaml`` whose first line says which key must be named
(``# expect: gpuPools[0].sharing.mode``). It runs through the real CLI in a throwaway project whose
program is the library's stack program: exit code 2, one error line naming
``gpu-platform:<key>``, and nothing planned.

The files are grouped by the top-level section of the stack config that key is in (``gpu-pools/``,
``cluster/``, ``kueue/`` ...; ``stack/`` for a top-level key that is no section, such as a misspelt one),
each named for what is wrong: ``<section>/<what-is-wrong>.yaml``; the case id is ``<section>/<stem>``.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from gpu_platform.cli import main

CORPUS = Path(__file__).resolve().parent.parent / "invalid_configs"
FILES = sorted(CORPUS.glob("*/*.yaml"))
SECTIONS = {
    "cloud": "cloud",
    "cluster": "cluster",
    "cuda-version": "cudaVersion",
    "gpu-operator": "gpuOperator",
    "gpu-pools": "gpuPools",
    "kserve": "kserve",
    "serving": "serving",
    "kueue": "kueue",
    "slurm": "slurm",
    "observability": "observability",
    "volcano": "volcano",
    "dra": "dra",
    "workloads": "workloads",
    "mirror": "mirror",
    "fleet": "fleet",
}
"""Folder -> the top-level key of the stack config its cases name; ``stack/`` holds keys that are no section."""
NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
EXPECT = re.compile(r"^# expect: (?P<key>\S+)\s*$", re.MULTILINE)

# Known gaps in the library's validation: case id -> reason (strict xfail, so a fix is noticed).
KNOWN_GAPS: dict[str, str] = {}

# The cases the guard-rail issue asks for, each by its case id.
REQUIRED = [
    "cloud/unknown-cloud",
    "gpu-pools/unknown-machine-type",
    "gpu-pools/mig-on-l4",
    "gpu-pools/invalid-mig-profile",
    "gpu-pools/unplaceable-mig-layout",
    "gpu-pools/single-strategy-mixed-profiles",
    "gpu-pools/time-slicing-one-replica",
    "gpu-pools/time-slicing-isolation-required",
    "gpu-pools/min-above-max-nodes",
    "gpu-pools/negative-max-nodes",
    "stack/unknown-top-level-key",
    "gpu-pools/unknown-nested-key",
    "gpu-pools/missing-max-nodes",
    "gpu-pools/duplicate-pool-names",
    "kserve/fractional-gpu",
    "kserve/zero-gpu",
    "kserve/unknown-pool",
    "gpu-pools/cuda13-on-570-driver",
    "gpu-pools/unknown-cuda-version",
    "gpu-pools/capacity-type-on-gke",
    "gpu-pools/efa-on-g6",
    "gpu-operator/operator-driver-on-eks",
    "gpu-operator/operator-driver-on-gke-cos",
    "gpu-pools/spot-max-price-without-spot",
    "kueue/team-unknown-queue",
    "kueue/borrowing-without-cohort",
    "gpu-pools/reserved-label-key",
    "gpu-pools/weakened-gpu-taint",
]


def expected_key(path: Path) -> str:
    match = EXPECT.search(path.read_text())
    assert match, f"{path.name} has no '# expect: <key path>' comment"
    return match["key"]


def case_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def test_corpus_is_large_and_covers_the_required_cases() -> None:
    ids = {case_id(p) for p in FILES}
    assert len(FILES) >= 390
    assert not set(KNOWN_GAPS) - ids, f"gaps without a file: {sorted(set(KNOWN_GAPS) - ids)}"
    assert not set(REQUIRED) - ids, f"missing: {sorted(set(REQUIRED) - ids)}"
    assert not list(CORPUS.glob("*.yaml")), "every case is in the folder of its section"
    for path in FILES:
        expected_key(path)


def test_each_case_is_in_the_folder_of_the_section_it_names() -> None:
    for path in FILES:
        section = re.match(r"[A-Za-z]+", expected_key(path))
        assert section, path
        folder = next((f for f, key in SECTIONS.items() if key == section[0]), "stack")
        assert path.parent.name == folder, f"{case_id(path)} names {section[0]}: it belongs in {folder}/"
        assert NAME.match(path.stem), f"{case_id(path)}: lowercase kebab-case"


def _cases() -> list[object]:
    out: list[object] = []
    for path in FILES:
        marks = (
            [pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[case_id(path)])]
            if case_id(path) in KNOWN_GAPS
            else []
        )
        out.append(pytest.param(path, id=case_id(path), marks=marks))
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
