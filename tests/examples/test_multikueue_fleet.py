"""examples/multikueue-fleet plans offline: the manager's queues hold the workers' quotas and dispatch through
MultiKueue; a fleet the checks refuse exits 2; removing a worker is flagged by the diff gate."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from gpu_platform.cli import main
from gpu_platform.offline import Plan, plan_document, run_plan
from gpu_platform.offline.diff import diff_plans
from tests.conftest import REPO
from tests.support import crds

EXAMPLE = REPO / "examples" / "multikueue-fleet"
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"


@pytest.fixture(scope="module")
def plan() -> Plan:
    return run_plan(EXAMPLE, "example")


def _gpus(cq: Any) -> dict[str, Any]:
    (group,) = cq.inputs["spec"]["resourceGroups"]
    return {
        f["name"]: {r["name"]: r["nominalQuota"] for r in f["resources"]}["nvidia.com/gpu"]
        for f in group["flavors"]
    }


def test_the_manager_queues_hold_the_workers_gpus(plan: Plan) -> None:
    assert _gpus(plan.one(KUEUE + "ClusterQueue", "fleet-manager-kueue-cq-training")) == {"h100": 16}
    assert _gpus(plan.one(KUEUE + "ClusterQueue", "fleet-manager-kueue-cq-inference")) == {"l4": 16}
    assert _gpus(plan.one(KUEUE + "ClusterQueue", "fleet-gke-h100-kueue-cq-training")) == {"h100": 16}
    configs = {
        r.inputs["metadata"]["name"]: r.inputs["spec"] for r in plan.by_type(KUEUE + "MultiKueueConfig")
    }
    assert configs == {
        "training-multikueue": {"clusters": ["gke-h100"]},
        "inference-multikueue": {"clusters": ["eks-l4"]},
    }


def test_every_kueue_object_is_valid_against_its_crd(plan: Plan) -> None:
    found = [r for r in plan.resources if r.type.startswith(KUEUE)]
    assert len(found) > 10
    for r in found:
        obj = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": r.type.split(":")[-1], **r.inputs}
        assert crds.problems_of(obj) == [], r.name


def test_a_refused_fleet_exits_2_naming_the_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "fleet"
    shutil.copytree(EXAMPLE, project)
    program = project / "__main__.py"
    program.write_text(program.read_text().replace('"largest_gang_gpus": 16', '"largest_gang_gpus": 32'))
    assert (
        main(["plan", "--project", str(project), "--stack", "example", "--out", str(tmp_path / "out")]) == 2
    )
    err = capsys.readouterr().err
    assert "cluster_queues[0].largest_gang_gpus: 32 GPUs, but worker 'gke-h100'" in err
    assert "Traceback" not in err


def test_removing_a_worker_is_flagged(tmp_path: Path, plan: Plan) -> None:
    project = tmp_path / "fleet"
    shutil.copytree(EXAMPLE, project)
    program = project / "__main__.py"
    text = program.read_text()
    start = text.index('            {\n                "name": "eks-l4"')
    end = text.index('        ],\n        "cluster_queues"')
    text = text[:start] + text[end:]
    text = text.replace(
        '{"name": "inference", "pools": ["l4"], "workers": ["eks-l4"]}',
        '{"name": "inference", "pools": ["h100"]}',
    )
    # Inference moves to the H100s, which training then shares: its largest job halves too.
    text = text.replace('"largest_gang_gpus": 16', '"largest_gang_gpus": 8')
    program.write_text(text)
    diff = diff_plans(plan_document(plan), plan_document(run_plan(project, "example")))
    (change,) = [c for c in diff.changes if c.type == KUEUE + "MultiKueueCluster"]
    assert change.name == "fleet-manager-mkc-eks-l4" and change.action == "removed" and change.flagged
    assert any("jobs the manager dispatched there are lost" in d for d in change.disruptions)


def test_each_worker_runs_one_gpu_operator_through_its_own_cluster(plan: Plan) -> None:
    operators = [
        r for r in plan.by_type("kubernetes:helm.sh/v3:Release") if r.inputs["chart"] == "gpu-operator"
    ]
    providers = sorted(str(r.provider).split("::")[-2] for r in operators)
    assert len(operators) == 2 and len(set(providers)) == 2, providers
