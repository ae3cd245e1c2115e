"""``gpu-platform plan``'s text beyond the resource tree: what the stack needs but does not create
(``render_requires``, from the serving add-on's ``servingRequires`` output)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_platform.addons.serving.plan import REQUIRES_OUTPUT
from gpu_platform.cli import main
from gpu_platform.offline import render_requires, run_plan
from tests.addons.serving.stacks import serving_stack
from tests.conftest import REPO


def _attached_gke() -> dict[str, Any]:
    stack = serving_stack("gke")
    stack["gpu-platform:cluster"] = {
        **stack["gpu-platform:cluster"],
        "create": False,
        "kubeconfig": {"secure": "v1:placeholder"},
    }
    stack["gpu-platform:observability"] = {"backend": "gke-managed-prometheus"}
    return stack


def test_an_attached_cluster_lists_what_serving_needs_of_it_once_each() -> None:
    plan = run_plan(REPO, "test", config_override=_attached_gke())
    requires = plan.outputs[REQUIRES_OUTPUT]
    # The managed Gateway's Gateway API and proxy-only subnet, and KEDA's read grant: the stack creates none of
    # them on a cluster made elsewhere.
    assert any("CHANNEL_STANDARD" in r for r in requires)
    assert any("REGIONAL_MANAGED_PROXY" in r for r in requires)
    assert any("gcloud iam service-accounts create" in r and "roles/monitoring.viewer" in r for r in requires)
    assert len(requires) == len(set(requires))
    text = render_requires(plan)
    assert text is not None
    head, *items = text.splitlines()
    assert head.startswith("Needed beyond the stack") and REQUIRES_OUTPUT in head
    assert items == [f"  - {r}" for r in requires]


def test_a_cluster_the_stack_creates_needs_nothing_more() -> None:
    plan = run_plan(REPO, "test", config_override=serving_stack("gke"))
    assert REQUIRES_OUTPUT not in plan.outputs
    assert render_requires(plan) is None


def test_plan_prints_the_section_after_the_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: serving\nruntime: python\n")
    (project / "__main__.py").write_text((REPO / "stacks" / "__main__.py").read_text())
    (project / "Pulumi.attached.yaml").write_text(yaml.safe_dump({"config": _attached_gke()}))
    assert (
        main(["plan", "--project", str(project), "--stack", "attached", "--out", str(tmp_path / "out")]) == 0
    )
    out = capsys.readouterr().out
    tree, section = out.split("\nNeeded beyond the stack", 1)
    assert "Resources:" in tree
    assert "CHANNEL_STANDARD" in section and section.rstrip().endswith(f"{tmp_path / 'out' / 'plan.json'}")
