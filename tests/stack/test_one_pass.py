"""One run of ``gpu-platform plan`` reports every problem of a stack file, each once, and nothing else.

Each section is validated on its own and every resolver runs, so independent mistakes in a pool, the
cluster and a KServe service come out together; a broken pool does not drag the queues and services
that name it into false errors.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_platform.cli import main
from gpu_platform.errors import ConfigError
from gpu_platform.stack import load_platform
from tests.conftest import REPO

COMPONENTS = REPO / "components" / "gpu_platform"


def _plan_stack_file(
    tmp_path: Path, config: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: one-pass\nruntime: python\nmain: __main__.py\n")
    (project / "__main__.py").write_text("from gpu_platform.stack import main\n\nmain()\n")
    (project / "Pulumi.test.yaml").write_text(yaml.safe_dump({"config": config}))
    out = tmp_path / "plan"
    rc = main(["plan", "--project", str(project), "--stack", "test", "--out", str(out)])
    captured = capsys.readouterr()
    assert not (out / "plan.json").exists()
    return rc, captured.out, captured.err


def _dev_config() -> dict[str, Any]:
    return yaml.safe_load((REPO / "stacks" / "Pulumi.dev.yaml").read_text())["config"]


def test_independent_errors_in_pool_cluster_and_service_come_out_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _dev_config()
    del config["gpu-platform:cluster"]["region"]
    config["gpu-platform:gpuPools"][0]["sharing"]["replicas"] = 1
    config["gpu-platform:kserve"]["services"][0]["gpus"] = 0.5
    rc, out, err = _plan_stack_file(tmp_path, config, capsys)
    errors = [line for line in err.splitlines() if line.startswith("gpu-platform:")]
    assert rc == 2
    assert out == ""
    assert [e.split(": ", 1)[0] for e in errors] == [
        "gpu-platform:gpuPools[0].sharing.replicas",
        "gpu-platform:cluster.region",
        "gpu-platform:kserve.services[0].gpus",
    ]
    assert "Traceback" not in err


def test_a_broken_pool_causes_no_follow_on_errors_in_queues_and_services() -> None:
    raw = {
        k.split(":", 1)[1]: v
        for k, v in yaml.safe_load((REPO / "stacks" / "Pulumi.prod.yaml").read_text())["config"].items()
        if k.startswith("gpu-platform:")
    }
    raw["gpuPools"][0]["machineType"] = "p5.48xlarg"  # referenced by a queue and two services
    with pytest.raises(ConfigError) as err:
        load_platform(raw)
    paths = [path for path, _ in err.value.problems]
    assert paths == ["gpu-platform:gpuPools[0].machineType"]
    assert "did you mean 'p5.48xlarge'" in err.value.problems[0][1]


def test_existing_cluster_without_kubeconfig_is_a_config_error_not_a_traceback() -> None:
    raw = {
        "cloud": "existing",
        "cluster": {"name": "onprem"},
        "gpuPools": [
            {
                "name": "a",
                "gpu": "l4",
                "gpusPerNode": 1,
                "cpusPerNode": 8,
                "memoryGibPerNode": 32,
                "maxNodes": 1,
            }
        ],
        "gpuOperator": {"driver": {"owner": "operator"}},
    }
    with pytest.raises(ConfigError) as err:
        load_platform(raw)
    assert [path for path, _ in err.value.problems] == ["gpu-platform:cluster.kubeconfig"]


def test_a_misspelled_namespace_is_refused_instead_of_ignored() -> None:
    raw = {k.split(":", 1)[1]: v for k, v in _dev_config().items() if k.startswith("gpu-platform:")}
    with pytest.raises(ConfigError) as err:
        load_platform(raw, ["gpu-platfrom:kserve", "gcp:project"])
    [(path, reason)] = err.value.problems
    assert path == "gpu-platform:kserve"
    assert "'gpu-platfrom' is not the 'gpu-platform' namespace" in reason


def test_the_import_layering_contract_holds() -> None:
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint, "import-linter is part of the dev dependencies"
    result = subprocess.run(
        [lint, "--config", str(REPO / "pyproject.toml")], cwd=REPO, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def _functions() -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    out = []
    for path in sorted(COMPONENTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((f"{path.relative_to(COMPONENTS)}:{node.lineno} {node.name}", node))
    return out


def test_no_function_in_the_library_is_longer_than_a_screen() -> None:
    long = [
        (where, node.end_lineno - node.lineno + 1)
        for where, node in _functions()
        if (node.end_lineno or 0) - node.lineno + 1 > 62
    ]
    assert long == []


def test_component_constructors_only_plan_and_create() -> None:
    """``__init__`` of every component is one call: ``self._start(name, x_plan(args), opts)``, a plan
    function that checks the arguments itself (``GpuPlatform``'s plan is its ``PlatformSpec``:
    ``platform_spec_of_args(args)``), or ``self._start(name, x_plan(resolve_x(args)), opts)`` /
    ``x_plan(*checks(args))`` where the argument checks are a resolve step."""
    from gpu_platform import _COMPONENTS

    checked = 0
    for module in {load().__name__ for load in _COMPONENTS.values()}:
        path = COMPONENTS.parent / (module.replace(".", "/") + ".py")
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and node.name in _COMPONENTS:
                [init] = [n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
                body = [
                    s
                    for s in init.body
                    if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
                ]
                assert len(body) == 1, node.name
                call = body[0].value  # type: ignore[attr-defined]
                assert isinstance(call, ast.Call) and ast.unparse(call.func) == "self._start", node.name
                # The plan function, called on what a resolve step made of the arguments.
                inner = call.args[1]
                names = [
                    ast.unparse(n.func).rsplit(".", 1)[-1] for n in ast.walk(inner) if isinstance(n, ast.Call)
                ]
                resolved = (
                    isinstance(inner, ast.Call)
                    and names[0].endswith("_plan")
                    and any(n.startswith("resolve_") or n.endswith("_args") for n in names[1:])
                )
                # Or the plan function of the arguments themselves, which checks them first.
                of_args = (
                    isinstance(inner, ast.Call)
                    and names[0].endswith(("_plan", "_spec_of_args"))
                    and [ast.unparse(a) for a in inner.args] == ["args"]
                )
                assert of_args or resolved, node.name
                checked += 1
    assert checked == len(_COMPONENTS)
