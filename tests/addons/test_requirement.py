"""Requirements between add-ons are declared once (each registry entry's ``requires``) and checked once for the
stack file (``addons.registry.requirement_problems``): the refusal is filed at the needing setting and names the
setting it needs."""

from __future__ import annotations

import yaml

from gpu_platform.addons.registry import ADDONS
from gpu_platform.stack import load_platform
from tests.conftest import REPO
from tests.support.refusals import config_problems
from tests.support.stacks import existing


def test_every_requirement_needs_a_registered_addon_setting() -> None:
    names = {a.name for a in ADDONS}
    declared = [(a.name, r) for a in ADDONS for r in a.requires]
    assert declared, "no add-on declares a requirement"
    for owner, req in declared:
        root = req.needs.split(".")[0]
        assert root in names | {"gpu_pools"}, (owner, req.needs)
        assert req.per_pool or req.setting[0] != root, (
            f"{owner}: {req.setting} needs a setting of its own section"
        )
        if not req.per_pool and root != "gpu_pools":
            assert "{{" + req.needs + "}}" in req.reason({}, None), (owner, req.needs)


def test_dra_needs_the_gpu_operator() -> None:
    found = config_problems(existing(gpuOperator={"enabled": False, "driver": {"owner": "operator"}}))
    assert "gpuOperator.enabled" in found["gpu-platform:dra.enabled"]


def test_operator_sharing_needs_the_gpu_operator() -> None:
    raw = existing(gpuOperator={"enabled": False, "driver": {"owner": "operator"}}, dra={"enabled": False})
    raw["gpuPools"][0].pop("allocation")
    found = config_problems(raw)
    assert set(found) == {"gpu-platform:gpuPools[1].sharing.mode"}
    assert "'time-slicing'" in found["gpu-platform:gpuPools[1].sharing.mode"]
    assert "gpuOperator.enabled" in found["gpu-platform:gpuPools[1].sharing.mode"]


def test_pool_topology_needs_kueue() -> None:
    doc = yaml.safe_load((REPO / "examples/topology-aware-training/Pulumi.aks-nd-h100.yaml").read_text())
    raw = {k.split(":", 1)[1]: v for k, v in doc["config"].items() if k.startswith("gpu-platform:")}
    load_platform(dict(raw))  # valid as the example has it
    raw["kueue"] = {"enabled": False}
    raw.pop("workloads")
    found = config_problems(raw)
    assert set(found) == {"gpu-platform:gpuPools[0].topology"}
    assert "kueue.enabled" in found["gpu-platform:gpuPools[0].topology"]
