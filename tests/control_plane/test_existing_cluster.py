"""The ``existing``-cluster example's plan applied to a real kube-apiserver (server-side apply), with Kueue's
controller and webhooks, kube-scheduler, kube-controller-manager and kwok nodes for its GPU pools: what the
plan means (quotas, flavors, taints) checked by the components that enforce it, not by a reimplementation."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.support.cluster_objects import PlannedCluster, apply_plan, gpu_nodes, kwok_node, render_plan
from tests.support.control_plane import control_plane_script, wait_until

REPO = control_plane_script.REPO
PROJECT = REPO / "examples" / "existing-cluster"
CPU_NODE = "cpu-0"


@dataclass
class Applied:
    cp: Any
    plan: PlannedCluster
    refused: list[Any]
    nodes: list[dict[str, Any]]


@pytest.fixture(scope="module")
def applied(control_plane: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Applied]:
    plan = render_plan(PROJECT, "example", tmp_path_factory.mktemp("plan-existing"))
    control_plane_script.start_kueue(control_plane, plan.releases["kueue"])
    refused = apply_plan(control_plane, plan)
    nodes = [*gpu_nodes(plan), kwok_node(CPU_NODE, {}, [], {"cpu": "64", "memory": "256Gi", "pods": "250"})]
    control_plane.apply(nodes)
    yield Applied(control_plane, plan, refused, nodes)


CERT_MANAGER_KINDS = {("Certificate", "kserve/serving-cert"), ("Issuer", "kserve/selfsigned-issuer")}
"""KServe's webhook certificate comes from cert-manager, which this stack leaves to the cluster
(``kserve.installCertManager: false``): the cluster must already serve cert-manager.io, this one does not."""


def test_every_planned_object_is_accepted(applied: Applied) -> None:
    unserved = {(r.kind, r.name) for r in applied.refused if "does not serve" in r.message}
    assert unserved <= CERT_MANAGER_KINDS, unserved
    assert [str(r) for r in applied.refused if (r.kind, r.name) not in CERT_MANAGER_KINDS] == []


def test_each_pool_has_its_nodes_with_the_planned_taint_and_gpus(applied: Applied) -> None:
    a100 = applied.cp.get("/api/v1/nodes/a100-3")
    assert {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"} in a100["spec"]["taints"]
    assert a100["status"]["allocatable"]["nvidia.com/mig-1g.10gb"] == "16"
    names = [
        n["metadata"]["name"]
        for n in applied.cp.get("/api/v1/nodes?labelSelector=gpu-platform.io/pool")["items"]
    ]
    assert sorted(names) == ["a100-0", "a100-1", "a100-2", "a100-3", "l40s-0", "l40s-1"]


def pod(name: str, resources: dict[str, str], **spec: Any) -> dict[str, Any]:
    container = {"name": "main", "image": "registry.k8s.io/pause:3.10", "resources": {"limits": resources}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [container], **spec},
    }


def test_a_cpu_pod_binds_to_the_cpu_node_never_a_gpu_node(applied: Applied) -> None:
    cp = applied.cp
    cp.apply([pod("cpu-only", {"cpu": "1", "memory": "1Gi"})])
    bound = wait_until(
        "cpu-only bound", lambda: cp.get("/api/v1/namespaces/default/pods/cpu-only")["spec"].get("nodeName")
    )
    assert bound == CPU_NODE


GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


@pytest.mark.parametrize(
    ("resource", "pool"), [("nvidia.com/mig-1g.10gb", "a100"), ("nvidia.com/gpu", "l40s")]
)
def test_a_gpu_pod_without_the_toleration_stays_pending_on_the_taint(
    applied: Applied, resource: str, pool: str
) -> None:
    """Pending for the taint, and only the taint: the same pod with the toleration binds to the pool."""
    cp = applied.cp
    name = f"no-toleration-{pool}"
    selector = {"gpu-platform.io/pool": pool}
    cp.apply([pod(name, {resource: "1"}, nodeSelector=selector)])

    def unschedulable() -> str | None:
        status = cp.get(f"/api/v1/namespaces/default/pods/{name}")["status"]
        scheduled = [c for c in status.get("conditions", []) if c["type"] == "PodScheduled"]
        return (
            scheduled[0].get("message") if scheduled and scheduled[0]["reason"] == "Unschedulable" else None
        )

    message = wait_until(f"{name} unschedulable", unschedulable)
    assert "untolerated taint" in message, message
    assert cp.get(f"/api/v1/namespaces/default/pods/{name}")["spec"].get("nodeName") is None
    cp.apply([pod(f"tolerates-{pool}", {resource: "1"}, nodeSelector=selector, tolerations=[GPU_TOLERATION])])
    path = f"/api/v1/namespaces/default/pods/tolerates-{pool}"
    assert wait_until(f"tolerates-{pool} bound", lambda: cp.get(path)["spec"].get("nodeName")).startswith(
        f"{pool}-"
    )


def job(name: str, namespace: str, resource: str, per_pod: int, pods: int) -> dict[str, Any]:
    """A Job for the namespace's LocalQueue (``default``), created suspended as Kueue expects."""
    container = {
        "name": "main",
        "image": "registry.k8s.io/pause:3.10",
        "resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {resource: str(per_pod)}},
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"kueue.x-k8s.io/queue-name": "default"},
        },
        "spec": {
            "parallelism": pods,
            "completions": pods,
            "suspend": True,
            "template": {"spec": {"restartPolicy": "Never", "containers": [container]}},
        },
    }


def workload_of(cp: Any, namespace: str, job_name: str) -> dict[str, Any] | None:
    items = cp.get(f"/apis/kueue.x-k8s.io/v1beta2/namespaces/{namespace}/workloads")["items"]
    owned = [w for w in items if any(o["name"] == job_name for o in w["metadata"].get("ownerReferences", []))]
    return owned[0] if owned else None


def condition(obj: dict[str, Any] | None, kind: str) -> dict[str, Any] | None:
    found = [c for c in (obj or {}).get("status", {}).get("conditions", []) if c["type"] == kind]
    return found[0] if found else None


@pytest.mark.parametrize(
    ("namespace", "resource", "pool"),
    [("vision", "nvidia.com/mig-2g.20gb", "a100"), ("notebooks", "nvidia.com/gpu", "l40s")],
)
def test_a_team_job_is_admitted_onto_its_pools_flavor_and_bound_to_its_nodes(
    applied: Applied, namespace: str, resource: str, pool: str
) -> None:
    cp = applied.cp
    cp.apply([job("fits", namespace, resource, per_pod=1, pods=2)])
    admitted = wait_until(
        "workload admitted",
        lambda: (w := workload_of(cp, namespace, "fits")) and condition(w, "Admitted") and w,
    )
    flavors = admitted["status"]["admission"]["podSetAssignments"][0]["flavors"]
    assert flavors[resource] == pool

    def bound() -> list[str] | None:
        pods = cp.get(f"/api/v1/namespaces/{namespace}/pods?labelSelector=job-name=fits")["items"]
        nodes = [p["spec"].get("nodeName") for p in pods]
        return nodes if len(nodes) == 2 and all(nodes) else None

    nodes = wait_until("job pods bound", bound)
    assert all(n.startswith(f"{pool}-") for n in nodes), nodes


def test_a_job_larger_than_the_quota_stays_pending(applied: Applied) -> None:
    cp = applied.cp
    # research's quota: 4 nodes x 8 A100 x one 3g.40gb each = 32; ask for 33.
    cp.apply([job("too-big", "vision", "nvidia.com/mig-3g.40gb", per_pod=1, pods=33)])

    def refused() -> str | None:
        reserved = condition(workload_of(cp, "vision", "too-big"), "QuotaReserved")
        return reserved["message"] if reserved and reserved["status"] == "False" else None

    message = wait_until("too-big evaluated", refused)
    assert "insufficient quota" in message.lower() or "couldn't assign flavors" in message.lower(), message
    assert cp.get("/apis/batch/v1/namespaces/vision/jobs/too-big")["spec"]["suspend"] is True
