"""docs/adopting.md: the platform repository it shows plans offline with only the GKE SDK installed."""

import json
import re
import sys
import tomllib
from pathlib import Path

import pytest

from gpu_platform.cli import main
from tests.conftest import REPO

DOC = (REPO / "docs" / "adopting.md").read_text()
FILE_BLOCK = re.compile(r"<!-- file: (?P<name>[^ ]+) -->\n```[a-z]*\n(?P<body>.*?)```", re.S)


def files() -> dict[str, str]:
    return {m["name"]: m["body"] for m in FILE_BLOCK.finditer(DOC)}


def test_the_doc_shows_a_whole_project() -> None:
    assert sorted(files()) == ["Pulumi.dev.yaml", "Pulumi.yaml", "__main__.py", "requirements.txt"]
    assert files()["requirements.txt"].split() == ["gpu-platform[gke]"]


def test_the_gke_platform_plans_offline_with_only_the_gke_sdk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "acme"
    project.mkdir()
    for name, body in files().items():
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
