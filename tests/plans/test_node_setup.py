"""Nodes the library does not create (``cloud: existing``, OpenShift, Yandex) get their labels and taints by
hand: the plan prints ready ``kubectl`` commands per pool and the stack exports them as ``nodeSetup``, from the
same functions that label and taint the node pools the library does create."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_platform.cli import main
from gpu_platform.offline import run_plan
from tests.conftest import REPO

STACK: dict[str, Any] = {
    "gpu-platform:cloud": "existing",
    "gpu-platform:cluster": {"name": "onprem", "kubeconfig": {"secure": "AAABAKx1c2VjcmV0"}},
    "gpu-platform:gpuPools": [
        {
            "name": "l4-ts",
            "gpu": "l4",
            "gpusPerNode": 1,
            "cpusPerNode": 8,
            "memoryGibPerNode": 30,
            "maxNodes": 2,
            "sharing": {"mode": "time-slicing", "replicas": 4},
        },
        {
            "name": "h100-mig",
            "gpu": "h100-80gb",
            "gpusPerNode": 8,
            "cpusPerNode": 192,
            "memoryGibPerNode": 2000,
            "maxNodes": 1,
            "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb"}},
            "taints": [{"key": "dedicated", "value": "training", "effect": "NoSchedule"}],
        },
    ],
    "gpu-platform:gpuOperator": {"driver": {"owner": "operator"}},
    "gpu-platform:kueue": {"teams": [{"name": "ml", "clusterQueue": "gpu"}]},
}

TIME_SLICED = [
    "kubectl label nodes <l4-ts-node> gpu-platform.io/pool=l4-ts gpu-platform.io/gpu=l4 "
    "gpu-platform.io/sharing=time-slicing nvidia.com/device-plugin.config=l4-ts-time-slicing-4 --overwrite",
    "kubectl taint nodes <l4-ts-node> nvidia.com/gpu=present:NoSchedule --overwrite",
]
MIG = [
    "kubectl label nodes <h100-mig-node> gpu-platform.io/pool=h100-mig gpu-platform.io/gpu=h100-80gb "
    "gpu-platform.io/sharing=mig nvidia.com/mig.config=all-1g.10gb --overwrite",
    "kubectl taint nodes <h100-mig-node> nvidia.com/gpu=present:NoSchedule dedicated=training:NoSchedule "
    "--overwrite",
]


def _project(tmp_path: Path, config: dict[str, Any]) -> Path:
    project = tmp_path / "onprem"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: onprem\nruntime: python\nmain: __main__.py\n")
    (project / "__main__.py").write_text("from gpu_platform.stack import main\n\nmain()\n")
    (project / "Pulumi.test.yaml").write_text(yaml.safe_dump({"config": config}))
    return project


def test_the_stack_exports_each_pool_s_labels_taints_and_commands(tmp_path: Path) -> None:
    plan = run_plan(_project(tmp_path, STACK), "test")
    setup = plan.outputs["nodeSetup"]
    assert list(setup) == ["l4-ts", "h100-mig"]
    assert setup["l4-ts"] == {
        "labels": {
            "gpu-platform.io/pool": "l4-ts",
            "gpu-platform.io/gpu": "l4",
            "gpu-platform.io/sharing": "time-slicing",
            "nvidia.com/device-plugin.config": "l4-ts-time-slicing-4",
        },
        "taints": ["nvidia.com/gpu=present:NoSchedule"],
        "commands": TIME_SLICED,
    }
    assert setup["h100-mig"]["labels"]["nvidia.com/mig.config"] == "all-1g.10gb"
    assert setup["h100-mig"]["taints"] == [
        "nvidia.com/gpu=present:NoSchedule",
        "dedicated=training:NoSchedule",
    ]
    assert setup["h100-mig"]["commands"] == MIG


def test_the_device_plugin_label_names_a_config_the_operator_is_given(tmp_path: Path) -> None:
    """The label the commands put on the nodes picks a config of the ConfigMap the plan creates: one source."""
    plan = run_plan(_project(tmp_path, STACK), "test")
    (configmap,) = [
        r
        for r in plan.by_type("kubernetes:core/v1:ConfigMap")
        if "device-plugin" in r.inputs["metadata"]["name"]
    ]
    label = plan.outputs["nodeSetup"]["l4-ts"]["labels"]["nvidia.com/device-plugin.config"]
    assert label in configmap.inputs["data"]


def test_the_plan_prints_the_commands_after_the_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path, STACK)
    assert main(["plan", "--project", str(project), "--stack", "test", "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    section = out[out.index("Nodes to label and taint") :]
    lines = [line.strip() for line in section.splitlines()]
    assert lines[lines.index("l4-ts:") + 1 : lines.index("l4-ts:") + 3] == TIME_SLICED
    assert lines[lines.index("h100-mig:") + 1 : lines.index("h100-mig:") + 3] == MIG
    assert "pulumi stack output nodeSetup" in section
    assert out.index("Nodes to label and taint") < out.index("Plan written to")


def test_no_section_where_the_library_labels_the_nodes_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plan", "--stack", "dev", "--out", str(tmp_path / "o")]) == 0
    assert "Nodes to label and taint" not in capsys.readouterr().out
    assert "nodeSetup" not in run_plan(REPO, "dev").outputs
