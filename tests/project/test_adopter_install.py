"""The release as an adopter gets it: the built wheel with [gke], installed offline into a fresh virtualenv
of a platform repository laid out as docs/adopting.md says, plans that repository's stack and its own
program, whose Namespace goes through the cluster's Kubernetes provider.

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
from tests.support.adopting import DOC, adopting_files
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


WHEEL_INSTALL = '"$(ls dist/gpu_platform-*-py3-none-any.whl)[gke]"'
"""docs/adopting.md's (and README's) install of a wheel built from a clone, with one extra."""


@pytest.fixture(scope="module")
def adopter(dists: tuple[Path, Path, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """acme/: the files of docs/adopting.md and a venv/ with the built wheel and its [gke] extra, installed by
    the page's own command."""
    wheel, sdist, _ = dists
    assert wheel.name == f"gpu_platform-{VERSION}-py3-none-any.whl"
    assert sdist.name == f"gpu_platform-{VERSION}.tar.gz"
    assert f"pip install {WHEEL_INSTALL}" in DOC
    wheelhouse = tmp_path_factory.mktemp("wheelhouse")
    build_wheelhouse(wheel, ["gke"], wheelhouse)
    project = tmp_path_factory.mktemp("acme")
    for name, body in adopting_files().items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(body)
    (project / "dist").mkdir()
    (project / "dist" / wheel.name).write_bytes(wheel.read_bytes())
    made = _run([sys.executable, "-m", "venv", "venv"], project)
    assert made.returncode == 0, made.stderr
    # The page's command as a shell runs it; the dependencies come from the wheelhouse, with no index.
    command = f"venv/bin/pip install --quiet --no-compile {WHEEL_INSTALL}"
    env = {**_env(), "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheelhouse)}
    installed = subprocess.run(
        ["bash", "-c", command],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
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


def test_the_adopters_own_namespace_goes_through_the_librarys_provider(adopter: Path) -> None:
    """docs/adopting.md's own program, run by the installed wheel: ``opts.provider=cluster.kubernetes_provider``
    records the Namespace under the GkeCluster's Kubernetes provider (not the default one of the kubeconfig)."""
    planned = _run(
        [str(adopter / "venv" / "bin" / "gpu-platform"), "plan", "--project", "composed", "--stack", "dev"],
        adopter,
    )
    assert planned.returncode == 0, planned.stdout + planned.stderr
    resources = json.loads((adopter / "composed" / "build" / "plan" / "dev" / "plan.json").read_text())[
        "resources"
    ]
    [provider] = [r for r in resources if r["type"] == "pulumi:providers:kubernetes"]
    [cluster] = [r for r in resources if r["type"] == "gpu-platform:index:GkeCluster"]
    assert provider["parent"] == cluster["urn"]
    [namespace] = [
        r for r in resources if r["type"] == "kubernetes:core/v1:Namespace" and r["name"] == "ml-research"
    ]
    assert namespace["provider"].rsplit("::", 1)[0] == provider["urn"], namespace["provider"]
