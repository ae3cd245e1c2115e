"""The GitHub Actions workflows are valid and do what the guard-rail issue asks of them.

Structure is checked with PyYAML (which reads the key ``on`` as the boolean True); when
``check-jsonschema`` is installed its vendored SchemaStore schemas for workflows and actions are
applied too.
"""

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO
from tests.support.json_schema import schema_errors
from tests.support.workflows import load_workflow, vendored_schema

WORKFLOWS = REPO / ".github" / "workflows"
ACTIONS = REPO / ".github" / "actions"
ENVIRONMENTS = ["dev", "staging", "prod"]
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")
"""Third-party actions by full commit SHA: a tag can be moved, a commit cannot."""
USES_LINE = re.compile(r"^\s*(?:- )?uses: (?P<action>[\w.-]+/[\w./-]+)@(?P<ref>\S+)(?P<rest>.*)$", re.M)


def workflow(name: str) -> dict[str, Any]:
    return load_workflow(WORKFLOWS / name)


def steps_of(doc: dict[str, Any]) -> list[dict[str, Any]]:
    if "runs" in doc:
        return doc["runs"]["steps"]
    return [s for job in doc["jobs"].values() for s in job.get("steps", [])]


def all_files() -> list[Path]:
    return sorted(WORKFLOWS.glob("*.yml")) + sorted(ACTIONS.glob("*/action.yml"))


@pytest.mark.parametrize("path", sorted(WORKFLOWS.glob("*.yml")), ids=lambda p: p.name)
def test_workflow_structure(path: Path) -> None:
    doc = load_workflow(path)
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
    for step in steps_of(load_workflow(path)):
        uses = step.get("uses")
        if uses is None:
            continue
        if uses.startswith("./"):
            assert (REPO / uses / "action.yml").exists(), f"local action {uses} is missing"
        else:
            assert PINNED.match(uses), f"{uses} is not pinned to a full commit SHA"


def _pins() -> list[tuple[str, str, str, str]]:
    """(file, action, sha, tag) of every third-party `uses:` line, the tag read from its comment."""
    out = []
    for path in all_files():
        for m in USES_LINE.finditer(path.read_text()):
            tag = m["rest"].strip().removeprefix("#").strip()
            out.append((str(path.relative_to(REPO)), m["action"], m["ref"], tag))
    return out


def test_every_sha_pin_says_which_release_it_is_and_one_release_has_one_sha() -> None:
    pins = _pins()
    assert len(pins) >= 20
    for where, action, sha, tag in pins:
        assert re.fullmatch(r"v\d+\.\d+\.\d+", tag), f"{where}: {action}@{sha} needs '# vX.Y.Z'"
    by_action: dict[str, set[tuple[str, str]]] = {}
    for _, action, sha, tag in pins:
        by_action.setdefault(action, set()).add((sha, tag))
    assert {a: v for a, v in by_action.items() if len(v) > 1} == {}


def major(uses: str, path: Path) -> int:
    """The major version of a SHA-pinned action, from the tag comment on its line."""
    tag = next(t for _, a, sha, t in _pins() if f"{a}@{sha}" == uses)
    return int(tag.removeprefix("v").split(".")[0])


def test_local_composite_action_sets_up_python_and_policy_venv() -> None:
    action = load_workflow(ACTIONS / "setup" / "action.yml")
    assert action["runs"]["using"] == "composite"
    assert action["inputs"]["python-version"]["default"] == "3.11"
    steps = action["runs"]["steps"]
    setup_python = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python@"))
    assert setup_python["with"]["python-version"] == "${{ inputs.python-version }}"
    runs = "\n".join(s.get("run", "") for s in steps)
    assert "make setup" in runs
    # The pack's requirements (`-e ..[policy]`) are relative to policy/, where Pulumi runs pip too.
    pack = next(s for s in steps if s.get("name") == "Policy pack virtualenv")
    assert pack["working-directory"] == "policy"
    assert "python -m venv venv" in pack["run"] and "-r requirements.txt" in pack["run"]
    policy = (REPO / "policy" / "PulumiPolicy.yaml").read_text()
    assert yaml.safe_load(policy)["runtime"]["options"]["virtualenv"] == "venv"
    assert (REPO / "policy" / "requirements.txt").read_text().splitlines()[-1] == "-e ..[policy]"


def test_ci_runs_tests_and_lint_on_every_pr_and_push() -> None:
    ci = workflow("ci.yml")
    assert "pull_request" in ci["on"] and "push" in ci["on"]
    runs = [s.get("run", "") for s in steps_of(ci)]
    assert "make test" in runs and "make lint" in runs


def test_preview_runs_pulumi_preview_per_environment_with_policy_pack_and_pr_comment() -> None:
    pv = workflow("preview.yml")
    assert list(pv["on"]) == ["pull_request"]
    job = pv["jobs"]["preview"]
    assert job["permissions"]["pull-requests"] == "write"
    assert job["strategy"]["matrix"]["environment"] == ENVIRONMENTS
    steps = job["steps"]
    preview = next(s for s in steps if s.get("uses", "").startswith("pulumi/actions@"))
    assert major(preview["uses"], WORKFLOWS / "preview.yml") >= 6
    # Credentials only inside the stack's GitHub environment, never for a fork's pull request.
    assert job["environment"] == "${{ matrix.environment }}"
    assert job["if"] == "github.event.pull_request.head.repo.full_name == github.repository"
    w = preview["with"]
    assert w["command"] == "preview"
    assert "matrix.environment" in w["stack-name"]
    assert w["comment-on-pr"] is True and w["policyPacks"] == "policy" and w["work-dir"] == "."
    assert preview["if"] == "steps.auth.outputs.configured == 'true'"


def test_pr_always_plans_offline_diffs_against_base_and_comments_once() -> None:
    pv = workflow("preview.yml")
    job = pv["jobs"]["plan"]
    assert job["strategy"]["matrix"]["environment"] == ENVIRONMENTS
    steps = job["steps"]
    base = next(
        s for s in steps if s.get("with", {}).get("ref") == "${{ github.event.pull_request.base.sha }}"
    )
    assert base["uses"].startswith("actions/checkout@") and base["with"]["path"] == ".base"
    head_plan = next(s for s in steps if s.get("id") == "plan")
    assert "if" not in head_plan  # always runs: no cloud needed
    assert 'gpu-platform plan --stack "$STACK"' in head_plan["run"] and "--policy" in head_plan["run"]
    assert 'echo "status=$status" >> "$GITHUB_OUTPUT"' in head_plan["run"]
    base_plan = next(s for s in steps if "--project .base" in s.get("run", ""))
    assert 'PYTHONPATH="$PWD/.base/components"' in base_plan["run"]  # the base branch's own library
    diff = next(s for s in steps if s.get("id") == "diff")
    assert "gpu-platform diff" in diff["run"] and "--format markdown" in diff["run"]
    assert '"build/plan/base/$STACK" "build/plan/head/$STACK"' in diff["run"]
    # Exit 3 (destructive) is reported, not failed.
    assert '[ "$status" != 3 ]' in diff["run"]
    summary = next(s for s in steps if "GITHUB_STEP_SUMMARY" in s.get("run", ""))
    assert "diff.md" in summary["run"] and "tree.txt" in summary["run"]
    assert summary["if"] == "${{ !cancelled() }}"
    fail = steps[-1]
    assert fail["if"] == "steps.plan.outputs.status != '0'" and "exit 1" in fail["run"]
    assert not any("steps.diff.outputs.status" in str(s.get("if", "")) for s in steps)
    comment = pv["jobs"]["comment"]
    assert comment["needs"] == "plan" and comment["permissions"] == {"pull-requests": "write"}
    sticky = next(
        s for s in comment["steps"] if s.get("uses", "").startswith("marocchino/sticky-pull-request-comment@")
    )
    assert sticky["with"] == {"header": "gpu-platform-plan", "path": "comment.md"}
    assembled = next(s for s in comment["steps"] if "comment.md" in s.get("run", ""))
    assert "section.md" in assembled["run"]


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


# ---------------------------------------------------------------------------------------------
# Keyless and cached (issue 14.6)
# ---------------------------------------------------------------------------------------------

LONG_LIVED = [
    "GOOGLE_CREDENTIALS",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "ARM_CLIENT_SECRET",
    "PULUMI_ACCESS_TOKEN",
]
CLOUD_LOGIN = ("google-github-actions/auth@", "aws-actions/configure-aws-credentials@", "azure/login@")


@pytest.mark.parametrize("path", all_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_no_long_lived_cloud_secrets(path: Path) -> None:
    text = path.read_text()
    assert [name for name in LONG_LIVED if name in text] == []
    assert set(re.findall(r"secrets\.(\w+)", text)) <= {"GITHUB_TOKEN"}


def _uses_cloud_login(steps: list[dict[str, Any]]) -> bool:
    return any(
        s.get("uses", "").startswith(CLOUD_LOGIN) or s.get("uses") == "./.github/actions/cloud-auth"
        for s in steps
    )


@pytest.mark.parametrize("path", sorted(WORKFLOWS.glob("*.yml")), ids=lambda p: p.name)
def test_id_token_write_exactly_where_clouds_are_used(path: Path) -> None:
    doc = load_workflow(path)
    top = doc.get("permissions") or {}
    assert "id-token" not in top, f"{path.name}: id-token only on the jobs that exchange it"
    for job_id, job in doc["jobs"].items():
        perms = job.get("permissions", top)
        # PyPI trusted publishing exchanges the OIDC token too (release.yml).
        oidc = _uses_cloud_login(job["steps"]) or any(
            s.get("uses", "").startswith("pypa/gh-action-pypi-publish@") for s in job["steps"]
        )
        if oidc:
            assert perms.get("id-token") == "write", f"{path.name}:{job_id} logs in without id-token: write"
        else:
            assert "id-token" not in perms, f"{path.name}:{job_id} has id-token but exchanges no token"


def test_cloud_auth_action_logs_in_with_oidc_only() -> None:
    action = load_workflow(ACTIONS / "cloud-auth" / "action.yml")
    steps = {s["uses"].split("@")[0]: s for s in action["runs"]["steps"] if "uses" in s}
    assert set(steps) == {
        "google-github-actions/auth",
        "aws-actions/configure-aws-credentials",
        "azure/login",
        "pulumi/auth-actions",
    }
    assert steps["google-github-actions/auth"]["with"] == {
        "workload_identity_provider": "${{ inputs.gcp-workload-identity-provider }}",
        "service_account": "${{ inputs.gcp-service-account }}",
    }
    assert steps["google-github-actions/auth"]["if"].endswith("steps.detect.outputs.cloud == 'gke'")
    assert (
        steps["aws-actions/configure-aws-credentials"]["with"]["role-to-assume"]
        == "${{ inputs.aws-role-arn }}"
    )
    assert steps["aws-actions/configure-aws-credentials"]["if"].endswith("cloud == 'eks'")
    assert steps["azure/login"]["with"] == {
        "client-id": "${{ inputs.azure-client-id }}",
        "tenant-id": "${{ inputs.azure-tenant-id }}",
        "subscription-id": "${{ inputs.azure-subscription-id }}",
    }
    assert steps["azure/login"]["if"].endswith("cloud == 'aks'")
    pulumi_auth = steps["pulumi/auth-actions"]
    assert pulumi_auth["with"]["organization"] == "${{ inputs.pulumi-org }}"
    assert "inputs.pulumi-org != ''" in pulumi_auth["if"]
    assert "ARM_USE_OIDC=true" in "\n".join(s.get("run", "") for s in action["runs"]["steps"])


@pytest.mark.parametrize("name", ["preview.yml", "deploy.yml"])
def test_workflows_pass_repository_variables_to_the_login(name: str) -> None:
    doc = workflow(name)
    logins = [s for s in steps_of(doc) if s.get("uses") == "./.github/actions/cloud-auth"]
    assert logins
    for step in logins:
        w = step["with"]
        assert w["gcp-workload-identity-provider"] == "${{ vars.GCP_WORKLOAD_IDENTITY_PROVIDER }}"
        assert w["gcp-service-account"] == "${{ vars.GCP_SERVICE_ACCOUNT }}"
        assert w["aws-role-arn"] == "${{ vars.AWS_ROLE_ARN }}"
        assert w["azure-client-id"] == "${{ vars.AZURE_CLIENT_ID }}"
        assert w["azure-tenant-id"] == "${{ vars.AZURE_TENANT_ID }}"
        assert w["azure-subscription-id"] == "${{ vars.AZURE_SUBSCRIPTION_ID }}"
        assert w["pulumi-org"] == "${{ vars.PULUMI_ORG }}"


def test_deploy_jobs_log_in_before_pulumi_up() -> None:
    jobs = workflow("deploy.yml")["jobs"]
    for env in ENVIRONMENTS:
        uses = [s.get("uses", s.get("name")) for s in jobs[env]["steps"]]
        up = next(u for u in uses if u.startswith("pulumi/actions@"))
        assert uses.index("./.github/actions/cloud-auth") < uses.index(up)


def test_setup_caches_the_virtualenv_and_pulumi_plugins() -> None:
    steps = load_workflow(ACTIONS / "setup" / "action.yml")["runs"]["steps"]
    caches = {s["with"]["path"]: s for s in steps if s.get("uses", "").startswith("actions/cache@")}
    venv_key = caches[".venv"]["with"]["key"]
    assert "hashFiles('pyproject.toml')" in venv_key and "steps.python.outputs.python-version" in venv_key
    assert "hashFiles('pyproject.toml')" in caches["~/.pulumi/plugins"]["with"]["key"]
    # The pack's venv holds this checkout's library (-e ..[policy]): its dependencies are in pyproject.toml.
    assert "hashFiles('policy/requirements.txt', 'pyproject.toml')" in caches["policy/venv"]["with"]["key"]
    setup_python = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python@"))
    assert setup_python["id"] == "python"
    # Every workflow goes through the cached setup.
    for path in sorted(WORKFLOWS.glob("*.yml")):
        doc = load_workflow(path)
        for job_id, job in doc["jobs"].items():
            if any(s.get("run", "").startswith(("make", ".venv/")) for s in job["steps"]):
                assert any(s.get("uses") == "./.github/actions/setup" for s in job["steps"]), (
                    f"{path.name}:{job_id}"
                )


def _scripts() -> list[tuple[str, str]]:
    out = []
    for path in all_files():
        for i, step in enumerate(steps_of(load_workflow(path))):
            if "run" in step:
                out.append((f"{path.relative_to(REPO)}#{i}", step["run"]))
    return out


@pytest.mark.parametrize(("where", "script"), _scripts(), ids=[w for w, _ in _scripts()])
def test_run_scripts_are_valid_bash(where: str, script: str) -> None:
    text = re.sub(r"\$\{\{.*?\}\}", "X", script)
    proc = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"{where}: {proc.stderr}"


@pytest.mark.parametrize("path", all_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_schemastore_schema(path: Path) -> None:
    import jsonschema

    schema = vendored_schema("github-actions" if path.name == "action.yml" else "github-workflows")
    validator = jsonschema.validators.validator_for(schema)(schema)
    assert schema_errors(validator, load_workflow(path)) == []
