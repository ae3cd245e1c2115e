"""`gpu-platform plan`: byte-identical output, secrets kept secret, exit 2 on bad config, schema."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gpu_platform.cli import main
from gpu_platform.plan.runner import SECURE_PLACEHOLDER
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
    assert "gpu-platform:gpuPools[0].maxNodes: Input should be greater than or equal to 0" in err
    assert not (out / "plan.json").exists()


def test_schema_command_prints_the_config_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert set(schema["properties"]) >= {"cloud", "cluster", "gpuPools", "gpuOperator", "kueue", "kserve"}
    pool = schema["$defs"]["GpuPoolConfig"]
    assert pool["additionalProperties"] is False
    assert "machineType" in pool["properties"] and "maxNodes" in pool["required"]


def test_import_loads_no_cloud_sdk() -> None:
    code = (
        "import sys, gpu_platform, gpu_platform.program, gpu_platform.config;"
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
