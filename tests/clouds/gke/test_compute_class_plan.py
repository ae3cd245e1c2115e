"""GKE ComputeClasses: GPU pools scaled from zero.

The ComputeClass is validated against the vendored GKE schema, CEL rules included (tests.support.crds); labels
and taints are compared with the managed node pools of the same cloud.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.clouds.gke import compute_class_plan as cc
from gpu_platform.clouds.gke.compute_class import GkeGpuComputeClass
from tests.support.crds import problems_of
from tests.support.plans import plan_gke_compute_class, plan_gke_node_pool
from tests.support.refusals import arg_problems

L4_GKE = {
    "name": "l4",
    "machine_type": "g2-standard-8",
    "max_nodes": 4,
    "spot": True,
    "zones": ["us-central1-a"],
    "sharing": {"mode": "time-slicing", "replicas": 4, "managed_by": "cloud"},
}
A100_GKE = {
    "name": "a100",
    "machine_type": "a2-highgpu-1g",
    "max_nodes": 2,
    "reservation": "a100-reservation",
    "sharing": {"mode": "mig", "managed_by": "cloud", "mig": {"layout": "all-1g.5gb"}},
}


@pytest.mark.parametrize("pool", [L4_GKE, A100_GKE], ids=lambda p: p["name"])
def test_compute_class_validates_against_the_schema(pool: dict[str, Any]) -> None:
    plan = plan_gke_compute_class({"pool": pool})  # type: ignore[typeddict-item]
    assert problems_of(cc.compute_class(plan)) == []


def test_compute_class_content() -> None:
    plan = plan_gke_compute_class({"pool": A100_GKE, "gpu_driver_version": "latest"})  # type: ignore[typeddict-item]
    spec = cc.compute_class(plan)["spec"]
    (rule,) = spec["priorities"]
    assert rule["gpu"] == {
        "type": "nvidia-tesla-a100",
        "count": 1,
        "driverVersion": "latest",
        "gpuSharing": {"gpuPartitionSize": "1g.5gb"},
    }
    assert rule["reservations"] == {"affinity": "Specific", "specific": [{"name": "a100-reservation"}]}
    assert spec["nodePoolAutoCreation"] == {"enabled": True}
    assert spec["whenUnsatisfiable"] == "DoNotScaleUp"
    labels = spec["nodePoolConfig"]["nodeLabels"]
    assert labels["nvidia.com/gpu.deploy.operands"] == "false"
    assert "gke-no-default-nvidia-gpu-device-plugin" not in labels
    managed = plan_gke_node_pool({"pool": A100_GKE, "cluster": "c", "location": "us-central1"})  # type: ignore[typeddict-item]
    assert {k: v for k, v in labels.items() if k.startswith("gpu-platform.io/")} == {
        k: v for k, v in managed.labels.items() if k.startswith("gpu-platform.io/")
    }
    assert spec["nodePoolConfig"]["taints"][0] == {
        "key": "nvidia.com/gpu",
        "value": "present",
        "effect": "NoSchedule",
    }
    assert plan.workload_node_selector == {
        "cloud.google.com/compute-class": "a100",
        "gpu-platform.io/pool": "a100",
        "gpu-platform.io/gpu": "a100-40gb",
    }


def test_compute_class_refusals() -> None:
    pool = {
        "name": "h100",
        "machine_type": "a3-highgpu-8g",
        "max_nodes": 1,
        "min_nodes": 1,
        "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb"}},
    }
    found = arg_problems(
        plan_gke_compute_class, {"pool": pool, "driver": {"owner": "operator", "version": "580.95.05"}}
    )
    assert set(found) == {"pool.min_nodes", "pool.sharing.managed_by", "driver.owner", "driver.version"}
    dra = arg_problems(
        plan_gke_compute_class,
        {"pool": {"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 1, "allocation": "dra"}},
    )
    assert list(dra) == ["pool.allocation"]
    cuda = arg_problems(plan_gke_compute_class, {"pool": {**L4_GKE, "cuda_version": "13.0"}})
    assert "needs driver >= 580.65.06" in cuda["pool.cuda_version"]


def test_compute_class_component(run_component: Any) -> None:
    plan = run_component(lambda: GkeGpuComputeClass("l4", {"pool": L4_GKE}))
    obj = plan.one("kubernetes:cloud.google.com/v1:ComputeClass")
    assert problems_of({k: obj.inputs[k] for k in ("apiVersion", "kind", "metadata", "spec")}) == []
