"""``gpu-platform plan`` works for each cloud's GPU-pool example, and what it plans is what the README says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpu_platform.cli import main
from tests.conftest import REPO

EXAMPLES = REPO / "examples"
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}


def plan(example: str, out: Path) -> dict:
    assert main(["plan", "--project", str(EXAMPLES / example), "--stack", "example", "--out", str(out)]) == 0
    return json.loads((out / "plan.json").read_text())


def of_type(doc: dict, type_: str) -> dict[str, dict]:
    return {r["name"]: r for r in doc["resources"] if r["type"] == type_}


def test_gke_example(tmp_path: Path) -> None:
    doc = plan("gke-gpu-pools", tmp_path)
    pools = of_type(doc, "gcp:container/nodePool:NodePool")
    gpu = {n: r for n, r in pools.items() if r["inputs"]["nodeConfig"].get("guestAccelerators")}
    assert set(gpu) == {"l4-spot-nodepool", "l4-gke-shared-nodepool", "a100-mig-nodepool"}
    for r in gpu.values():
        assert r["inputs"]["nodeConfig"]["taints"][0] == GPU_TAINT
        assert r["inputs"]["cluster"] == "gpu-demo"
        assert (
            r["inputs"]["nodeConfig"]["serviceAccount"]
            == "gpu-demo-nodes@my-gpu-project.iam.gserviceaccount.com"
        )
    assert (
        gpu["a100-mig-nodepool"]["inputs"]["nodeConfig"]["guestAccelerators"][0]["gpuPartitionSize"]
        == "1g.5gb"
    )
    shared = gpu["l4-gke-shared-nodepool"]["inputs"]["nodeConfig"]["guestAccelerators"][0]
    assert shared["gpuSharingConfig"] == {"gpuSharingStrategy": "TIME_SHARING", "maxSharedClientsPerGpu": 2}
    assert gpu["l4-spot-nodepool"]["inputs"]["nodeLocations"] == ["us-central1-a", "us-central1-c"]
    assert "taints" not in pools["gpu-demo-system"]["inputs"]["nodeConfig"]


def test_eks_example(tmp_path: Path) -> None:
    doc = plan("eks-gpu-pools", tmp_path)
    groups = of_type(doc, "aws:eks/nodeGroup:NodeGroup")
    assert set(groups) == {"gpu-demo-system", "l4-spot-nodegroup", "h100-efa-nodegroup"}
    l4, h100 = groups["l4-spot-nodegroup"]["inputs"], groups["h100-efa-nodegroup"]["inputs"]
    assert (
        l4["taints"] == [GPU_TAINT]
        and l4["capacityType"] == "SPOT"
        and l4["amiType"] == "AL2023_x86_64_NVIDIA"
    )
    assert h100["taints"] == [GPU_TAINT, {"key": "workload", "value": "training", "effect": "NO_SCHEDULE"}]
    assert h100["subnetIds"] == ["gpu-demo-private-mock-region-1a-id"] and h100["version"] == "1.33"
    lts = of_type(doc, "aws:ec2/launchTemplate:LaunchTemplate")
    assert len(lts["h100-efa-lt"]["inputs"]["networkInterfaces"]) == 32
    for name in ("l4-spot-nodegroup", "h100-efa-nodegroup"):
        assert groups[name]["options"]["ignoreChanges"] == ["scalingConfig.desiredSize"]


def test_aks_example(tmp_path: Path) -> None:
    doc = plan("aks-gpu-pools", tmp_path)
    pools = of_type(doc, "azure-native:containerservice:AgentPool")
    assert set(pools) == {"t4-spot-agentpool", "a100-mig-agentpool"}
    t4, a100 = pools["t4-spot-agentpool"]["inputs"], pools["a100-mig-agentpool"]["inputs"]
    assert t4["nodeTaints"] == [
        "nvidia.com/gpu=present:NoSchedule",
        "kubernetes.azure.com/scalesetpriority=spot:NoSchedule",
    ]
    assert a100["nodeTaints"] == ["nvidia.com/gpu=present:NoSchedule"]
    assert a100["nodeLabels"]["nvidia.com/mig.config"] == "all-balanced"
    assert {t4["gpuProfile"]["driver"], a100["gpuProfile"]["driver"]} == {"None"}
    assert a100["vnetSubnetID"] == "gpu-demo-nodes-id"


@pytest.mark.parametrize("example", ["gke-gpu-pools", "eks-gpu-pools", "aks-gpu-pools"])
def test_example_is_a_standalone_project(example: str) -> None:
    d = EXAMPLES / example
    assert (d / "Pulumi.yaml").read_text().startswith(f"name: {example}\n")
    assert "runtime:" in (d / "Pulumi.yaml").read_text()
    assert "-e ../.." in (d / "requirements.txt").read_text()
    main_py = (d / "__main__.py").read_text()
    assert "from gpu_platform import" in main_py and "gpu_platform.stack" not in main_py
    assert (d / "README.md").exists()
