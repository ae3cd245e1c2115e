"""docs/adopting.md: the platform repository it shows plans offline with only the GKE SDK installed."""

import json
import re
import shlex
import sys
import tomllib
from pathlib import Path

import pytest

from gpu_platform.cli import main
from tests.conftest import REPO
from tests.support.adopting import DOC, adopting_files
from tests.support.workflows import parse_workflow, vendored_schema

WORKFLOW = ".github/workflows/gpu-platform.yml"


def test_the_doc_shows_a_whole_project() -> None:
    assert sorted(adopting_files()) == [
        WORKFLOW,
        "Pulumi.dev.yaml",
        "Pulumi.yaml",
        "__main__.py",
        "requirements.txt",
    ]
    release = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"].split(".dev")[0]
    assert adopting_files()["requirements.txt"].split() == [f"gpu-platform[gke]=={release}"]


def test_the_ci_workflow_calls_the_reusable_one_with_its_real_inputs() -> None:
    caller = parse_workflow(adopting_files()[WORKFLOW])
    reusable = parse_workflow((REPO / ".github" / "workflows" / "gpu-platform-plan.yml").read_text())
    job = caller["jobs"]["plan"]
    path, _, ref = job["uses"].partition("@")
    assert path == "gpu-platform/gpu-platform/.github/workflows/gpu-platform-plan.yml" and ref
    assert set(job["with"]) <= set(reusable["on"]["workflow_call"]["inputs"])
    assert json.loads(job["with"]["environments"]) == ["dev"]  # the stack file this page shows
    assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
    assert list(caller["on"]) == ["pull_request"]


def test_the_ci_workflow_is_a_valid_github_workflow() -> None:
    import jsonschema

    schema = vendored_schema("github-workflows")
    errors = list(
        jsonschema.validators.validator_for(schema)(schema).iter_errors(
            parse_workflow(adopting_files()[WORKFLOW])
        )
    )
    assert [e.message for e in errors] == []


def test_every_command_the_page_runs_exists() -> None:
    """Each `gpu-platform ...` line of the shell blocks parses with the real CLI (no unknown command or flag)."""
    from gpu_platform.cli import build_parser

    blocks = re.findall(r"```sh\n(.*?)```", DOC, re.S)
    commands = [
        cmd.split("#")[0].strip()
        for block in blocks
        for line in block.splitlines()
        for cmd in line.split("&&")
        if "gpu-platform " in cmd and not cmd.strip().startswith("pip")
    ]
    assert len(commands) >= 5
    for command in commands:
        argv = shlex.split(command)
        argv = argv[argv.index(next(a for a in argv if a.endswith("gpu-platform"))) + 1 :]
        try:
            build_parser().parse_args(argv)
        except SystemExit as exc:
            pytest.fail(f"`{command}` does not parse: exit {exc.code}")


def test_the_diff_step_reads_what_the_plan_steps_write() -> None:
    """The page's diff compares the two directories its plan commands write, not one no command makes."""
    outs = re.findall(r"gpu-platform plan [^\n#]*--out (\S+)", DOC)
    diffs = re.findall(r"gpu-platform diff (\S+) (\S+)", DOC)
    assert diffs and all(base in outs and head in outs for base, head in diffs)


def test_the_gke_platform_plans_offline_with_only_the_gke_sdk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "acme"
    project.mkdir()
    for name, body in adopting_files().items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(body)
    for sdk in ("pulumi_aws", "pulumi_azure_native"):
        for name in [m for m in sys.modules if m.split(".")[0] == sdk]:
            monkeypatch.delitem(sys.modules, name)
        monkeypatch.setitem(sys.modules, sdk, None)
    out = tmp_path / "plan"
    assert main(["plan", "--project", str(project), "--stack", "dev", "--out", str(out), "--policy"]) == 0
    assert "mandatory" not in capsys.readouterr().err
    resources = json.loads((out / "plan.json").read_text())["resources"]
    pools = [
        r
        for r in resources
        if r["type"] == "gcp:container/nodePool:NodePool" and r["name"] == "l4-spot-nodepool"
    ]
    assert len(pools) == 1
    taints = pools[0]["inputs"]["nodeConfig"]["taints"]
    assert {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"} in taints
    types = {r["type"] for r in resources}
    assert "kubernetes:helm.sh/v3:Release" in types and not any(
        t.startswith(("aws:", "azure")) for t in types
    )


def test_the_install_table_names_real_extras() -> None:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    named = set(re.findall(r"`gpu-platform\[([a-z,]+)\]`", DOC))
    assert named and all(set(n.split(",")) <= set(extras) for n in named)
    assert {"gke", "eks", "aks", "all", "policy", "render"} <= named


def test_policy_pack_section_matches_the_command() -> None:
    from gpu_platform.policy.project import MAIN

    assert "gpu-platform policy-pack write policy" in DOC
    assert "from gpu_platform.policy.pack import serve" in MAIN and "serve()" in MAIN
