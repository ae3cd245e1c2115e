"""``gpu-platform verify`` against a real kube-apiserver (the local control plane): the dev stack's Kueue objects
applied as the plan makes them, kwok nodes for its GPU pool as the plan says they are, the GPU Operator's operand
pods on them and Helm's release secrets at the pins; then drift made through the API, each kind reported."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gpu_platform.cli import main
from gpu_platform.offline import Plan, run_plan
from gpu_platform.offline.output import HELM_RELEASE
from gpu_platform.offline.render import render_releases
from gpu_platform.verify import smoke_run
from gpu_platform.verify.finding import Finding
from gpu_platform.verify.findings import findings
from gpu_platform.verify.reader import api_client, read_snapshot
from gpu_platform.verify.snapshot import encode_helm_secret
from tests.conftest import load_yaml_docs
from tests.support.control_plane import control_plane_script, wait_until
from tests.support.verify import REPO, planned_snapshot, stack_expectation

KWOK = {"kwok.x-k8s.io/node": "fake"}
MERGE = "application/merge-patch+json"


def _kueue_chart(out: Path) -> list[dict[str, Any]]:
    """The dev plan's Kueue release rendered with its vendored chart (CRDs, webhooks, manager configuration)."""
    plan = run_plan(REPO, "dev")
    kueue = [r for r in plan.by_type(HELM_RELEASE) if r.inputs.get("name") == "kueue"]
    render_releases(Plan(plan.project, plan.stack, kueue), REPO / "tests" / "upstream" / "charts", out)
    files = sorted((out / "rendered" / "kueue").glob("*.yaml"))
    return [doc for f in files for doc in load_yaml_docs(f)]


def start_kueue(cp: Any, out: Path) -> None:
    """Kueue's controller and webhooks, once per control plane (the session's, when another test started it)."""
    if not any(p.name == "kueue" and p.popen.poll() is None for p in cp.processes):
        control_plane_script.start_kueue(cp, _kueue_chart(out))


def _plan_objects() -> list[dict[str, Any]]:
    """The dev plan's own Namespace and Kueue objects (flavors before the queues that name them)."""
    order = {"Namespace": 0, "ResourceFlavor": 1, "ClusterQueue": 2, "LocalQueue": 3}
    objects = [r.inputs for r in run_plan(REPO, "dev").resources if r.inputs.get("kind") in order]
    return sorted(objects, key=lambda o: order[o["kind"]])


def _operand_pod(namespace: str, app: str, node: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"{app}-{node}", "namespace": namespace, "labels": {"app": app}},
        "spec": {
            "nodeName": node,
            "tolerations": [{"operator": "Exists"}],
            "containers": [{"name": app, "image": "registry.k8s.io/pause:3.10"}],
        },
    }


@pytest.fixture(scope="module")
def dev_cluster(control_plane: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The dev stack's state as the plan says, on the control plane; removed again afterwards."""
    start_kueue(control_plane, tmp_path_factory.mktemp("kueue"))
    yield from _dev_objects(control_plane)


def _dev_objects(cp: Any) -> Iterator[Any]:
    expected = stack_expectation("dev")
    planned = _plan_objects()
    snapshot = planned_snapshot(expected, nodes_per_pool=2)
    nodes = snapshot["nodes"]  # the pool's, and a system node for the system-cpu flavor
    for node in nodes:
        node["metadata"]["annotations"] = dict(KWOK)
    namespaces = {r.namespace for r in expected.releases} - {n["metadata"]["name"] for n in planned}
    extra_ns = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}} for n in sorted(namespaces)
    ]
    assert expected.operands is not None
    pods = [_operand_pod(expected.operands.namespace, app, n["metadata"]["name"]) for n in nodes
            for app in expected.operands.apps if "gpu-platform.io/pool" in n["metadata"]["labels"]]  # fmt: skip
    secrets = [encode_helm_secret(r) for r in snapshot["helmReleases"]]
    made = [*nodes, *[o for o in planned if o["kind"] != "Namespace"], *pods, *secrets]
    cp.apply([*extra_ns, *planned, *nodes])
    for (
        node
    ) in nodes:  # the API server's TaintNodesByCondition added not-ready; no node lifecycle controller runs
        taints = {"spec": {"taints": node["spec"].get("taints") or None}}
        cp.request("PATCH", f"/api/v1/nodes/{node['metadata']['name']}", taints, content_type=MERGE)
    cp.apply([*pods, *secrets])
    try:
        yield cp
    finally:
        for obj in reversed(made):
            cp.delete(obj)


def _errors(found: list[Finding]) -> list[tuple[str, str, str]]:
    return sorted((f.object, f.expected, f.found) for f in found if f.severity == "error")


def test_verify_passes_on_the_cluster_the_plan_describes(
    dev_cluster: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    kubeconfig = str(dev_cluster.kubeconfig)
    args = ["verify", "--project", str(REPO), "--stack", "dev", "--kubeconfig", kubeconfig]
    # Until kwok runs the operand pods and Kueue marks the ClusterQueue Active, verify says so.
    wait_until("kwok running the pods and Kueue the queue", lambda: main(args) == 0, 60, every=0.5)
    capsys.readouterr()
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert "verify: passed" in err.splitlines()[-1]
    rows = out.splitlines()[
        1:
    ]  # other tests' nodes on the shared control plane are warnings (no planned pool)
    assert [r for r in rows if r.startswith("error") or "l4-spot" in r or "system-cpu" in r] == []


def test_smoke_runs_a_cuda_sample_through_the_team_queue(
    dev_cluster: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Kueue admits the smoke Job onto the l4-spot flavor, the scheduler binds it to a pool node, kwok completes it."""
    monkeypatch.setattr(smoke_run, "POLL_SECONDS", 0.5)
    args = ["verify", "--project", str(REPO), "--stack", "dev", "--kubeconfig", str(dev_cluster.kubeconfig)]
    assert main([*args, "--smoke", "--smoke-timeout", "90"]) == 0, capsys.readouterr()
    jobs = dev_cluster.get("/apis/batch/v1/namespaces/ml-dev/jobs")["items"]
    assert [j for j in jobs if j["metadata"].get("deletionTimestamp") is None] == []  # deleted after the run


def test_a_smoke_job_no_queue_admits_is_reported(dev_cluster: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pool's flavor has no GPU quota left in the cluster: Kueue keeps the Job suspended, verify says so."""
    monkeypatch.setattr(smoke_run, "POLL_SECONDS", 0.5)
    cq = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/dev"
    spec = dev_cluster.get(cq)["spec"]
    original = copy.deepcopy(spec)
    for flavor in spec["resourceGroups"][0]["flavors"]:
        for resource in flavor["resources"]:
            if resource["name"] == "nvidia.com/gpu":
                resource["nominalQuota"] = 0
    dev_cluster.request("PATCH", cq, {"spec": spec}, content_type=MERGE)
    try:
        client = api_client(str(dev_cluster.kubeconfig), None)
        found_all = smoke_run.run_smoke(client, stack_expectation("dev"), timeout=5)
    finally:
        dev_cluster.request("PATCH", cq, {"spec": original}, content_type=MERGE)
    # l4-spot is time-sliced: it gets no all-reduce, only a warning.
    (found,) = [f for f in found_all if f.severity == "error"]
    assert (found.severity, found.subject) == ("error", "smoke on pool l4-spot")
    assert found.found.startswith("not admitted by Kueue within ")


def test_an_all_reduce_gang_is_admitted_whole_and_bound_to_two_nodes(
    dev_cluster: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The l4-spot pool taken as whole GPUs (4 per node): Kueue admits both pods of the NCCL Job as one workload,
    the scheduler binds them to the pool's two nodes (each pod takes a node's GPUs), kwok completes them, and the
    Job and its Service are deleted afterwards. kwok runs no containers, so no bandwidth is measured here."""
    monkeypatch.setattr(smoke_run, "POLL_SECONDS", 0.5)
    dev = stack_expectation("dev")
    expected = dataclasses.replace(
        dev, pools=tuple(dataclasses.replace(p, sharing="none") for p in dev.pools)
    )
    seen: list[Any] = []
    read = smoke_run.gang_result

    def recorded(core: Any, job: Any) -> Any:
        seen.append(read(core, job))
        return seen[-1]

    monkeypatch.setattr(smoke_run, "gang_result", recorded)
    client = api_client(str(dev_cluster.kubeconfig), None)
    found = smoke_run.run_smoke(client, expected, timeout=90)
    (gang,) = [f for f in found if f.subject == "nccl on pool l4-spot"]
    assert (gang.severity, gang.expected) == ("info", "an NCCL all-reduce across 2 nodes"), gang
    (result,) = seen
    assert sorted(result.nodes) == ["l4-spot-0", "l4-spot-1"]
    assert gang.found.startswith("all-reduce passed on ")
    live = [
        o
        for kind in ("/apis/batch/v1/namespaces/ml-dev/jobs", "/api/v1/namespaces/ml-dev/services")
        for o in dev_cluster.get(kind)["items"]
        if o["metadata"]["name"].startswith("gpu-platform-nccl-")
        and o["metadata"].get("deletionTimestamp") is None
    ]
    assert live == []


def test_drift_made_through_the_api_is_reported(dev_cluster: Any) -> None:
    cp, expected = dev_cluster, stack_expectation("dev")
    cp.request("PATCH", "/api/v1/nodes/l4-spot-0", {"spec": {"taints": None}}, content_type=MERGE)
    allocatable = {"status": {"allocatable": {"nvidia.com/gpu": "0"}, "capacity": {"nvidia.com/gpu": "0"}}}
    cp.request("PATCH", "/api/v1/nodes/l4-spot-1/status", allocatable, content_type=MERGE)
    cq = cp.get("/apis/kueue.x-k8s.io/v1beta2/clusterqueues/dev")
    for flavor in cq["spec"]["resourceGroups"][0]["flavors"]:
        for resource in flavor["resources"]:
            if (flavor["name"], resource["name"]) == ("l4-spot", "nvidia.com/gpu"):
                resource["nominalQuota"] = 8
    cp.request(
        "PATCH", "/apis/kueue.x-k8s.io/v1beta2/clusterqueues/dev", {"spec": cq["spec"]}, content_type=MERGE
    )
    operator = next(r for r in planned_snapshot(expected)["helmReleases"] if r["chart"] == "gpu-operator")
    cp.apply([encode_helm_secret({**operator, "revision": 2, "version": "v25.10.1"})])
    try:
        found = findings(expected, read_snapshot(api_client(str(cp.kubeconfig), None), expected))
        assert _errors(found) == [
            (
                "ClusterQueue dev",
                "l4-spot nvidia.com/gpu nominalQuota 12",
                "l4-spot nvidia.com/gpu nominalQuota 8",
            ),
            ("node l4-spot-0", "taint nvidia.com/gpu=present:NoSchedule", "no nvidia.com/gpu taint"),
            ("node l4-spot-1", "allocatable nvidia.com/gpu = 4", "nvidia.com/gpu = 0"),
            (
                "release gpu-operator/gpu-operator",
                "gpu-operator v26.7.0 deployed",
                "gpu-operator v25.10.1 deployed (revision 2)",
            ),
        ]
    finally:
        cp.delete(encode_helm_secret({**operator, "revision": 2, "version": "v25.10.1"}))
