"""Cloud SDKs are extras: a missing one is one line naming the extra, and nothing else needs it.

A missing SDK is simulated by ``sys.modules[name] = None`` (Python then refuses the import with
``ModuleNotFoundError(name=...)``, exactly as when the package is not installed). The real thing,
``pip install '.[gke]'`` into a fresh virtualenv, is measured by ``benchmarks/install.py``.
"""

import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from gpu_platform import (
    AksCluster,
    AksGpuNodePool,
    EksCluster,
    EksGpuNodePool,
    GkeCluster,
    GkeGpuNodePool,
)
from gpu_platform.cli import main
from gpu_platform.cloud_facts import EXTRAS
from gpu_platform.offline import run_program
from gpu_platform.sdk import MissingExtraError, require
from tests.conftest import REPO

CLOUD_SDKS = ("pulumi_gcp", "pulumi_aws", "pulumi_azure_native")


def block(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make ``modules`` (and their submodules) unimportable, as if they were not installed."""
    for name in [m for m in sys.modules if m.split(".")[0] in modules]:
        monkeypatch.delitem(sys.modules, name)
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


def pyproject() -> dict[str, Any]:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def names(requirements: list[str]) -> list[str]:
    return [canonicalize_name(Requirement(r).name) for r in requirements]


def test_base_install_has_no_cloud_sdk_and_each_extra_brings_one() -> None:
    project = pyproject()["project"]
    base = names(project["dependencies"])
    assert sorted(base) == ["pulumi", "pulumi-kubernetes", "pydantic", "pyyaml", "typing-extensions"]
    extras = project["optional-dependencies"]
    for name, extra in EXTRAS.items():
        assert names(extras[name]) == [extra.distribution]
    assert extras["all"] == ["gpu-platform[gke,eks,aks]"]
    assert "gpu-platform[all,render,policy]" in extras["dev"]


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_require_returns_the_installed_sdk(extra: str) -> None:
    assert require(EXTRAS[extra]).__name__ == EXTRAS[extra].module


def test_missing_extra_is_one_line_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    block(monkeypatch, "pulumi_gcp")
    with pytest.raises(MissingExtraError) as err:
        require(EXTRAS["gke"], GkeCluster)
    assert (
        str(err.value)
        == "GkeCluster needs the Google Cloud SDK (pulumi-gcp): pip install 'gpu-platform[gke]'"
    )
    assert isinstance(err.value, ImportError) and err.value.name == "pulumi_gcp"


def test_a_broken_dependency_inside_an_installed_sdk_is_not_blamed_on_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fail(name: str) -> Any:
        raise ModuleNotFoundError("No module named 'semver'", name="semver")

    monkeypatch.setattr("importlib.import_module", fail)
    with pytest.raises(ModuleNotFoundError) as err:
        require(EXTRAS["gke"])
    assert not isinstance(err.value, MissingExtraError) and err.value.name == "semver"


POOL = {"name": "gpu", "machine_type": "g2-standard-8", "max_nodes": 2}
COMPONENTS: list[tuple[str, str, Any]] = [
    ("gke", "GkeCluster", lambda: GkeCluster("c", {"location": "us-central1"})),
    ("eks", "EksCluster", lambda: EksCluster("c", {})),
    ("aks", "AksCluster", lambda: AksCluster("c", {"location": "westeurope"})),
    (
        "gke",
        "GkeGpuNodePool",
        lambda: GkeGpuNodePool("p", {"cluster": "c", "location": "us-central1", "pool": POOL}),
    ),
    (
        "eks",
        "EksGpuNodePool",
        lambda: EksGpuNodePool(
            "p",
            {
                "cluster_name": "c",
                "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
                "subnet_ids": ["subnet-0123456789abcdef0"],
                "pool": {**POOL, "machine_type": "g6.xlarge"},
            },
        ),
    ),
    (
        "aks",
        "AksGpuNodePool",
        lambda: AksGpuNodePool(
            "p",
            {
                "resource_group_name": "rg",
                "cluster_name": "c",
                "pool": {**POOL, "machine_type": "Standard_NC4as_T4_v3"},
            },
        ),
    ),
]


@pytest.mark.parametrize(("extra", "component", "build"), COMPONENTS, ids=[c[1] for c in COMPONENTS])
def test_each_cloud_component_names_its_extra(
    monkeypatch: pytest.MonkeyPatch, extra: str, component: str, build: Any
) -> None:
    run_program(build)  # builds with the SDK installed
    block(monkeypatch, EXTRAS[extra].module)
    with pytest.raises(MissingExtraError) as err:
        run_program(build)
    assert str(err.value).startswith(f"{component} needs ")
    assert str(err.value).endswith(f"pip install 'gpu-platform[{extra}]'")


def test_plan_of_a_gke_program_without_the_gke_extra_exits_2_in_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    block(monkeypatch, *CLOUD_SDKS)
    project = REPO / "examples" / "gke-gpu-pools"
    assert main(["plan", "--project", str(project), "--stack", "example", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert (
        err == "error: GkeCluster needs the Google Cloud SDK (pulumi-gcp): pip install 'gpu-platform[gke]'\n"
    )
    assert not (tmp_path / "plan.json").exists()


@pytest.mark.parametrize(("stack", "cloud"), [("dev", "gke"), ("staging", "aks"), ("prod", "eks")])
def test_a_stack_needs_only_its_own_cloud_sdk(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    stack: str,
    cloud: str,
) -> None:
    own = EXTRAS[cloud].module
    block(monkeypatch, *[m for m in CLOUD_SDKS if m != own])
    assert main(["plan", "--stack", stack, "--out", str(tmp_path / "ok")]) == 0
    block(monkeypatch, own)
    capsys.readouterr()
    assert main(["plan", "--stack", stack, "--out", str(tmp_path / "missing")]) == 2
    extra = EXTRAS[cloud]
    assert capsys.readouterr().err == (
        f"error: gpu-platform:cloud: {cloud} needs {extra.what} ({extra.distribution}): "
        f"pip install 'gpu-platform[{cloud}]'\n"
    )


def test_every_module_but_the_cloud_components_imports_without_any_cloud_sdk() -> None:
    """Plans, checks, the CLI, policy rules and the stack layer work from the base install."""
    code = f"""
import importlib, pkgutil, sys
for name in {CLOUD_SDKS!r}:
    sys.modules[name] = None
import gpu_platform
names = [m.name for m in pkgutil.walk_packages(gpu_platform.__path__, "gpu_platform.")]
for name in names:
    importlib.import_module(name)
print(len(names))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) > 50


def _example_extras(project: Path) -> set[str]:
    """The extras of the library line in an example's requirements.txt (``-e ../..[gke]``)."""
    for line in (project / "requirements.txt").read_text().splitlines():
        if line.startswith("-e ../.."):
            return {e.strip() for e in line.partition("[")[2].rstrip("]").split(",") if e.strip()}
    raise AssertionError(f"{project}: no -e ../.. line")


PYTHON_EXAMPLES = sorted(
    p.parent for p in (REPO / "examples").glob("*/Pulumi.yaml") if (p.parent / "__main__.py").exists()
)


@pytest.mark.parametrize("project", PYTHON_EXAMPLES, ids=lambda p: p.name)
def test_each_example_plans_with_only_the_extras_its_requirements_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, project: Path
) -> None:
    extras = _example_extras(project)
    assert extras <= set(EXTRAS)
    block(monkeypatch, *[EXTRAS[e].module for e in ("gke", "eks", "aks") if e not in extras])
    assert main(["plan", "--project", str(project), "--stack", "example", "--out", str(tmp_path)]) == 0
