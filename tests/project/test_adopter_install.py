"""The release as an adopter gets it: the built wheel with [gke], installed offline into a fresh virtualenv
of a platform repository laid out as docs/adopting.md says, plans that repository's stack.

``python -m build`` makes the sdist and then the wheel from the sdist (so the sdist is complete); the
dependencies come from a wheelhouse repacked from this environment (tests/support/wheelhouse.py), and
``pip install --no-index`` proves nothing else is needed. The checkout is not on the path of anything
the virtualenv runs: what plans is the installed wheel.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.support.adopting import adopting_files
from tests.support.wheelhouse import build_wheelhouse

VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]


def _env() -> dict[str, str]:
    """The adopter's shell: no PYTHONPATH into this checkout, no virtualenv of ours, no Pulumi config."""
    drop = ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PULUMI_CONFIG", "PIP_INDEX_URL", "PIP_FIND_LINKS")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True, check=False, timeout=600)


@pytest.fixture(scope="module")
def adopter(dists: tuple[Path, Path, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """acme/: the files of docs/adopting.md and a venv/ with gpu-platform[gke] from the built wheel."""
    wheel, sdist, _ = dists
    assert wheel.name == f"gpu_platform-{VERSION}-py3-none-any.whl"
    assert sdist.name == f"gpu_platform-{VERSION}.tar.gz"
    wheelhouse = tmp_path_factory.mktemp("wheelhouse")
    build_wheelhouse(wheel, ["gke"], wheelhouse)
    (wheelhouse / wheel.name).write_bytes(wheel.read_bytes())
    project = tmp_path_factory.mktemp("acme")
    for name, body in adopting_files().items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(body)
    made = _run([sys.executable, "-m", "venv", "venv"], project)
    assert made.returncode == 0, made.stderr
    # What the page's `venv/bin/pip install -r requirements.txt` does, with no index; the page pins the coming
    # release, the wheel built here is this checkout's version (a .devN between releases), so pin that.
    (project / "requirements.txt").write_text(f"gpu-platform[gke]=={VERSION}\n")
    pip = [str(project / "venv" / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-compile"]
    installed = _run([*pip, "--no-index", "--find-links", str(wheelhouse), "-r", "requirements.txt"], project)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return project


def test_the_wheel_installs_offline_with_only_the_gke_sdk(adopter: Path) -> None:
    python = str(adopter / "venv" / "bin" / "python")
    check = _run([python, "-m", "pip", "check"], adopter)
    assert check.returncode == 0, check.stdout
    probe = (
        "import importlib.util, json, gpu_platform; print(json.dumps({'file': gpu_platform.__file__, "
        "'version': gpu_platform.__version__, 'sdks': {m: importlib.util.find_spec(m) is not None "
        "for m in ('pulumi_gcp', 'pulumi_aws', 'pulumi_azure_native')}}))"
    )
    shown = _run([python, "-c", probe], adopter)
    assert shown.returncode == 0, shown.stderr
    found = json.loads(shown.stdout)
    assert Path(found["file"]).is_relative_to(adopter / "venv"), found["file"]
    assert found["version"] == VERSION
    assert found["sdks"] == {"pulumi_gcp": True, "pulumi_aws": False, "pulumi_azure_native": False}


def test_the_adopter_repository_plans_with_policy(adopter: Path) -> None:
    """docs/adopting.md: `venv/bin/gpu-platform plan --stack dev --policy` in the project directory."""
    planned = _run(
        [str(adopter / "venv" / "bin" / "gpu-platform"), "plan", "--stack", "dev", "--policy"], adopter
    )
    assert planned.returncode == 0, planned.stdout + planned.stderr
    assert planned.stderr.splitlines()[-1].startswith("policy: passed, no violations (")
    resources = json.loads((adopter / "build" / "plan" / "dev" / "plan.json").read_text())["resources"]
    pool = next(
        r
        for r in resources
        if r["type"] == "gcp:container/nodePool:NodePool" and r["name"] == "l4-spot-nodepool"
    )
    assert {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"} in pool["inputs"][
        "nodeConfig"
    ]["taints"]
    assert pool["inputs"]["nodeConfig"]["spot"] is True
    charts = {
        r["inputs"]["chart"].rsplit("/", 1)[-1]
        for r in resources
        if r["type"] == "kubernetes:helm.sh/v3:Release"
    }
    assert {"gpu-operator", "kueue"} <= charts, charts


def test_a_pull_request_diff_between_two_plans(adopter: Path) -> None:
    """The page's CI step: the base branch's plan (the one above), the head's, `gpu-platform diff` of the two."""
    cli = str(adopter / "venv" / "bin" / "gpu-platform")
    base = adopter / "build" / "plan" / "dev"
    if not (base / "plan.json").exists():
        assert _run([cli, "plan", "--stack", "dev"], adopter).returncode == 0
    stack = adopter / "Pulumi.dev.yaml"
    stack.write_text(stack.read_text().replace("maxNodes: 4", "maxNodes: 6"))
    head = _run([cli, "plan", "--stack", "dev", "--out", "build/plan/head"], adopter)
    assert head.returncode == 0, head.stderr
    diff = _run([cli, "diff", "build/plan/dev", "build/plan/head", "--format", "markdown"], adopter)
    assert diff.returncode == 0, diff.stdout + diff.stderr
    changed = [line for line in diff.stdout.splitlines() if "l4-spot-nodepool" in line]
    assert changed, diff.stdout
    assert "4" in diff.stdout and "6" in diff.stdout


def test_the_wheel_carries_the_release_metadata(dists: tuple[Path, Path, str]) -> None:
    """What PyPI shows and `pip show` prints: the canonical repository and the version of pyproject."""
    with zipfile.ZipFile(dists[0]) as whl:
        text = whl.read(next(n for n in whl.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    meta = Parser().parsestr(text)
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
    assert urls["Repository"] == "https://github.com/gpu-platform/gpu-platform"
    assert meta["Version"] == VERSION
