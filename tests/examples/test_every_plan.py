"""Every stack in stacks/ and every project in examples/ plans offline; together they cover all clouds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from gpu_platform.cli import main
from tests.conftest import REPO, stack_file_config

STACKS = sorted(p.name.split(".")[1] for p in (REPO / "stacks").glob("Pulumi.*.yaml"))
EXAMPLES = sorted(
    p.parent
    for p in (REPO / "examples").glob("*/Pulumi.yaml")
    # Python programs; the YAML and TypeScript ones (examples/yaml-gpu-pools, examples/typescript-gke-gpu-pools)
    # are checked against the package schema by tests/examples/test_yaml_gpu_pools.py and
    # tests/examples/test_typescript_gke_gpu_pools.py.
    if (p.parent / "__main__.py").is_file()
)
GPU_POOL_TYPES = {
    "gcp:container/nodePool:NodePool": lambda i: [
        (t["key"], t["value"], t["effect"]) for t in i["nodeConfig"].get("taints", [])
    ],
    "aws:eks/nodeGroup:NodeGroup": lambda i: [
        (t["key"], t.get("value"), t["effect"]) for t in i.get("taints", [])
    ],
    "azure-native:containerservice:AgentPool": lambda i: [
        (t.split("=")[0], t.split("=")[1].split(":")[0], t.split(":")[1]) for t in i.get("nodeTaints", [])
    ],
}
GPU_TAINTS = {("nvidia.com/gpu", "present", "NO_SCHEDULE"), ("nvidia.com/gpu", "present", "NoSchedule")}


def _example_stack(project: Path) -> str:
    return next(project.glob("Pulumi.*.yaml")).name.split(".")[1]


def _is_gpu_pool(r: dict) -> bool:
    i = r["inputs"]
    if r["type"].startswith("gcp:"):
        return bool(i["nodeConfig"].get("guestAccelerators"))
    if r["type"].startswith("aws:"):
        return "NVIDIA" in i.get("amiType", "")
    return i.get("mode") == "User"


def _plan(tmp_path: Path, project: Path, stack: str) -> dict:
    out = tmp_path / "plan"
    assert main(["plan", "--project", str(project), "--stack", stack, "--out", str(out), "--policy"]) == 0
    return json.loads((out / "plan.json").read_text())


@pytest.mark.parametrize("stack", STACKS)
def test_stack_plans_with_tainted_gpu_pools(tmp_path: Path, stack: str) -> None:
    doc = _plan(tmp_path, REPO, stack)
    pools = [r for r in doc["resources"] if r["type"] in GPU_POOL_TYPES and _is_gpu_pool(r)]
    assert pools, stack
    for r in pools:
        assert GPU_TAINTS & set(GPU_POOL_TYPES[r["type"]](r["inputs"])), r["name"]


@pytest.mark.parametrize("project", EXAMPLES, ids=lambda p: p.name)
def test_example_plans(tmp_path: Path, project: Path) -> None:
    doc = _plan(tmp_path, project, _example_stack(project))
    assert doc["resources"]


def test_stacks_and_examples_cover_every_cloud() -> None:
    clouds = set()
    for stack in STACKS:
        clouds.add(stack_file_config(stack)["gpu-platform:cloud"])
    for project in EXAMPLES:
        text = (project / "__main__.py").read_text()
        cfg = yaml.safe_load(next(project.glob("Pulumi.*.yaml")).read_text()).get("config", {})
        if "gpu-platform:cloud" in cfg:
            clouds.add(cfg["gpu-platform:cloud"])
        for cloud, marker in (
            ("gke", "GkeGpuNodePool"),
            ("eks", "EksGpuNodePool"),
            ("aks", "AksGpuNodePool"),
        ):
            if marker in text:
                clouds.add(cloud)
    assert clouds >= {"gke", "eks", "aks", "existing"}
