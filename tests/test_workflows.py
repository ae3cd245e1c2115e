"""The GitHub Actions workflows are valid and do what the guard-rail issue asks of them.

Structure is checked with PyYAML (which reads the key ``on`` as the boolean True); when
``check-jsonschema`` is installed its vendored SchemaStore schemas for workflows and actions are
applied too.
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
WORKFLOWS = REPO / ".github" / "workflows"
ACTIONS = REPO / ".github" / "actions"
ENVIRONMENTS = ["dev", "staging", "prod"]
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@(v\d+(\.\d+){0,2}|[0-9a-f]{40})$")


def load(path: Path) -> dict[str, Any]:
    doc = yaml.safe_load(path.read_text())
    if True in doc:  # YAML 1.1 reads `on:` as a boolean key
        doc["on"] = doc.pop(True)
    return doc


def workflow(name: str) -> dict[str, Any]:
    return load(WORKFLOWS / name)


def steps_of(doc: dict[str, Any]) -> list[dict[str, Any]]:
    if "runs" in doc:
        return doc["runs"]["steps"]
    return [s for job in doc["jobs"].values() for s in job.get("steps", [])]


def all_files() -> list[Path]:
    return sorted(WORKFLOWS.glob("*.yml")) + sorted(ACTIONS.glob("*/action.yml"))


@pytest.mark.parametrize("path", sorted(WORKFLOWS.glob("*.yml")), ids=lambda p: p.name)
def test_workflow_structure(path: Path) -> None:
    doc = load(path)
    assert doc.get("name"), "workflow needs a name"
    assert doc["on"], "workflow needs triggers"
    assert doc["jobs"], "workflow needs jobs"
    for job_id, job in doc["jobs"].items():
        assert job.get("runs-on"), f"{job_id}: runs-on"
        assert isinstance(job.get("steps"), list) and job["steps"], f"{job_id}: steps"
        for step in job["steps"]:
            assert ("uses" in step) != ("run" in step), f"{job_id}: each step either uses an action or runs"


@pytest.mark.parametrize("path", all_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_action_is_pinned_to_a_version(path: Path) -> None:
    for step in steps_of(load(path)):
        uses = step.get("uses")
        if uses is None:
            continue
        if uses.startswith("./"):
            assert (REPO / uses / "action.yml").exists(), f"local action {uses} is missing"
        else:
            assert PINNED.match(uses), f"{uses} is not pinned to a version tag or commit"


def test_local_composite_action_sets_up_python_and_policy_venv() -> None:
    action = load(ACTIONS / "setup" / "action.yml")
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    setup_python = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python@"))
    assert setup_python["with"]["python-version"] == "3.11"
    runs = "\n".join(s.get("run", "") for s in steps)
    assert "make setup" in runs
    assert "policy/requirements.txt" in runs and "policy/venv" in runs
    policy = (REPO / "policy" / "PulumiPolicy.yaml").read_text()
    assert yaml.safe_load(policy)["runtime"]["options"]["virtualenv"] == "venv"


def test_ci_runs_tests_and_lint_on_every_pr_and_push() -> None:
    ci = workflow("ci.yml")
    assert "pull_request" in ci["on"] and "push" in ci["on"]
    runs = [s.get("run", "") for s in steps_of(ci)]
    assert "make test" in runs and "make lint" in runs


def test_preview_runs_pulumi_preview_per_environment_with_policy_pack_and_pr_comment() -> None:
    pv = workflow("preview.yml")
    assert list(pv["on"]) == ["pull_request"]
    assert pv["permissions"]["pull-requests"] == "write"
    job = pv["jobs"]["preview"]
    assert job["strategy"]["matrix"]["environment"] == ENVIRONMENTS
    steps = job["steps"]
    preview = next(s for s in steps if s.get("uses", "").startswith("pulumi/actions@"))
    major = int(preview["uses"].split("@v")[1].split(".")[0])
    assert major >= 6
    w = preview["with"]
    assert w["command"] == "preview"
    assert "matrix.environment" in w["stack-name"]
    assert w["comment-on-pr"] is True and w["policyPacks"] == "policy" and w["work-dir"] == "."
    assert preview["if"] == "steps.creds.outputs.configured == 'true'"


def test_preview_falls_back_to_the_offline_plan_and_attaches_it() -> None:
    steps = workflow("preview.yml")["jobs"]["preview"]["steps"]
    offline = next(s for s in steps if "gpu-platform plan" in s.get("run", ""))
    assert "--policy" in offline["run"] and '--stack "$STACK"' in offline["run"]
    assert offline["if"] == "steps.creds.outputs.configured != 'true'"
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["with"]["path"] == "build/plan/${{ matrix.environment }}"
    assert "configured != 'true'" in upload["if"]
    # The detection step must set the output both ways, reading the stack's cloud.
    detect = next(s for s in steps if s.get("id") == "creds")
    assert "configured=true" in detect["run"] and "configured=false" in detect["run"]
    assert "gpu-platform:cloud" in detect["run"]


def test_deploy_runs_up_sequentially_with_a_gated_prod_environment() -> None:
    dp = workflow("deploy.yml")
    assert dp["on"]["push"]["branches"] == ["main"]
    assert dp["concurrency"]["cancel-in-progress"] is False
    jobs = dp["jobs"]
    assert [jobs[e]["needs"] for e in ENVIRONMENTS] == ["verify", "dev", "staging"]
    for env in ENVIRONMENTS:
        environment = jobs[env]["environment"]
        assert (environment["name"] if isinstance(environment, dict) else environment) == env
        up = next(s for s in jobs[env]["steps"] if s.get("uses", "").startswith("pulumi/actions@"))
        assert up["with"]["command"] == "up"
        assert up["with"]["policyPacks"] == "policy"
        assert env in up["with"]["stack-name"]


def _vendored_schema(name: str) -> dict[str, Any]:
    spec = importlib.util.find_spec("check_jsonschema")
    if spec is None or spec.origin is None:
        pytest.skip("check-jsonschema is not installed; structural checks above still ran")
    path = Path(spec.origin).parent / "builtin_schemas" / "vendor" / f"{name}.json"
    if not path.exists():
        pytest.skip(f"check-jsonschema has no vendored {name} schema at {path}")
    return json.loads(path.read_text())


@pytest.mark.parametrize("path", all_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_schemastore_schema(path: Path) -> None:
    import jsonschema

    schema = _vendored_schema("github-actions" if path.name == "action.yml" else "github-workflows")
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(load(path))
    ]
    assert errors == []
