"""`gpu-platform plan`: byte-identical output, secrets kept secret, bad input refused with exit 2 and
one clear line (no traceback), program failures as one line, CLI usable from any repository."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gpu_platform.cli import main
from gpu_platform.offline.runner import SECURE_PLACEHOLDER
from tests.conftest import REPO

FIXTURE = REPO / "tests" / "fixtures" / "existing-minimal"


def test_dev_plan_is_byte_identical_across_runs(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["plan", "--stack", "dev", "--out", str(a)]) == 0
    assert main(["plan", "--stack", "dev", "--out", str(b)]) == 0
    assert (a / "plan.json").read_bytes() == (b / "plan.json").read_bytes()
    doc = json.loads((a / "plan.json").read_text())
    assert doc["project"] == "gpu-platform" and doc["stack"] == "dev"
    urns = [r["urn"] for r in doc["resources"]]
    assert urns == sorted(urns)
    first = doc["resources"][0]
    assert set(first) == {"urn", "type", "name", "parent", "provider", "dependsOn", "inputs", "options"}
    assert set(first["options"]) == {
        "protect",
        "retainOnDelete",
        "ignoreChanges",
        "deleteBeforeReplace",
        "replaceOnChanges",
        "aliases",
    }
    for sub in ("values", "manifests"):
        files_a = sorted(p.relative_to(a) for p in (a / sub).rglob("*"))
        assert files_a == sorted(p.relative_to(b) for p in (b / sub).rglob("*"))
        for rel in files_a:
            assert (a / rel).read_bytes() == (b / rel).read_bytes()


def test_helm_values_and_manifests_are_written(tmp_path: Path) -> None:
    assert main(["plan", "--stack", "dev", "--out", str(tmp_path)]) == 0
    values = {p.stem for p in (tmp_path / "values").glob("*.yaml")}
    assert {"gpu-operator", "kueue", "cert-manager", "kserve-crd", "kserve-resources"} <= values
    doc = json.loads((tmp_path / "plan.json").read_text())
    release = next(
        r for r in doc["resources"] if r["type"].endswith("Release") and r["inputs"]["name"] == "gpu-operator"
    )
    assert (
        yaml.safe_load((tmp_path / "values" / "gpu-operator.yaml").read_text()) == release["inputs"]["values"]
    )
    manifests = list((tmp_path / "manifests").glob("*.yaml"))
    kinds = {yaml.safe_load(p.read_text())["kind"] for p in manifests}
    assert {"ConfigMap", "ResourceFlavor", "ClusterQueue"} <= kinds


def test_secure_values_become_a_secret_placeholder(tmp_path: Path) -> None:
    out = tmp_path / "plan"
    assert main(["plan", "--project", str(FIXTURE), "--stack", "test", "--out", str(out)]) == 0
    text = (out / "plan.json").read_text()
    assert SECURE_PLACEHOLDER not in text
    provider = next(r for r in json.loads(text)["resources"] if r["type"] == "pulumi:providers:kubernetes")
    assert provider["inputs"]["kubeconfig"] == "[secret]"


def test_invalid_config_exits_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    shutil.copytree(FIXTURE, project, ignore=shutil.ignore_patterns("build"))
    stack_file = project / "Pulumi.test.yaml"
    doc = yaml.safe_load(stack_file.read_text())
    doc["config"]["gpu-platform:gpuPools"][0]["maxNodes"] = -1
    stack_file.write_text(yaml.safe_dump(doc))
    out = tmp_path / "out"
    assert main(["plan", "--project", str(project), "--stack", "test", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "gpu-platform:gpuPools[0].maxNodes: -1 is out of range" in err
    assert not (out / "plan.json").exists()


def test_schema_command_prints_the_config_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--keys"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert set(schema["properties"]) >= {"cloud", "cluster", "gpuPools", "gpuOperator", "kueue", "kserve"}
    pool = schema["$defs"]["GpuPoolArgs"]
    assert pool["additionalProperties"] is False
    assert "machineType" in pool["properties"] and "maxNodes" in pool["required"]


def test_import_loads_no_cloud_sdk() -> None:
    code = (
        "import sys, gpu_platform, gpu_platform.stack.program, gpu_platform.stack;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('pulumi_aws','pulumi_gcp','pulumi_azure_native')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_json_format_prints_the_plan_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "plan"
    assert (
        main(["plan", "--project", str(FIXTURE), "--stack", "test", "--out", str(out), "--format", "json"])
        == 0
    )
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads((out / "plan.json").read_text())


# ---------------------------------------------------------------------------------------------
# Bad input: exit 2, one line, no traceback
# ---------------------------------------------------------------------------------------------


def _project_with_stack(tmp_path: Path, stack_text: str) -> Path:
    project = tmp_path / "proj"
    shutil.copytree(FIXTURE, project, ignore=shutil.ignore_patterns("build", "Pulumi.test.yaml"))
    (project / "Pulumi.test.yaml").write_text(stack_text)
    return project


def _plan_err(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, str]:
    code = main(["plan", "--project", str(project), "--stack", "test", "--out", str(tmp_path / "o"), *extra])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


GOOD_STACK = (FIXTURE / "Pulumi.test.yaml").read_text()


@pytest.mark.parametrize(
    ("stack_text", "message"),
    [
        (
            "config:\n  gpu-platform:cloud: [existing\n",
            "Pulumi.test.yaml:3:1: not valid YAML: while parsing a flow",
        ),
        (
            "- config\n- x\n",
            "Pulumi.test.yaml: a stack file must be a YAML mapping (with a config: key), not a list",
        ),
        ("config: [1, 2]\n", "Pulumi.test.yaml: config: must be a mapping of key: value, not a list"),
        (
            "config:\n  gpu-platform:cloud: existing\n  gpu-platform:cloud: gke\n",
            "Pulumi.test.yaml:3:3: duplicate key 'gpu-platform:cloud' (first defined on line 2)",
        ),
        (
            GOOD_STACK.replace("      maxNodes: 2\n", "      maxNodes: 2\n      maxNodes: 3\n"),
            "duplicate key 'maxNodes' (first defined on line 13)",
        ),
        (
            "environment:\n  - gpu/prod\n" + GOOD_STACK,
            "imports Pulumi ESC environment(s) (gpu/prod), which the offline plan cannot resolve",
        ),
    ],
    ids=["invalid-yaml", "not-a-mapping", "config-not-a-mapping", "duplicate-key", "nested-duplicate", "esc"],
)
def test_bad_stack_files_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], stack_text: str, message: str
) -> None:
    project = _project_with_stack(tmp_path, stack_text)
    code, err = _plan_err(project, tmp_path, capsys)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("error: ")
    assert not (tmp_path / "o" / "plan.json").exists()


def test_esc_message_says_how_to_supply_the_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project_with_stack(tmp_path, "environment: [gpu/prod]\n" + GOOD_STACK)
    _, err = _plan_err(project, tmp_path, capsys)
    assert (
        "put the values they provide under config: for the plan, or pass them with --config-file FILE" in err
    )


def test_config_file_supplies_what_an_esc_environment_would(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    without_cloud = GOOD_STACK.replace("  gpu-platform:cloud: existing\n", "")
    project = _project_with_stack(tmp_path, "environment: [gpu/prod]\n" + without_cloud)
    extra = tmp_path / "esc-values.yaml"
    extra.write_text("config:\n  gpu-platform:cloud: existing\n  gpu-platform:kueue:\n    enabled: true\n")
    code, _ = _plan_err(project, tmp_path, capsys, "--config-file", str(extra))
    assert code == 0
    doc = json.loads((tmp_path / "o" / "plan.json").read_text())
    assert any(r["type"] == "gpu-platform:index:Kueue" for r in doc["resources"])
    # A config file is checked like a stack file.
    extra.write_text("config:\n  a: 1\n  a: 2\n")
    code, err = _plan_err(project, tmp_path, capsys, "--config-file", str(extra))
    assert code == 2 and "esc-values.yaml:3:3: duplicate key 'a'" in err


def test_missing_stack_and_project_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--project", str(FIXTURE), "--stack", "nope", "--out", str(tmp_path)]) == 2
    assert "no stack config" in capsys.readouterr().err
    assert main(["plan", "--project", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "is not a Pulumi project (no Pulumi.yaml)" in capsys.readouterr().err


def test_non_json_pulumi_config_never_crashes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PULUMI_CONFIG", "cloud=gke")
    assert main(["plan", "--project", str(FIXTURE), "--stack", "test", "--out", str(tmp_path / "a")]) == 0
    code = main(
        [
            "plan",
            "--project",
            str(FIXTURE),
            "--stack",
            "test",
            "--out",
            str(tmp_path / "b"),
            "--use-env-config",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "error: PULUMI_CONFIG is not valid JSON" in err and "Traceback" not in err


# ---------------------------------------------------------------------------------------------
# Program failures
# ---------------------------------------------------------------------------------------------


def _project_with_program(tmp_path: Path, program: str) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: failing\nruntime: python\n")
    (project / "Pulumi.test.yaml").write_text("config: {}\n")
    (project / "__main__.py").write_text(program)
    return project


def test_input_properties_error_lists_each_property(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project_with_program(
        tmp_path,
        "import pulumi\n"
        "raise pulumi.InputPropertiesError('bad args', [\n"
        "    {'property_path': 'pools[0].maxNodes', 'reason': 'must be >= 0'},\n"
        "    {'property_path': 'cloud', 'reason': 'unknown cloud gcp'}])\n",
    )
    code, err = _plan_err(project, tmp_path, capsys)
    assert code == 2
    assert err.splitlines() == [
        "error: invalid component arguments:",
        "  pools[0].maxNodes: must be >= 0",
        "  cloud: unknown cloud gcp",
    ]


def test_unexpected_exception_is_one_line_with_a_debug_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project_with_program(tmp_path, "import pulumi\nraise KeyError('gpuPools')\n")
    code, err = _plan_err(project, tmp_path, capsys)
    assert code == 1
    assert err.splitlines() == [
        "error: the program failed: KeyError: 'gpuPools'",
        "hint: re-run with --debug to see the traceback",
    ]
    code = main(
        ["plan", "--project", str(project), "--stack", "test", "--out", str(tmp_path / "o"), "--debug"]
    )
    err = capsys.readouterr().err
    assert code == 1
    assert "Traceback (most recent call last)" in err and "__main__.py" in err
    assert err.strip().endswith("error: the program failed: KeyError: 'gpuPools'")


# ---------------------------------------------------------------------------------------------
# Fit for other repositories
# ---------------------------------------------------------------------------------------------


def test_project_defaults_to_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    shutil.copytree(FIXTURE, project)
    monkeypatch.chdir(project)
    assert main(["plan", "--stack", "test"]) == 0
    assert (project / "build" / "plan" / "test" / "plan.json").exists()
    assert "Plan written to" in capsys.readouterr().out


def test_make_plan_runs_from_the_repository_root() -> None:
    makefile = (REPO / "Makefile").read_text()
    assert "$(BIN)/gpu-platform plan --stack $(STACK)" in makefile
    assert "--project" not in makefile  # so the default, the current directory, is the repository


def test_help_documents_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["plan", "--help"], ["diff", "--help"]):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 0
        out = capsys.readouterr().out
        assert "0  success" in out
        assert "1  a mandatory policy violation (plan --policy), or the program failed" in out
        assert "2  invalid input" in out
        assert "3  diff flagged a change: destructive" in out


@pytest.mark.parametrize(
    "argv",
    [["schema"], ["plan", "--project", str(FIXTURE), "--stack", "test", "--format", "json"]],
    ids=["schema", "plan-json"],
)
def test_closed_pipe_is_quiet(tmp_path: Path, argv: list[str]) -> None:
    """`gpu-platform schema | head -1`: the reader is gone before the output is written."""
    if "plan" in argv:
        argv = [*argv, "--out", str(tmp_path / "plan")]
    r, w = os.pipe()
    os.close(r)  # nobody will read: every write gets EPIPE
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_platform.cli", *argv],
        stdout=w,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO / "components")},
        timeout=120,
        check=False,
    )
    os.close(w)
    assert proc.stderr.decode() == ""
    assert proc.returncode in (0, 141)


def test_a_thousand_queue_invalid_config_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Refused before anything is planned: 1,000 queues in one cohort each list more than 64 flavors (the
    checks are linear, so this is quick; tests/addons/kueue/test_checks.py counts the work)."""
    n = 1000
    pools = [
        {"name": f"a{i}", "gpu": "a100-80gb", "gpusPerNode": 4, "cpusPerNode": 64, "memoryGibPerNode": 512}
        | {"maxNodes": 1}
        for i in range(n)
    ]
    queues = [{"name": f"q{i}", "pools": [f"a{i}"], "cohort": "all"} for i in range(n)]
    extra = tmp_path / "big.yaml"
    config = {"gpu-platform:gpuPools": pools, "gpu-platform:kueue": {"clusterQueues": queues}}
    extra.write_text(yaml.safe_dump({"config": config}))
    code, err = _plan_err(FIXTURE, tmp_path, capsys, "--config-file", str(extra))
    assert code == 2
    assert err.count("Kueue allows 64 flavors per queue") == n
    assert not (tmp_path / "o" / "plan.json").exists()
