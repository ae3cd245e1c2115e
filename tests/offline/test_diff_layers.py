"""The diff gate knows every layer: each add-on and cloud declares what costs running work or data
(``gpu_platform.diff_rule``), and a day-2 edit of that layer, planned before and after, is flagged (exit 3) with
its old -> new values in full. Planned twice unchanged, every stack and example exits 0."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpu_platform import GpuDockerHost
from gpu_platform.cli import main
from gpu_platform.offline import run_plan, write_plan
from gpu_platform.offline.diff import diff_plans, render
from tests.conftest import REPO
from tests.support.docker_host import SERVICES, args
from tests.support.plan_pairs import diff_edit, diff_programs, edited, named, plan_of, stack_file

SLURM = REPO / "examples" / "slurm-h100-pyxis"
TOPOLOGY = REPO / "examples" / "topology-aware-training"
OPENSHIFT = REPO / "examples" / "openshift-olm"


# --- observability ------------------------------------------------------------------------------------------


def test_removing_the_observability_stack_deletes_its_history() -> None:
    d = diff_edit(lambda raw: raw.update(observability={"enabled": False}))
    stack = named(d, "observability-stack")
    assert stack.action == "removed" and stack.destructive and stack.flagged
    assert "deletes data" in stack.effects and any("metrics history" in x for x in stack.lost)


def test_switching_the_metrics_backend_deletes_the_in_cluster_history() -> None:
    d = diff_edit(lambda raw: raw.update(observability={"backend": "gke-managed-prometheus"}))
    assert named(d, "observability-stack").destructive


def test_turning_grafana_off_deletes_its_dashboards_but_turning_it_on_does_not() -> None:
    d = diff_edit(lambda raw: raw.update(observability={"grafana": False}))
    grafana = named(d, "observability-stack")
    assert grafana.action == "changed" and grafana.destructive
    assert "values.grafana.enabled: true -> false" in grafana.lost[0]
    without = edited(stack_file(REPO, "dev"), lambda raw: raw.update(observability={"grafana": False}))
    back = diff_plans(plan_of(REPO, "dev", without), plan_of(REPO, "dev", stack_file(REPO, "dev")))
    assert named(back, "observability-stack").action == "changed" and not back.flagged


# --- Slurm ---------------------------------------------------------------------------------------------------


def test_removing_slurm_ends_its_running_jobs() -> None:
    d = diff_edit(lambda raw: raw.update(slurm={"enabled": False}), "example", SLURM)
    slurm = named(d, "slurm-helm")
    assert slurm.flagged and "ends running jobs" in slurm.effects


def test_changing_a_nodesets_gres_restarts_its_slurmd_pods() -> None:
    def edit(raw: dict[str, Any]) -> None:
        raw["gpuPools"][0]["gpusPerNode"] = 4

    d = diff_edit(edit, "example", SLURM)
    slurm = named(d, "slurm-helm")
    assert slurm.flagged and "ends running jobs" in slurm.effects
    assert any(
        "values.nodesets.h100.extraConfMap.Gres[0]: gpu:h100:8 -> gpu:h100:4" in t for t in slurm.disruptions
    )


# --- Kueue topology-aware scheduling ---------------------------------------------------------------------------


def test_turning_topology_off_on_a_pool_is_refused_by_kueue_and_strands_topology_jobs() -> None:
    d = diff_edit(lambda raw: raw["gpuPools"][0].update(topology=False), "example", TOPOLOGY)
    flavor = named(d, "kueue-flavor-h100-efa")
    assert flavor.blocked and "topologyName" in flavor.blocked
    assert "spec.topologyName: ec2-network-topology -> (none)" in flavor.blocked
    topology = named(d, "kueue-topology-ec2-network-topology")
    assert topology.action == "removed" and "strands queued work" in topology.effects
    assert flavor in d.flagged


def test_a_taint_on_a_topology_pool_is_refused_by_kueue() -> None:
    def edit(raw: dict[str, Any]) -> None:
        raw["gpuPools"][0]["taints"] = [{"key": "team", "value": "llm", "effect": "NoSchedule"}]

    d = diff_edit(edit, "example", TOPOLOGY)
    flavor = named(d, "kueue-flavor-h100-efa")
    assert flavor.blocked and "spec.tolerations" in flavor.blocked
    # The whole new toleration list, not a shortened one.
    assert '"key": "team"' in flavor.blocked and "..." not in flavor.blocked


def test_a_taint_on_a_pool_without_topology_changes_its_flavor_freely() -> None:
    def taint(raw: dict[str, Any]) -> None:
        raw["gpuPools"][0]["taints"] = [{"key": "team", "value": "llm", "effect": "NoSchedule"}]

    config = edited(stack_file(TOPOLOGY, "example"), lambda raw: raw["gpuPools"][0].update(topology=False))
    d = diff_plans(plan_of(TOPOLOGY, "example", config), plan_of(TOPOLOGY, "example", edited(config, taint)))
    flavor = named(d, "kueue-flavor-h100-efa")
    assert flavor.paths == ["spec.tolerations"] and not flavor.flagged


# --- Docker hosts ---------------------------------------------------------------------------------------------

OTHER_MACHINE = {"gke": "a2-highgpu-2g", "eks": "g5.12xlarge", "aks": "Standard_NC64as_T4_v3"}
"""Another GPU type than `tests.support.docker_host.MACHINES`, with enough GPUs for its services."""
VM = {
    "gke": "gcp:compute/instance:Instance",
    "eks": "aws:ec2/instance:Instance",
    "aks": "azure-native:compute:VirtualMachine",
}


def _host(a: Any) -> Any:
    return lambda: GpuDockerHost("host", a)


@pytest.mark.parametrize("cloud", ["gke", "eks", "aks"])
def test_a_docker_hosts_new_gpu_type_restarts_its_services(cloud: str) -> None:
    d = diff_programs(_host(args(cloud)), _host(args(cloud, machine_type=OTHER_MACHINE[cloud])))
    [vm] = [c for c in d.changes if c.type == VM[cloud]]
    assert vm.flagged and "restarts workloads" in vm.effects, vm


@pytest.mark.parametrize(
    ("cloud", "effect"), [("gke", "replaces nodes"), ("eks", "replaces nodes"), ("aks", "blocks the update")]
)
def test_a_docker_hosts_new_compose_services_are_flagged(cloud: str, effect: str) -> None:
    vllm = {**SERVICES[0], "image": "vllm/vllm-openai:v0.10.2"}
    d = diff_programs(_host(args(cloud)), _host(args(cloud, services=[vllm, SERVICES[1]])))
    [vm] = [c for c in d.changes if c.type == VM[cloud]]
    assert vm.flagged and effect in vm.effects, vm
    # The user data is many lines: the gate shows the lines that change, in full.
    assert "vllm/vllm-openai:v0.10.2" in render(d)


def test_a_compute_engine_host_is_replaced_when_its_user_data_changes() -> None:
    """cloud-init runs the user data on first boot only, so a new Compose file needs a new VM (as on EC2)."""
    vllm = {**SERVICES[0], "image": "vllm/vllm-openai:v0.10.2"}
    d = diff_programs(_host(args("gke")), _host(args("gke", services=[vllm, SERVICES[1]])))
    [vm] = [c for c in d.changes if c.type == VM["gke"]]
    assert vm.action == "replaced" and not vm.delete_first


# --- OpenShift ----------------------------------------------------------------------------------------------


def test_an_openshift_cluster_policy_driver_version_is_flagged() -> None:
    d = diff_edit(
        lambda raw: raw.update(gpuOperator={"driver": {"version": "580.105.08"}}), "example", OPENSHIFT
    )
    policy = named(d, "clusterpolicy-cluster-gpu-cluster-policy")
    assert "reloads driver" in policy.effects
    assert any("spec.driver.version: 595.91.07 -> 580.105.08" in t for t in policy.disruptions)


# --- InfiniBand -----------------------------------------------------------------------------------------------


def test_infiniband_off_on_a_running_pool_is_flagged() -> None:
    d = diff_edit(lambda raw: raw["gpuPools"][0].update(infiniband=False), "aks-nd-h100", TOPOLOGY)
    assert "reloads driver" in named(d, "network-operator-nic-cluster-policy").effects
    assert "reloads driver" in named(d, "gpu-operator-helm").effects
    assert "reloads driver" in named(d, "ndh100-agentpool").effects


def test_infiniband_off_on_one_of_two_pools_is_flagged_on_that_pool() -> None:
    """The Network Operator keeps running for the other pool: the pool that loses its InfiniBand label loses the
    DOCA driver and the RDMA device plugin under its running jobs."""

    def two_pools(raw: dict[str, Any]) -> None:
        raw["gpuPools"].append({**raw["gpuPools"][0], "name": "ndh100b"})
        raw["kueue"]["clusterQueues"][0]["pools"].append("ndh100b")

    config = edited(stack_file(TOPOLOGY, "aks-nd-h100"), two_pools)
    off = edited(config, lambda raw: raw["gpuPools"][1].update(infiniband=False))
    d = diff_plans(plan_of(TOPOLOGY, "aks-nd-h100", config), plan_of(TOPOLOGY, "aks-nd-h100", off))
    pool = named(d, "ndh100b-agentpool")
    assert pool.flagged and pool.effects == ["reloads driver"]
    assert 'nodeLabels["gpu-platform.io/infiniband"]: true -> (none)' in pool.disruptions[0]
    assert not [c for c in d.changes if c.name == "network-operator-nic-cluster-policy"]


# --- No false alarms ------------------------------------------------------------------------------------------


def _projects() -> list[tuple[Path, str]]:
    found = [(REPO, p.name.split(".")[1]) for p in sorted((REPO / "stacks").glob("Pulumi.*.yaml"))]
    for project in sorted(p.parent for p in (REPO / "examples").glob("*/Pulumi.yaml")):
        if not (project / "__main__.py").exists():
            continue
        found += [(project, s.name.split(".")[1]) for s in sorted(project.glob("Pulumi.*.yaml"))]
    return found


@pytest.mark.parametrize(
    ("project", "stack"), _projects(), ids=lambda v: v.name if isinstance(v, Path) else v
)
def test_an_unchanged_stack_planned_twice_exits_0(project: Path, stack: str, tmp_path: Path) -> None:
    for name in ("base", "head"):
        write_plan(run_plan(project, stack), tmp_path / name)
    assert main(["diff", str(tmp_path / "base"), str(tmp_path / "head")]) == 0


def test_a_pools_new_sharing_mode_strands_the_work_asking_for_the_old_resource() -> None:
    """Time-slicing -> whole GPUs: the device plugin advertises the pool's GPUs anew, so queued pods and the
    replacements of running ones that ask for the old resource never schedule there."""
    d = diff_edit(lambda raw: raw["gpuPools"][0].update(sharing={"mode": "none"}))
    pool = named(d, "l4-spot-nodepool")
    assert pool.flagged and "strands queued work" in pool.effects
    assert any(
        text.startswith("gpu-platform.io/sharing: time-slicing -> none: ") for text in pool.disruptions
    )
