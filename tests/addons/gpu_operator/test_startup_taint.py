"""Scale-up without extra nodes for pools whose GPU resources appear late: the startup taint on those EKS node
groups, the operands that tolerate it, the remover DaemonSet that takes it off, and Kueue's quota."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gpu_platform.addons.gpu_operator.plan import operand_tolerations
from gpu_platform.addons.gpu_operator.startup_taint import (
    NAME,
    RESOURCES_KEY,
    SCRIPT,
    remover_objects,
    startup_taint_remover_plan,
)
from gpu_platform.addons.kueue.checks import GpuOperatorFacts
from gpu_platform.catalog.drivers import DriverVersion
from gpu_platform.clouds.eks.node_pool_plan import eks_node_pool_plan
from gpu_platform.driver import DriverPlan
from gpu_platform.plans.node_daemonsets import (
    STARTUP_TAINT_REMOVER_REQUESTS,
    Requests,
    gpu_node_pods,
    gpu_node_requests,
)
from gpu_platform.pools import STARTUP_TAINT
from gpu_platform.scheduling import POOL_LABEL, startup_taints
from tests.support.plans import plan_eks_node_pool
from tests.support.pools import resolved_pool

MIG_MIXED = {"mode": "mig", "mig": {"strategy": "mixed", "layout": "all-balanced"}}
MIG_SINGLE = {"mode": "mig", "mig": {"strategy": "single", "layout": "all-1g.10gb"}}
RENAMED = {"mode": "time-slicing", "replicas": 4, "renameByDefault": True}
SLICED = {"mode": "time-slicing", "replicas": 4}
EKS_DRIVER = DriverPlan("cloud", "cloud", "operator", DriverVersion.parse("580.95.05"))
"""The AL2023 NVIDIA AMI: host driver and toolkit, the operator's device plugin."""
TEMPLATE_TAINT = f"k8s.io/cluster-autoscaler/node-template/taint/{STARTUP_TAINT.key}"


def pool(cloud: str, sharing: dict[str, Any] | None, machine: str = "p5.48xlarge", name: str = "p") -> Any:
    return resolved_pool(
        cloud, name=name, machine_type=machine, **({} if sharing is None else {"sharing": sharing})
    )


def test_the_key_is_the_autoscalers_startup_taint_prefix() -> None:
    # cluster-autoscaler FAQ "Startup taints": every taint with this prefix is one, no flag needed.
    assert STARTUP_TAINT.key.startswith("startup-taint.cluster-autoscaler.kubernetes.io/")
    assert STARTUP_TAINT.effect == "NoSchedule"


@pytest.mark.parametrize(
    ("sharing", "tainted"),
    [(MIG_MIXED, True), (RENAMED, True), (MIG_SINGLE, False), (SLICED, False), (None, False)],
)
def test_only_eks_pools_whose_resources_appear_late_start_tainted(
    sharing: dict[str, Any] | None, tainted: bool
) -> None:
    p = pool("eks", sharing)
    assert bool(startup_taints(p)) is tainted
    plan = eks_node_pool_plan(p, EKS_DRIVER, {})
    keys = [t["key"] for t in plan.cloud_taints]
    assert keys[0] == "nvidia.com/gpu"
    assert (STARTUP_TAINT.key in keys) is tainted
    # The empty group's template says the same (the autoscaler ignores startup taints there).
    assert (TEMPLATE_TAINT in plan.autoscaler_tags) is tainted
    if tainted:
        assert plan.autoscaler_tags[TEMPLATE_TAINT] == "pending:NoSchedule"
        # No GPU-not-ready gate for these nodes (they never advertise nvidia.com/gpu): the taint is the gate.
        assert "k8s.amazonaws.com/accelerator" not in plan.labels


def test_the_node_pool_component_taints_the_node_group_too() -> None:
    plan = plan_eks_node_pool(
        {
            "cluster_name": "c",
            "node_role_arn": "arn:aws:iam::123456789012:role/n",
            "subnet_ids": ["subnet-01010101"],
            "pool": {"name": "h100", "machine_type": "p5.48xlarge", "max_nodes": 2, "sharing": MIG_MIXED},
        }
    )
    assert {"key": STARTUP_TAINT.key, "value": "pending", "effect": "NO_SCHEDULE"} in plan.cloud_taints


def test_gke_and_aks_pools_carry_no_startup_taint() -> None:
    gke = pool("gke", {"mode": "mig", "mig": {"layout": "all-1g.5gb"}}, machine="a2-highgpu-1g")
    aks = pool("aks", None, machine="Standard_NC24ads_A100_v4")
    assert startup_taints(gke) == [] and startup_taints(aks) == []


def test_every_operand_and_nfd_tolerate_the_taint_workloads_do_not() -> None:
    p = pool("eks", MIG_MIXED)
    tol = {"key": STARTUP_TAINT.key, "operator": "Equal", "value": "pending", "effect": "NoSchedule"}
    assert tol in operand_tolerations([p])
    from gpu_platform.scheduling import pool_tolerations

    assert all(t.get("key") != STARTUP_TAINT.key for t in pool_tolerations(p))


def test_the_remover_runs_only_on_tainted_pools_and_knows_what_each_waits_for() -> None:
    mixed, renamed, single = (
        pool("eks", MIG_MIXED, name="mixed"),
        pool("eks", RENAMED, name="renamed"),
        pool("eks", MIG_SINGLE, name="single"),
    )
    plan = startup_taint_remover_plan([mixed, renamed, single], "gpu-operator")
    objects = {o["kind"]: o for o in remover_objects(plan)}
    assert set(objects) == {"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap", "DaemonSet"}
    ds = objects["DaemonSet"]["spec"]["template"]["spec"]
    term = ds["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    assert term == [
        {"matchExpressions": [{"key": POOL_LABEL, "operator": "In", "values": ["mixed", "renamed"]}]}
    ]
    assert ds["tolerations"] == [{"operator": "Exists"}]
    assert ds["serviceAccountName"] == NAME
    waits = json.loads(objects["ConfigMap"]["data"][RESOURCES_KEY])
    assert waits == {
        "mixed": ["nvidia.com/mig-1g.10gb", "nvidia.com/mig-2g.20gb", "nvidia.com/mig-3g.40gb"],
        "renamed": ["nvidia.com/gpu.shared"],
    }
    # Least privilege: read a Node and patch it (kubectl taint), nothing else.
    assert objects["ClusterRole"]["rules"] == [
        {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "patch"]}
    ]
    subject = objects["ClusterRoleBinding"]["subjects"][0]
    assert (subject["name"], subject["namespace"]) == (NAME, "gpu-operator")
    container = ds["containers"][0]
    assert container["resources"]["requests"] == STARTUP_TAINT_REMOVER_REQUESTS.quantities()
    assert container["image"].startswith("registry.k8s.io/kubectl:v")


def test_no_tainted_pool_no_remover() -> None:
    assert remover_objects(startup_taint_remover_plan([pool("eks", MIG_SINGLE)], "gpu-operator")) == []


def test_kueue_takes_the_removers_requests_off_tainted_nodes_only() -> None:
    mixed, single = pool("eks", MIG_MIXED, name="mixed"), pool("eks", MIG_SINGLE, name="single")
    facts = GpuOperatorFacts(driver=EKS_DRIVER)
    both = [mixed, single]
    # Without the GPU Operator component nothing creates the remover, so nothing is taken off.
    assert gpu_node_requests(mixed, both, None) == Requests()
    operands = gpu_node_pods(mixed, both, facts)
    assert gpu_node_requests(mixed, both, facts) == sum(operands.values(), STARTUP_TAINT_REMOVER_REQUESTS)
    assert gpu_node_requests(single, both, facts) == sum(
        gpu_node_pods(single, both, facts).values(), Requests()
    )


# --- the script, run with bash and jq against a fake kubectl ---------------------------------------------


def _fake_bin(tmp: Path, name: str, body: str) -> None:
    path = tmp / name
    path.write_text("#!/bin/bash\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def _run(tmp: Path, node: dict[str, Any], appear_after_polls: int) -> list[str]:
    """Run the script: the fake device plugin adds the MIG resources after ``appear_after_polls`` sleeps."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    (tmp / "node.json").write_text(json.dumps(node))
    (tmp / "want.json").write_text(json.dumps({"h100": ["nvidia.com/mig-1g.10gb"]}))
    log = tmp / "calls"
    _fake_bin(
        bin_dir,
        "kubectl",
        f'echo "$*" >> {log}\n'
        f'if [ "$1" = get ]; then cat {tmp}/node.json; exit 0; fi\n'
        f'if [ "$1" = taint ]; then jq \'.spec.taints |= map(select(.key != "{STARTUP_TAINT.key}"))\' '
        f"{tmp}/node.json > {tmp}/n && mv {tmp}/n {tmp}/node.json; exit 0; fi\nexit 1\n",
    )
    _fake_bin(
        bin_dir,
        "sleep",
        f'echo "sleep $1" >> {log}\n'
        f'if [ "$1" = infinity ]; then exit 0; fi\n'
        f"n=$(grep -c '^sleep' {log})\n"
        f'if [ "$n" -ge {appear_after_polls} ]; then jq \'.status.allocatable["nvidia.com/mig-1g.10gb"] = "56"\' '
        f"{tmp}/node.json > {tmp}/n && mv {tmp}/n {tmp}/node.json; fi\n"
        f'if [ "$n" -gt 20 ]; then kill -9 $PPID; fi\n',
    )
    script = tmp / "remove.sh"
    script.write_text(SCRIPT)
    env = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "NODE_NAME": "ip-10-0-0-1",
        "TAINT_KEY": STARTUP_TAINT.key,
        "TAINT_EFFECT": STARTUP_TAINT.effect,
        "POOL_LABEL": POOL_LABEL,
        "POLL_SECONDS": "10",
        "WANT_FILE": str(tmp / "want.json"),
    }
    subprocess.run(["bash", str(script)], env=env, check=True, timeout=30, capture_output=True)
    return log.read_text().splitlines()


def _node(tainted: bool = True) -> dict[str, Any]:
    taints = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    if tainted:
        taints.append({"key": STARTUP_TAINT.key, "value": "pending", "effect": "NoSchedule"})
    return {
        "metadata": {"labels": {POOL_LABEL: "h100"}},
        "spec": {"taints": taints},
        "status": {"allocatable": {"cpu": "191", "nvidia.com/gpu": "0"}},
    }


def test_the_script_waits_for_the_resources_then_removes_the_taint_once(tmp_path: Path) -> None:
    calls = _run(tmp_path, _node(), appear_after_polls=3)
    taints = [c for c in calls if c.startswith("taint")]
    assert taints == [f"taint node ip-10-0-0-1 {STARTUP_TAINT.key}:NoSchedule-"]
    # Three polls without the resources (no removal), the removal on the fourth, one more poll that
    # finds no taint, then it sleeps for good.
    polls = [i for i, c in enumerate(calls) if c == "sleep 10"]
    assert len(polls) == 4 and polls[2] < calls.index(taints[0]) < polls[3]
    assert calls[-1] == "sleep infinity"
    node = json.loads((tmp_path / "node.json").read_text())
    assert [t["key"] for t in node["spec"]["taints"]] == ["nvidia.com/gpu"]  # the GPU taint stays


def test_the_script_never_touches_a_node_without_the_taint(tmp_path: Path) -> None:
    calls = _run(tmp_path, _node(tainted=False), appear_after_polls=0)
    assert not [c for c in calls if c.startswith("taint")]
    assert calls[-1] == "sleep infinity"
