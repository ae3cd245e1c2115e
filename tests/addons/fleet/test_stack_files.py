"""A fleet from stack files (examples/multikueue-fleet/stack-files): each worker stack exports what the manager
needs (``fleetWorker``, ``kubeconfig``), and the manager stack reads them through stack references. Offline, a
stack reference reads nothing: these tests plan the worker stacks, then answer the manager's stack references
with what those plans exported (Pulumi mocks), so the manager is planned from its workers' real exports."""

from __future__ import annotations

import copy
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from pulumi.runtime import mocks as pulumi_mocks

from gpu_platform.cli import main
from gpu_platform.offline import Plan, plan_document, run_plan
from gpu_platform.offline.diff import diff_plans
from gpu_platform.offline.recorder import PlanMocks
from tests.addons.fleet.fleet_args import KUBECONFIG
from tests.conftest import REPO
from tests.support import crds
from tests.support.kueue import webhook_problems

PROJECT = REPO / "examples" / "multikueue-fleet" / "stack-files"
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"
WORKERS = {"acme/gpu-fleet/gke-h100": "gke-h100", "acme/gpu-fleet/eks-l4": "eks-l4"}


def _config(stack: str) -> dict[str, Any]:
    return dict(yaml.safe_load((PROJECT / f"Pulumi.{stack}.yaml").read_text())["config"])


@pytest.fixture(scope="module")
def exports() -> dict[str, dict[str, Any]]:
    """Each worker stack's outputs as its own plan exported them (the kubeconfig: a test one, a secret)."""
    out = {}
    for ref, stack in WORKERS.items():
        outputs = run_plan(PROJECT, stack).outputs
        out[ref] = {"fleetWorker": outputs["fleetWorker"], "kubeconfig": KUBECONFIG}
    return out


class _StackOutputs:
    """Patches the plan's mocks: a ``StackReference`` to a known stack reads the outputs given for it."""

    def __init__(self, outputs: dict[str, dict[str, Any]]):
        self.outputs = outputs
        self.read: list[str] = []

    def __call__(self, mocks: PlanMocks, args: pulumi_mocks.MockResourceArgs) -> tuple[str, dict]:
        fake_id, state = ORIGINAL(mocks, args)
        if args.typ == "pulumi:pulumi:StackReference" and args.inputs["name"] in self.outputs:
            self.read.append(args.inputs["name"])
            state.update(outputs=self.outputs[args.inputs["name"]], secretOutputNames=["kubeconfig"])
        return fake_id, state


ORIGINAL = PlanMocks.new_resource


@pytest.fixture
def stack_outputs(
    monkeypatch: pytest.MonkeyPatch, exports: dict[str, dict[str, Any]]
) -> Iterator[_StackOutputs]:
    patched = _StackOutputs(copy.deepcopy(exports))
    monkeypatch.setattr(PlanMocks, "new_resource", lambda mocks, args: patched(mocks, args))
    yield patched


def _manager(config: dict[str, Any] | None = None) -> Plan:
    return run_plan(PROJECT, "manager", config)


def _quotas(r: Any) -> dict[str, dict[str, dict[str, Any]]]:
    (group,) = r.inputs["spec"]["resourceGroups"]
    return {
        f["name"]: {x["name"]: {k: v for k, v in x.items() if k != "name"} for x in f["resources"]}
        for f in group["flavors"]
    }


def test_a_worker_stack_exports_what_the_manager_reads(exports: dict[str, dict[str, Any]]) -> None:
    gke = exports["acme/gpu-fleet/gke-h100"]["fleetWorker"]
    assert gke == {
        "cloud": "gke",
        "pools": [{"name": "h100", "machineType": "a3-highgpu-8g", "minNodes": 0, "maxNodes": 2}],
        "gpuTypes": {"h100": "h100-80gb"},
        "flavors": ["h100"],
        "controllers": ["jobset"],
        "systemPool": {"machineType": "e2-standard-4", "minNodes": 1, "maxNodes": 3},
    }
    eks = exports["acme/gpu-fleet/eks-l4"]["fleetWorker"]
    assert eks["cloud"] == "eks" and eks["gpuTypes"] == {"l4": "l4"} and eks["controllers"] == []
    assert "kueueVersion" not in eks  # its Kueue is off: the fleet installs it


def test_the_manager_stack_plans_the_fleet_from_its_workers_outputs(stack_outputs: _StackOutputs) -> None:
    plan = _manager()
    assert sorted(stack_outputs.read) == sorted(WORKERS)
    releases = {r.name for r in plan.by_type("kubernetes:helm.sh/v3:Release")}
    assert releases == {"fleet-manager-kueue-helm", "fleet-gke-h100-kueue-helm", "fleet-eks-l4-kueue-helm"}
    # 2 x a3-highgpu-8g: 16 H100, training's 75 % is 12 and it lends at most half of that.
    training = _quotas(plan.one(KUEUE + "ClusterQueue", "fleet-manager-kueue-cq-training"))
    assert training["h100"]["nvidia.com/gpu"] == {"nominalQuota": 12, "lendingLimit": 6}
    research = _quotas(plan.one(KUEUE + "ClusterQueue", "fleet-manager-kueue-cq-research"))
    assert research["h100"]["nvidia.com/gpu"] == {"nominalQuota": 4, "borrowingLimit": 8}
    worker = _quotas(plan.one(KUEUE + "ClusterQueue", "fleet-gke-h100-kueue-cq-research"))
    assert worker["h100"]["nvidia.com/gpu"] == research["h100"]["nvidia.com/gpu"]
    inference = _quotas(plan.one(KUEUE + "ClusterQueue", "fleet-manager-kueue-cq-inference"))
    assert list(inference) == ["system-cpu", "l4"] and inference["l4"]["nvidia.com/gpu"] == {
        "nominalQuota": 16
    }
    # The worker's system pool is its system flavor (CPU-only jobs), as on a platform's own Kueue: 2-4 m6i.large.
    eks = _quotas(plan.one(KUEUE + "ClusterQueue", "fleet-eks-l4-kueue-cq-inference"))
    assert eks["system-cpu"] == inference["system-cpu"]
    assert eks["system-cpu"]["nvidia.com/gpu"] == {"nominalQuota": 0}
    # The manager reaches each worker with the kubeconfig output (a secret), never written in clear.
    secret = plan.one("kubernetes:core/v1:Secret", "fleet-manager-gke-h100-kubeconfig")
    assert secret.inputs["stringData"] == "[secret]"


def test_every_kueue_object_of_the_manager_stack_is_valid(stack_outputs: _StackOutputs) -> None:
    found = [r for r in _manager().resources if r.type.startswith(KUEUE)]
    assert {r.type.split(":")[-1] for r in found} >= {"ClusterQueue", "MultiKueueCluster", "MultiKueueConfig"}
    for r in found:
        obj = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": r.type.split(":")[-1], **r.inputs}
        assert crds.problems_of(obj) == [], r.name
        if obj["kind"] == "ClusterQueue":
            assert list(webhook_problems(obj)) == [], r.name


def test_a_worker_stack_running_its_own_kueue_is_refused(
    stack_outputs: _StackOutputs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stack_outputs.outputs["acme/gpu-fleet/eks-l4"]["fleetWorker"]["kueueVersion"] = "v0.19.2"
    code = main(["plan", "--project", str(PROJECT), "--stack", "manager", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "gpu-platform:fleet.workers[1]: stack 'acme/gpu-fleet/eks-l4' installs Kueue itself" in err
    assert "Traceback" not in err


def test_the_fleets_checks_name_the_manager_stacks_keys(
    stack_outputs: _StackOutputs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "p"
    shutil.copytree(PROJECT, project)
    path = project / "Pulumi.manager.yaml"
    path.write_text(path.read_text().replace("largestGangGpus: 8", "largestGangGpus: 16"))
    assert main(["plan", "--project", str(project), "--stack", "manager", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "gpu-platform:fleet.clusterQueues[0].largestGangGpus: 16 GPUs, but worker 'gke-h100'" in err


def test_an_offline_plan_without_the_workers_outputs_says_what_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plan", "--project", str(PROJECT), "--stack", "manager", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert (
        "gpu-platform:fleet.workers[0]: stack 'acme/gpu-fleet/gke-h100' exports no fleetWorker output" in err
    )


def test_a_quota_change_in_a_worker_stack_reaches_the_manager(
    stack_outputs: _StackOutputs, exports: dict[str, dict[str, Any]]
) -> None:
    before = _manager()
    config = _config("gke-h100")
    config["gpu-platform:gpuPools"][0]["maxNodes"] = 4
    grown = run_plan(PROJECT, "gke-h100", config).outputs["fleetWorker"]
    stack_outputs.outputs["acme/gpu-fleet/gke-h100"]["fleetWorker"] = grown
    after = _manager()

    def gpus(plan: Plan) -> Any:
        return _quotas(plan.one(KUEUE + "ClusterQueue", "fleet-manager-kueue-cq-training"))["h100"][
            "nvidia.com/gpu"
        ]

    assert gpus(before) == {"nominalQuota": 12, "lendingLimit": 6}
    assert gpus(after) == {"nominalQuota": 24, "lendingLimit": 12}


def test_removing_a_worker_stack_is_flagged(stack_outputs: _StackOutputs) -> None:
    config = _config("manager")
    fleet = config["gpu-platform:fleet"]
    fleet["workers"] = fleet["workers"][:1]
    fleet["clusterQueues"] = [q for q in fleet["clusterQueues"] if q["name"] != "inference"]
    fleet["teams"] = [t for t in fleet["teams"] if t["clusterQueue"] != "inference"]
    diff = diff_plans(plan_document(_manager()), plan_document(_manager(config)))
    (change,) = [c for c in diff.changes if c.type == KUEUE + "MultiKueueCluster"]
    assert change.name == "fleet-manager-mkc-eks-l4" and change.action == "removed" and change.flagged


def test_the_manager_kubeconfig_may_come_from_another_stack(stack_outputs: _StackOutputs) -> None:
    config = _config("manager")
    manager = config["gpu-platform:fleet"]["manager"]
    del manager["kubeconfig"]
    manager["kubeconfigStackReference"] = {"stack": "acme/infra/manager", "output": "kubeconfig"}
    stack_outputs.outputs["acme/infra/manager"] = {"kubeconfig": KUBECONFIG}
    plan = _manager(config)
    assert "acme/infra/manager" in stack_outputs.read
    provider = plan.one("pulumi:providers:kubernetes", "fleet-manager")
    assert provider.inputs["kubeconfig"] == "[secret]"
    assert {r.name for r in plan.by_type(KUEUE + "MultiKueueCluster")} == {
        "fleet-manager-mkc-gke-h100",
        "fleet-manager-mkc-eks-l4",
    }
