"""docs/adopting.md: the platform repository it shows plans offline with only the GKE SDK installed."""

import json
import re
import shlex
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from gpu_platform.cli import main
from tests.conftest import REPO
from tests.support.adopting import DOC, adopting_files
from tests.support.kueue import kueue_problems
from tests.support.workflows import parse_workflow, vendored_schema

WORKFLOW = ".github/workflows/gpu-platform.yml"
EXTRAS = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]


RELEASE = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"].split(".dev")[0]
CANONICAL = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["urls"]["Repository"]
COMPOSED = "composed"


def test_the_doc_shows_a_whole_project() -> None:
    assert sorted(adopting_files()) == [
        WORKFLOW,
        "Pulumi.dev.yaml",
        "Pulumi.yaml",
        "__main__.py",
        f"{COMPOSED}/Pulumi.dev.yaml",
        f"{COMPOSED}/Pulumi.yaml",
        f"{COMPOSED}/__main__.py",
        "requirements.txt",
    ]
    # Not the registry's `gpu-platform[gke]==X.Y.Z` (nothing is on PyPI yet): the release's Git tag.
    assert adopting_files()["requirements.txt"].splitlines() == [
        f"gpu-platform[gke] @ git+{CANONICAL}@v{RELEASE}"
    ]


@pytest.mark.parametrize("page", ["README.md", "docs/adopting.md"])
def test_the_install_section_works_without_the_registry(page: str) -> None:
    """The Install sections of README and this page install from the canonical repository's release tag, a clone
    or a wheel built from one (as tests/project/test_adopter_install.py does), never by name from PyPI."""
    from packaging.requirements import Requirement

    section = re.search(r"^## Install\n(.*?)^###? ", (REPO / page).read_text(), re.M | re.S)
    assert section, page
    targets = [t for _, t in re.findall(r"pip install (?:-e )?(['\"])(.+?)\1", section[1])]
    assert not [t for t in targets if re.fullmatch(r"gpu-platform(\[[a-z,]+\])?([=<>~!].*)?", t)], targets
    git = [Requirement(t) for t in targets if "git+" in t]
    assert git and all(r.name == "gpu-platform" and r.url == f"git+{CANONICAL}@v{RELEASE}" for r in git)
    assert any(t.startswith((".[", "./gpu-platform[")) for t in targets), targets  # a clone, editable
    assert "$(ls dist/gpu_platform-*-py3-none-any.whl)[gke]" in targets  # a wheel built from a clone
    for target in targets:
        [extras] = re.findall(r"\[([a-z,]+)\]", target)
        assert set(extras.split(",")) <= set(EXTRAS), target


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
        if "gpu-platform " in cmd and not cmd.strip().startswith(("pip", "git "))
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
    _two_teams_share_the_pool(resources)
    _two_models_share_one_gpu(resources)


def _two_models_share_one_gpu(resources: list[dict[str, Any]]) -> None:
    """The page's two vLLM services on the isolated L4s: each asks for one HAMi unit holding an 8 GiB memory slice
    (enforced per container, so neither can take the other's memory), and HAMi is installed for the pool."""
    services = {
        r["inputs"]["metadata"]["name"]: r["inputs"]
        for r in resources
        if r["type"] == "kubernetes:serving.kserve.io/v1beta1:InferenceService"
    }
    assert sorted(services) == ["qwen-chat", "qwen-coder"]
    for isvc in services.values():
        limits = isvc["spec"]["predictor"]["model"]["resources"]["limits"]
        assert limits["nvidia.com/vgpu"] == 1 and limits["nvidia.com/gpumem"] == 8192, limits
        assert not any(
            "gpu-memory-utilization" in a for a in isvc["spec"]["predictor"]["model"].get("args", [])
        )
    charts = {r["inputs"]["chart"] for r in resources if r["type"] == "kubernetes:helm.sh/v3:Release"}
    assert "hami" in charts


def _two_teams_share_the_pool(resources: list[dict[str, Any]]) -> None:
    """The page's two teams on one pool: both ClusterQueues hold half of l4-spot (4 nodes x 1 L4: 4 x 4 HAMi units,
    4 x 24576 MiB of memory, 4 x 100 compute), in one cohort, and Kueue's CRD and webhook accept them."""
    queues = {
        r["inputs"]["metadata"]["name"]: r["inputs"]
        for r in resources
        if r["type"] == "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"
    }
    assert sorted(queues) == ["product", "research"]
    quotas: list[dict[str, Any]] = []
    for cq in queues.values():
        assert cq["spec"]["cohortName"] == "l4-teams"
        assert kueue_problems(cq) == []
        (group,) = cq["spec"]["resourceGroups"]
        (pool,) = [f for f in group["flavors"] if f["name"] == "l4-spot"]
        quotas.append(
            {r["name"]: r["nominalQuota"] for r in pool["resources"] if r["name"].startswith("nvidia")}
        )
    half = {"nvidia.com/vgpu": 8, "nvidia.com/total-gpumem": 49152, "nvidia.com/total-gpucores": 200}
    assert quotas == [half, half]


def test_the_install_table_names_real_extras() -> None:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    named = set(re.findall(r"`gpu-platform\[([a-z,]+)\]`", DOC))
    assert named and all(set(n.split(",")) <= set(extras) for n in named)
    assert {"gke", "eks", "aks", "all", "policy", "render"} <= named


def test_policy_pack_section_matches_the_command() -> None:
    from gpu_platform.policy.project import MAIN

    assert "gpu-platform policy-pack write policy" in DOC
    assert "from gpu_platform.policy.pack import serve" in MAIN and "serve()" in MAIN


def test_the_composed_program_puts_its_own_namespace_on_the_clusters_provider(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's own program: its Namespace and the GPU Operator are created through ``GkeCluster``'s provider,
    not left to the default one (the ambient kubeconfig's cluster)."""
    for name, body in adopting_files().items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body)
    for sdk in ("pulumi_aws", "pulumi_azure_native"):
        for name in [m for m in sys.modules if m.split(".")[0] == sdk]:
            monkeypatch.delitem(sys.modules, name)
        monkeypatch.setitem(sys.modules, sdk, None)
    out = tmp_path / "plan"
    assert main(["plan", "--project", str(tmp_path / COMPOSED), "--stack", "dev", "--out", str(out)]) == 0
    resources = json.loads((out / "plan.json").read_text())["resources"]
    [provider] = [r for r in resources if r["type"] == "pulumi:providers:kubernetes"]
    assert provider["parent"].endswith("gpu-platform:index:GkeCluster::acme-gpu-dev")
    on_cluster = {r["type"] for r in resources if r["provider"].rsplit("::", 1)[0] == provider["urn"]}
    assert {"kubernetes:core/v1:Namespace", "kubernetes:helm.sh/v3:Release"} <= on_cluster, on_cluster
