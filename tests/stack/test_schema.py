"""`gpu-platform schema`: a JSON Schema of a whole Pulumi.<stack>.yaml that real stack files pass and bad
ones fail, with defaults shown as values."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from gpu_platform.addons.kueue.settings import DEFAULT_COLD_WAIT_TIMEOUT, DEFAULT_WAIT_TIMEOUT
from gpu_platform.cli import main
from gpu_platform.stack.schema import json_schema, stack_file_schema, with_values
from tests.conftest import REPO
from tests.support.adopting import DOC
from tests.support.json_schema import schema_errors

STACK_FILES = sorted(
    [*REPO.glob("stacks/Pulumi.*.yaml"), *REPO.glob("examples/*/Pulumi.*.yaml")],
    key=lambda p: str(p),
)


def _validator() -> jsonschema.Draft202012Validator:
    schema = stack_file_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


VALIDATOR = _validator()


def problems(doc: Any) -> list[str]:
    return sorted(schema_errors(VALIDATOR, doc))


def test_the_command_prints_the_stack_file_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(json.dumps(stack_file_schema()))
    assert printed["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    config = printed["properties"]["config"]
    assert {"gpu-platform:cloud", "gpu-platform:cluster", "gpu-platform:gpuPools"} <= set(
        config["properties"]
    )


@pytest.mark.parametrize("path", STACK_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_stack_file_of_the_repository_passes(path: Path) -> None:
    assert problems(yaml.safe_load(path.read_text())) == []


def test_the_stacks_use_the_namespace_the_schema_checks() -> None:
    """Not vacuous: the library's stacks and several examples do set gpu-platform: keys."""
    with_ours = [
        p
        for p in STACK_FILES
        if any(k.startswith("gpu-platform:") for k in yaml.safe_load(p.read_text()).get("config", {}))
    ]
    assert len(with_ours) >= 5


def test_the_adopting_page_stack_file_passes() -> None:
    body = re.search(r"<!-- file: Pulumi.dev.yaml -->\n```yaml\n(.*?)```", DOC, re.S)
    assert body is not None
    doc = yaml.safe_load(body[1])
    assert "gcp:project" in doc["config"]  # another namespace beside gpu-platform:
    assert problems(doc) == []


def _dev() -> dict[str, Any]:
    return yaml.safe_load((REPO / "stacks" / "Pulumi.dev.yaml").read_text())


def test_an_unknown_gpu_platform_key_fails_and_other_namespaces_pass() -> None:
    doc = _dev()
    doc["config"]["gcp:zone"] = "europe-west4-a"
    doc["config"]["acme:owner"] = {"team": "ml"}
    assert problems(doc) == []
    doc["config"]["gpu-platform:gpuPool"] = []
    [problem] = problems(doc)
    assert problem.startswith("config: 'gpu-platform:gpuPool' is not one of ['gpu-platform:cloud', ")
    assert "'gpu-platform:gpuPools'" in problem


def test_a_bad_value_fails_at_its_path() -> None:
    doc = _dev()
    doc["config"]["gpu-platform:gpuPools"][0]["maxNodes"] = "four"
    doc["config"]["gpu-platform:gpuPools"][0]["machineTyp"] = "g2-standard-8"
    found = problems(doc)
    assert any(p.startswith("config/gpu-platform:gpuPools/0/maxNodes: 'four'") for p in found), found
    assert any("machineTyp" in p and "Additional properties" in p for p in found), found


def test_required_settings_unless_an_environment_provides_them() -> None:
    doc = _dev()
    del doc["config"]["gpu-platform:gpuPools"]
    assert problems(doc) == ["config: 'gpu-platform:gpuPools' is a required property"]
    assert problems({**copy.deepcopy(doc), "environment": ["acme/gpu-dev"]}) == []
    # A file with no gpu-platform: key at all (a program of its own) is not the stack program's.
    assert problems({"config": {"gke-gpu-pools:clusterName": "x"}}) == []


def test_a_secret_may_stand_for_any_string_setting() -> None:
    doc = _dev()
    doc["config"]["gpu-platform:cluster"]["name"] = {"secure": "v1:abc"}
    assert problems(doc) == []
    doc["config"]["gpu-platform:cluster"]["name"] = {"secure": 3}
    assert problems(doc) != []


def test_defaults_are_shown_as_values_not_constant_names() -> None:
    text = json.dumps(stack_file_schema())
    assert "DEFAULT_" not in text
    timeout = stack_file_schema()["$defs"]["WaitForPodsReadyArgs"]["properties"]["timeout"]
    assert f"``{DEFAULT_COLD_WAIT_TIMEOUT}`` (30m)" in timeout["description"]
    assert f"``{DEFAULT_WAIT_TIMEOUT}`` (10m)" in timeout["description"]
    assert with_values("default ``DEFAULT_BLOCK_ADMISSION``") == "default ``false``"
    assert with_values("unknown ``NOT_A_CONSTANT_ANYWHERE``") == "unknown ``NOT_A_CONSTANT_ANYWHERE``"


def test_the_system_pool_default_names_each_clouds_machine() -> None:
    from gpu_platform.cloud_facts import PROFILES

    doc = stack_file_schema()["$defs"]["SystemPoolArgs"]["properties"]["machineType"]["description"]
    for profile in PROFILES.values():
        if profile.system_machine_type is not None:
            assert f"``{profile.system_machine_type}``" in doc, profile.name


def test_the_keys_schema_is_the_config_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "--keys"]) == 0
    keys = json.loads(capsys.readouterr().out)
    assert keys == json.loads(json.dumps(json_schema()))
    assert problems({"config": {f"gpu-platform:{k}": v for k, v in _bare_dev().items()}}) == []
    assert jsonschema.Draft202012Validator(keys).is_valid(_bare_dev())


def _bare_dev() -> dict[str, Any]:
    return {k.split(":", 1)[1]: v for k, v in _dev()["config"].items() if k.startswith("gpu-platform:")}


def test_check_jsonschema_validates_a_stack_file_with_it(tmp_path: Path) -> None:
    """What CI or pre-commit runs: `gpu-platform schema > f; check-jsonschema --schemafile f Pulumi.*.yaml`."""
    schema = tmp_path / "stack.schema.json"
    schema.write_text(json.dumps(stack_file_schema()))
    bad = tmp_path / "Pulumi.bad.yaml"
    bad.write_text("config:\n  gpu-platform:cloud: gke\n  gpu-platform:clustr: {}\n")
    cmd = [sys.executable, "-m", "check_jsonschema", "--schemafile", str(schema)]
    ok = subprocess.run([*cmd, str(REPO / "stacks" / "Pulumi.dev.yaml")], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    failed = subprocess.run([*cmd, str(bad)], capture_output=True, text=True)
    assert failed.returncode == 1 and "gpu-platform:clustr" in failed.stdout + failed.stderr
