"""Every stack (``stacks/Pulumi.<env>.yaml``) and every example that targets Kubernetes, one after another on the
session's control plane: the plan's objects applied server-side, kwok nodes for each GPU pool at its maximum size
as its cloud makes them (``tests.support.cluster_stacks``), and then the components that enforce the plan do the
checking: Kueue (restarted with each plan's own configuration), kube-scheduler, the Job and Deployment controllers
and JobSet's controller where the plan uses JobSet.

For each stack: every team queue admits a job onto the flavor of the pool its ClusterQueue names and the pods
bind to that pool's nodes; two jobs that together exceed a queue's quota are admitted one at a time; a JobSet is
admitted as one gang (or not at all); on topology-aware pools a job that requires one block lands in one block;
and each KServe service's predictor, as the Deployment KServe would make of it, binds to its pool.

Between stacks the team namespaces, Kueue's cluster-wide objects and the nodes are deleted (``reset``); after
each test its Jobs and JobSets (``no_jobs_left``).

Which stacks (``tests.support.cluster_stacks.targets``): by default (``GPU_PLATFORM_CP_TARGETS`` unset or empty)
only ``DEFAULT_TARGETS``, a few minutes on two cores, so ``make test`` stays quick; ``GPU_PLATFORM_CP_TARGETS=all``
runs every stack and example (about 20 minutes), and a comma-separated list of ids (``stacks/prod``,
``topology-aware-training/gke-a4``) runs just those::

    GPU_PLATFORM_CP_TARGETS=all .venv/bin/python -m pytest -q tests/control_plane/test_stacks.py
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support.cluster_objects import PlannedCluster, split_objects
from tests.support.cluster_stacks import Rendered, Renders, kwok_nodes, targets
from tests.support.control_plane import ApiError, control_plane_script, wait_until
from tests.support.platform_crds import serve

TARGETS = targets()
KUEUE = "/apis/kueue.x-k8s.io/v1beta2"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
HOLD = "gpu-platform.io/test-hold"
"""A scheduling gate of the tests' own: pods carrying it are never scheduled (so never complete), so their
admitted job keeps its quota until it is deleted."""
PAUSE = "registry.k8s.io/pause:3.10"
KEEP_NAMESPACES = {
    "default",
    "kube-system",
    "kube-public",
    "kube-node-lease",
    "kueue-system",
    "jobset-system",
}
CLUSTER_KINDS = ("clusterqueues", "resourceflavors", "topologies", "cohorts")
RESET = "<reset>"


# --- one stack at a time ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def renders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Renders]:
    """Every target's plan, rendered in the background from the first use on."""
    r = Renders(TARGETS, tmp_path_factory.mktemp("stack-plans"))
    yield r
    r.close()


@dataclass
class Cluster:
    cp: Any
    plan: Rendered
    refused: list[Any]
    nodes: dict[str, dict[str, Any]]
    pools: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.plan.target.id


_kueue_configs: dict[int, str] = {}


def run_controllers(cp: Any, plan: Rendered) -> None:
    """JobSet's controller where the plan installs JobSet (before Kueue, so Kueue finds JobSet's API at once), and
    Kueue with this plan's configuration (integrations, resource transformations), restarted when it differs."""
    if "jobset" in plan.releases:
        control_plane_script.start_jobset(cp, plan.releases["jobset"])
    if "kueue" not in plan.releases:
        return
    # The workload controllers' CRDs before Kueue, as the plan orders them (Kueue's release depends on theirs):
    # Kueue defers an integration whose API is missing at its start, and its TrainJob webhook refuses TrainJobs
    # until the deferred setup runs.
    crds = [
        o
        for name, objects in plan.releases.items()
        if name != "kueue"
        for o in objects
        if o["kind"] == "CustomResourceDefinition" and _digest(o) not in _applied
    ]
    if crds:
        cp.apply(crds)
        cp.wait_established(crds)
        _applied.update({_digest(o): "" for o in crds})
    config = json.dumps(
        control_plane_script.kueue_config(plan.releases["kueue"], 0, 0, Path()), sort_keys=True
    )
    running = any(p.name == "kueue" and p.popen.poll() is None for p in cp.processes)
    if running and _kueue_configs.get(id(cp)) != config:
        control_plane_script.stop_process(cp, "kueue")
    control_plane_script.start_kueue(cp, plan.releases["kueue"])
    _kueue_configs[id(cp)] = config


def _names(cp: Any, path: str) -> list[str]:
    try:
        return [i["metadata"]["name"] for i in cp.get(path)["items"]]
    except ApiError as e:
        if e.status == 404:
            return []
        raise


_applied: dict[str, str] = {}
"""Digest of every object applied so far (on the session's control plane) -> its namespace: what an earlier
stack applied identically is not sent again unless its namespace was deleted since (charts repeat across
stacks; their CRDs alone are hundreds of kilobytes)."""


def _digest(obj: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()


RESET_KINDS = {"ClusterQueue", "ResourceFlavor", "Topology", "Cohort"}
"""Kueue's cluster-wide objects, deleted by every ``reset`` (``CLUSTER_KINDS``)."""


def _namespace_of(obj: dict[str, Any]) -> str:
    """The namespace whose deletion removes ``obj`` (``RESET`` for what every reset deletes)."""
    meta = obj.get("metadata") or {}
    if obj["kind"] in RESET_KINDS:
        return RESET
    return str(meta["name"]) if obj["kind"] == "Namespace" else str(meta.get("namespace") or "")


def apply_new(cp: Any, plan: Rendered, manager: str) -> list[Any]:
    """``cluster_objects.apply_plan``'s objects (stored, then the dry-run ones), less the ones applied
    identically before; what the API server refused. Refusals for a CRD not yet established are retried once."""
    stored, dry = split_objects(
        PlannedCluster(plan.out, plan.manifests, plan.releases, plan.node_setup, plan.pools)
    )
    stored = [o for o in stored if _digest(o) not in _applied]
    dry = [o for o in dry if _digest(o) not in _applied]
    refused = cp.try_apply(stored, manager=manager)
    if refused:
        cp.wait_established([o for o in stored if o["kind"] == "CustomResourceDefinition"])
        again = {(r.kind, r.name) for r in refused}
        refused = cp.try_apply((o for o in stored if (o["kind"], _name(o)) in again), manager=manager)
    refused += cp.try_apply(dry, dry_run=True)
    failed = {(r.kind, r.name) for r in refused}
    for obj in stored + dry:
        if (obj["kind"], _name(obj)) not in failed:
            _applied[_digest(obj)] = _namespace_of(obj)
    return refused


def _name(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata", {})
    return f"{meta['namespace']}/{meta['name']}" if meta.get("namespace") else str(meta.get("name"))


def _workload_namespaces(cp: Any) -> list[str]:
    """The namespaces the plans' queues and services and the tests' jobs live in: every namespace holding a
    LocalQueue, an InferenceService or a bound pod (its node may be gone, a next stack's node of the same name
    would count it), or labelled for a ClusterQueue."""
    found = set(_names(cp, "/api/v1/namespaces?labelSelector=gpu-platform.io%2Fcluster-queue"))
    paths = (
        f"{KUEUE}/localqueues",
        "/apis/serving.kserve.io/v1beta1/inferenceservices",
        "/api/v1/pods?fieldSelector=spec.nodeName%21%3D",
    )
    for path in paths:
        with contextlib.suppress(ApiError):
            found |= {i["metadata"]["namespace"] for i in cp.get(path)["items"]}
    return sorted(found - KEEP_NAMESPACES)


def reset(cp: Any, timeout: float = 120) -> None:
    """Back to a cluster without workloads for the next stack: the namespaces that held queues, services or
    pods deleted (with all they hold) while the nodes are still there for kwok to finish their pods, the default
    namespace's jobs and pods, then Kueue's cluster-wide objects and every kwok node. The charts' namespaces
    and cluster-wide objects stay; the next plan's apply overwrites them."""
    namespaces = _workload_namespaces(cp)
    for digest, namespace in list(_applied.items()):
        if namespace in namespaces or namespace == RESET:
            del _applied[digest]
    for name in namespaces:
        cp.delete({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    for kind in ("jobs", "pods"):
        group = "/apis/batch/v1" if kind == "jobs" else "/api/v1"
        for name in _names(cp, f"{group}/namespaces/default/{kind}"):
            cp.request(
                "DELETE", f"{group}/namespaces/default/{kind}/{name}", {"propagationPolicy": "Background"}
            )
    wait_until(
        "namespaces deleted",
        lambda: (
            not any(n in namespaces for n in _names(cp, "/api/v1/namespaces"))
            and not _names(cp, "/api/v1/namespaces/default/pods")
        ),
        timeout,
    )
    for kind in CLUSTER_KINDS:
        for name in _names(cp, f"{KUEUE}/{kind}"):
            cp.request("DELETE", f"{KUEUE}/{kind}/{name}")
    wait_until(
        "Kueue objects deleted", lambda: not any(_names(cp, f"{KUEUE}/{k}") for k in CLUSTER_KINDS), timeout
    )
    for name in _names(cp, "/api/v1/nodes?labelSelector=type%3Dkwok"):
        cp.request("DELETE", f"/api/v1/nodes/{name}")


@pytest.fixture(scope="module", params=TARGETS, ids=[t.id for t in TARGETS])
def cluster(request: pytest.FixtureRequest, control_plane: Any, renders: Renders) -> Iterator[Cluster]:
    plan = renders.get(request.param)
    reset(control_plane)
    run_controllers(control_plane, plan)
    if serve(control_plane, plan.target.cloud, plan.out / "plan.json"):
        _applied.clear()  # another cloud's platform CRDs were deleted, with their objects
    refused = apply_new(control_plane, plan, manager=plan.target.id.replace("/", "."))
    nodes = kwok_nodes(plan)
    control_plane.apply(nodes)
    yield Cluster(
        control_plane,
        plan,
        refused,
        {n["metadata"]["name"]: n for n in nodes},
        {p.name: p for p in plan.pools},
    )


def clear_jobs(cp: Any, timeout: float = 60) -> None:
    """Every Job and JobSet in the workload namespaces deleted, and their Kueue workloads gone (the quota free);
    the workloads of other owners (the KServe test's Deployments' pods) stay until the stack's ``reset``."""
    namespaces = _workload_namespaces(cp)
    for namespace in namespaces:
        for group, kind in (("/apis/jobset.x-k8s.io/v1alpha2", "jobsets"), ("/apis/batch/v1", "jobs")):
            for name in _names(cp, f"{group}/namespaces/{namespace}/{kind}"):
                with contextlib.suppress(ApiError):
                    cp.request(
                        "DELETE",
                        f"{group}/namespaces/{namespace}/{kind}/{name}",
                        {"propagationPolicy": "Background"},
                    )
    wait_until(
        "the tests' workloads deleted",
        lambda: not any(_job_workloads(cp, n) for n in namespaces),
        timeout,
    )


def _job_workloads(cp: Any, namespace: str) -> list[str]:
    try:
        items = cp.get(f"{KUEUE}/namespaces/{namespace}/workloads")["items"]
    except ApiError as e:
        if e.status == 404:
            return []
        raise
    owners = {"Job", "JobSet"}
    return [
        w["metadata"]["name"]
        for w in items
        if any(o["kind"] in owners for o in w["metadata"].get("ownerReferences", []))
    ]


@pytest.fixture(autouse=True)
def no_jobs_left(cluster: Cluster) -> Iterator[None]:
    """After each test, passed or failed, its jobs deleted (``clear_jobs``): a job left pending at the head of a
    ``StrictFIFO`` queue would hold back every later test's job on that queue."""
    yield
    clear_jobs(cluster.cp)


# --- reading the plan ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Placement:
    """Where a team queue's GPU job should go: the flavor (a pool), the GPU resource it covers, the queue's own
    quota of it and what one node of the pool offers."""

    namespace: str
    queue: str
    cluster_queue: dict[str, Any]
    flavor: dict[str, Any]
    pool: Any
    resource: str
    quota: int
    per_node: int
    gpu_topology_only: bool
    """Every GPU pool's flavor of the ClusterQueue is topology-aware: users submit to it without a topology
    request, so the plan must make Kueue treat the queue as TAS-only."""


def _count(text: Any) -> int:
    return int(str(text)) if str(text).isdigit() else 0


def placements(c: Cluster) -> list[Placement]:
    """Per LocalQueue, the first flavor of its ClusterQueue with a GPU resource of its pool that the queue holds
    quota of: what Kueue picks for a job asking only for that resource (flavors are tried in order)."""
    queues = {q["metadata"]["name"]: q for q in c.plan.of_kind("ClusterQueue")}
    flavors = {f["metadata"]["name"]: f for f in c.plan.of_kind("ResourceFlavor")}
    out = []
    for lq in c.plan.of_kind("LocalQueue"):
        cq = queues.get(lq["spec"]["clusterQueue"])
        if cq is None:
            continue
        found = _first_gpu_flavor(c, cq, flavors)
        if found:
            flavor, pool, resource, quota, per_node = found
            out.append(
                Placement(
                    lq["metadata"]["namespace"],
                    lq["metadata"]["name"],
                    cq,
                    flavor,
                    pool,
                    resource,
                    quota,
                    per_node,
                    all(
                        f["spec"].get("topologyName")
                        for g in cq["spec"]["resourceGroups"]
                        for e in g["flavors"]
                        if (f := flavors.get(e["name"])) is not None and _pool_of(c, f) is not None
                    ),
                )
            )
    return out


def _first_gpu_flavor(c: Cluster, cq: dict[str, Any], flavors: dict[str, Any]) -> tuple[Any, ...] | None:
    for group in cq["spec"]["resourceGroups"]:
        for entry in group["flavors"]:
            flavor = flavors.get(entry["name"])
            pool = _pool_of(c, flavor)
            if flavor is None or pool is None:
                continue
            offered = c.nodes[f"{pool.name}-0"]["status"]["allocatable"]
            # NVIDIA's resources first (EFA devices and InfiniBand HCAs are covered too, never alone).
            for r in sorted(entry["resources"], key=lambda r: not r["name"].startswith("nvidia.com/")):
                per_node = _count(offered.get(r["name"], 0))
                if "/" in r["name"] and per_node and _count(r["nominalQuota"]):
                    return flavor, pool, r["name"], _count(r["nominalQuota"]), per_node
    return None


def _pool_of(c: Cluster, flavor: dict[str, Any] | None) -> Any:
    """The pool whose nodes carry every node label of the flavor."""
    if flavor is None:
        return None
    want = flavor["spec"].get("nodeLabels") or {}
    for pool in c.pools.values():
        node = c.nodes.get(f"{pool.name}-0")
        if want and node and want.items() <= node["metadata"]["labels"].items():
            return pool
    return None


def container(resource: str, units: int) -> dict[str, Any]:
    return {
        "name": "main",
        "image": PAUSE,
        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {resource: str(units)}},
    }


UNCONSTRAINED_TOPOLOGY = "kueue.x-k8s.io/podset-unconstrained-topology"


def topology_annotations(p: Placement) -> dict[str, str]:
    """What a pod set bound for the placement's flavor must say for Kueue to consider it: nothing in a queue
    whose GPU pools are all topology-aware (users submit there without a topology request; the plan must make
    the queue TAS-only, its system flavor topology-aware too); on a topology-aware flavor of a queue that also
    has a plain GPU pool, a topology request (here: unconstrained), since such a flavor refuses a pod set without
    one ("supports only TopologyAwareScheduling"): sigs.k8s.io/kueue v0.19.2
    pkg/scheduler/flavorassigner/tas_flavorassigner.go (``isTASImplied``, ``checkPodSetAndFlavorMatchForTAS``)."""
    mixed = p.flavor["spec"].get("topologyName") and not p.gpu_topology_only
    return {UNCONSTRAINED_TOPOLOGY: "true"} if mixed else {}


def job(
    name: str,
    p: Placement,
    units: int,
    pods: int = 1,
    *,
    hold: bool = False,
    annotations: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A Job for the placement's queue, created suspended as Kueue expects: ``pods`` pods of ``units`` each;
    ``hold``: its pods carry ``HOLD``; ``annotations`` on the pod template (default: ``topology_annotations``)."""
    spec: dict[str, Any] = {"restartPolicy": "Never", "containers": [container(p.resource, units)]}
    if hold:
        spec["schedulingGates"] = [{"name": HOLD}]
    if annotations is None:
        annotations = topology_annotations(p)
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": p.namespace, "labels": {QUEUE_LABEL: p.queue}},
        "spec": {
            "parallelism": pods,
            "completions": pods,
            "suspend": True,
            "template": {"metadata": {"annotations": annotations}, "spec": spec},
        },
    }


def workload_of(cp: Any, namespace: str, owner: str) -> dict[str, Any] | None:
    items = cp.get(f"{KUEUE}/namespaces/{namespace}/workloads")["items"]
    owned = [w for w in items if any(o["name"] == owner for o in w["metadata"].get("ownerReferences", []))]
    return owned[0] if owned else None


def condition(obj: dict[str, Any] | None, kind: str) -> dict[str, Any] | None:
    found = [c for c in (obj or {}).get("status", {}).get("conditions", []) if c["type"] == kind]
    return found[0] if found else None


def _last_seen(cp: Any, namespace: str, owner: str) -> str:
    """What Kueue last said of the owner's workload (its conditions), for a failure message."""
    try:
        w = workload_of(cp, namespace, owner)
    except ApiError as e:
        return f"workloads unreadable: {e}"
    if w is None:
        return "no Workload was made for it"
    said = [
        f"{c['type']}={c['status']} {c.get('reason', '')}: {c.get('message', '')}"
        for c in w["status"].get("conditions", [])
    ]
    return "; ".join(said) or "a Workload with no conditions"


def admitted(cp: Any, namespace: str, owner: str, timeout: float = 45) -> dict[str, Any]:
    def check() -> dict[str, Any] | None:
        w = workload_of(cp, namespace, owner)
        reserved = condition(w, "Admitted")
        return w if reserved and reserved["status"] == "True" else None

    return wait_until(
        f"{namespace}/{owner} admitted", check, timeout, why=lambda: _last_seen(cp, namespace, owner)
    )


def pending_for_quota(cp: Any, namespace: str, owner: str) -> str:
    def check() -> str | None:
        reserved = condition(workload_of(cp, namespace, owner), "QuotaReserved")
        return reserved["message"] if reserved and reserved["status"] == "False" else None

    return wait_until(f"{namespace}/{owner} evaluated", check, why=lambda: _last_seen(cp, namespace, owner))


def bound_nodes(cp: Any, namespace: str, selector: str, count: int, timeout: float = 45) -> list[str]:
    """The nodes of the ``count`` pods matching ``selector`` once every one is bound."""

    def check() -> list[str] | None:
        pods = cp.get(f"/api/v1/namespaces/{namespace}/pods?labelSelector={selector}")["items"]
        nodes = [p["spec"].get("nodeName") for p in pods]
        return nodes if len(nodes) == count and all(nodes) else None

    return wait_until(f"{count} pods {selector} bound in {namespace}", check, timeout)


def assert_on_pool(c: Cluster, nodes: list[str], p: Placement) -> None:
    want = p.flavor["spec"].get("nodeLabels") or {}
    for name in nodes:
        assert name.startswith(f"{p.pool.name}-"), (c.id, name, p.pool.name)
        assert want.items() <= c.nodes[name]["metadata"]["labels"].items(), (c.id, name, want)


def delete(cp: Any, obj: dict[str, Any]) -> None:
    cp.delete(obj)
    wait_until(f"{obj['kind']} {obj['metadata']['name']} deleted", lambda: _gone(cp, obj), 30)


def _gone(cp: Any, obj: dict[str, Any]) -> bool:
    try:
        cp.get(cp.resource_path(obj))
    except ApiError as e:
        return e.status == 404
    return False


# --- the tests -------------------------------------------------------------------------------------------------

UNSERVED = {
    "Certificate": "cert-manager.io: KServe's webhook certificate, where the stack leaves cert-manager to the cluster",
    "Issuer": "cert-manager.io: as Certificate",
}
"""Kinds a plan may hold whose API the stack expects the cluster to serve already; nothing else may be refused."""


CLOUD_APIS = ("cloud.google.com/",)
"""API groups the cloud serves whose CRD is not vendored, so absent here: GKE's ComputeClass (Google publishes no
CRD manifest). The other APIs the clouds serve are, before each plan (``tests.support.platform_crds``)."""


def _expected_refusal(r: Any) -> bool:
    served_elsewhere = r.kind in UNSERVED or any(g in r.message for g in CLOUD_APIS)
    return "does not serve" in r.message and served_elsewhere


def test_every_planned_object_is_accepted(cluster: Cluster) -> None:
    unexpected = [str(r) for r in cluster.refused if not _expected_refusal(r)]
    assert unexpected == [], cluster.id


def test_each_pool_has_its_nodes_with_its_taints_and_gpus(cluster: Cluster) -> None:
    for pool in cluster.pools.values():
        names = _names(cluster.cp, f"/api/v1/nodes?labelSelector=gpu-platform.io%2Fpool%3D{pool.name}")
        assert sorted(names) == sorted(f"{pool.name}-{i}" for i in range(pool.max_nodes)), cluster.id
        node = cluster.cp.get(f"/api/v1/nodes/{pool.name}-0")
        taints = {(t["key"], t.get("value"), t["effect"]) for t in node["spec"]["taints"]}
        assert ("nvidia.com/gpu", "present", "NoSchedule") in taints, (cluster.id, taints)


OWN_WORKLOADS = {"Job", "JobSet", "LeaderWorkerSet", "RayCluster", "RayJob", "TrainJob"}
"""Kinds of the examples' own workloads Kueue admits (each example's program submits one with its queue label)."""


def test_the_plans_own_workloads_are_admitted_onto_their_queues_pools(cluster: Cluster) -> None:
    """An example's own workload (a RayCluster, a TrainJob, a LeaderWorkerSet) labelled for a LocalQueue is admitted
    by Kueue onto flavors of that queue's ClusterQueue. Deleted after (its workload with it), so the quota tests
    that follow start from an idle queue."""
    own = [
        m
        for m in cluster.plan.manifests
        if m["kind"] in OWN_WORKLOADS and QUEUE_LABEL in (m["metadata"].get("labels") or {})
    ]
    refused = {(r.kind, r.name) for r in cluster.refused}
    own = [
        m for m in own if (m["kind"], f"{m['metadata']['namespace']}/{m['metadata']['name']}") not in refused
    ]
    if not own:
        pytest.skip(
            f"{cluster.id}: the plan submits no workload of its own (or it was refused: see the first test)"
        )
    local = {
        (q["metadata"]["namespace"], q["metadata"]["name"]): q for q in cluster.plan.of_kind("LocalQueue")
    }
    queues = {q["metadata"]["name"]: q for q in cluster.plan.of_kind("ClusterQueue")}
    cp = cluster.cp
    try:
        # Again where gone: a plain Job or JobSet of the plan's was cleared after the first test (``no_jobs_left``);
        # the others stay as Kueue admitted them (re-applying would undo what its webhooks set).
        cp.apply([m for m in own if _gone(cp, m)])
        for m in own:
            meta = m["metadata"]
            queue = local[(meta["namespace"], meta["labels"][QUEUE_LABEL])]["spec"]["clusterQueue"]
            offered = {e["name"] for g in queues[queue]["spec"]["resourceGroups"] for e in g["flavors"]}
            w = admitted(cp, meta["namespace"], meta["name"], timeout=60)
            given = {
                f for ps in w["status"]["admission"]["podSetAssignments"] for f in ps["flavors"].values()
            }
            assert given and given <= offered, (cluster.id, m["kind"], meta["name"], given, offered)
    finally:
        for m in own:
            delete(cp, m)


def test_each_team_queue_admits_a_job_onto_its_pools_flavor_and_nodes(cluster: Cluster) -> None:
    found = placements(cluster)
    if not found:
        pytest.skip(f"{cluster.id}: no team queue with a GPU flavor (device-plugin resources) to submit to")
    cp = cluster.cp
    jobs = [job(f"fits-{i}", p, units=1, pods=2 if p.quota >= 2 else 1) for i, p in enumerate(found)]
    cp.apply(jobs)
    for j, p in zip(jobs, found, strict=True):
        name = j["metadata"]["name"]
        w = admitted(cp, p.namespace, name)
        flavors = w["status"]["admission"]["podSetAssignments"][0]["flavors"]
        assert flavors[p.resource] == p.flavor["metadata"]["name"], (cluster.id, p.namespace, flavors)
        nodes = bound_nodes(cp, p.namespace, f"job-name={name}", j["spec"]["parallelism"])
        assert_on_pool(cluster, nodes, p)


def _borrows_nothing(p: Placement) -> bool:
    """The queue is in no cohort, or may borrow none of the resource on the flavor (``borrowingLimit: 0``)."""
    if "cohortName" not in p.cluster_queue["spec"]:
        return True
    for group in p.cluster_queue["spec"]["resourceGroups"]:
        for entry in group["flavors"]:
            for r in entry["resources"]:
                if (entry["name"], r["name"]) == (p.flavor["metadata"]["name"], p.resource):
                    return str(r.get("borrowingLimit")) == "0"
    return False


def _own_quota_placement(cluster: Cluster) -> Placement:
    """A team queue that borrows nothing of its GPU resource and holds at least a node of it."""
    for p in placements(cluster):
        if _borrows_nothing(p) and p.quota >= p.per_node:
            return p
    pytest.skip(f"{cluster.id}: no team queue holding GPU quota it cannot borrow beyond")


def _next_flavor_offering(p: Placement, units: int, pods: int) -> str | None:
    """The first flavor after the placement's in its ClusterQueue whose own quota of the resource holds ``pods``
    pods of ``units``: where Kueue puts a job the placement's flavor has no room left for."""
    flavors = [e for g in p.cluster_queue["spec"]["resourceGroups"] for e in g["flavors"]]
    names = [e["name"] for e in flavors]
    for entry in flavors[names.index(p.flavor["metadata"]["name"]) + 1 :]:
        quota = next((_count(r["nominalQuota"]) for r in entry["resources"] if r["name"] == p.resource), 0)
        if quota >= units * pods:
            return str(entry["name"])
    return None


def test_two_jobs_over_the_quota_are_admitted_one_at_a_time(cluster: Cluster) -> None:
    """Each job takes a whole node's GPUs on just over half the nodes the quota holds: one fits, both do not; the
    second waits for the first, or, where the queue's next pool holds it, is admitted there at once."""
    p = _own_quota_placement(cluster)
    cp = cluster.cp
    pods = (p.quota // p.per_node) // 2 + 1
    first, second = (job(n, p, units=p.per_node, pods=pods, hold=True) for n in ("first", "second"))
    cp.apply([first])
    admitted(cp, p.namespace, "first")
    cp.apply([second])
    spill = _next_flavor_offering(p, p.per_node, pods)
    if spill is not None:  # flavor fungibility: the queue's next pool with room
        w = admitted(cp, p.namespace, "second")
        assert w["status"]["admission"]["podSetAssignments"][0]["flavors"][p.resource] == spill, cluster.id
        delete(cp, first)
        delete(cp, second)
        return
    message = pending_for_quota(cp, p.namespace, "second")
    assert "insufficient" in message.lower() and "quota" in message.lower(), (cluster.id, message)
    assert cp.get(f"/apis/batch/v1/namespaces/{p.namespace}/jobs/second")["spec"]["suspend"] is True
    delete(cp, first)
    w = admitted(cp, p.namespace, "second")
    assert (
        w["status"]["admission"]["podSetAssignments"][0]["flavors"][p.resource]
        == p.flavor["metadata"]["name"]
    )
    delete(cp, second)


def jobset(name: str, p: Placement, replicas: int, units: int) -> dict[str, Any]:
    pod = {
        "metadata": {"annotations": topology_annotations(p)},
        "spec": {"restartPolicy": "Never", "containers": [container(p.resource, units)]},
    }
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": name, "namespace": p.namespace, "labels": {QUEUE_LABEL: p.queue}},
        "spec": {
            "suspend": True,
            "replicatedJobs": [
                {
                    "name": "workers",
                    "replicas": replicas,
                    "template": {
                        "spec": {"parallelism": 1, "completions": 1, "backoffLimit": 0, "template": pod}
                    },
                }
            ],
        },
    }


def test_a_jobset_is_admitted_as_one_gang_or_not_at_all(cluster: Cluster) -> None:
    """JobSet's own controller makes the Jobs; Kueue admits the JobSet's pods together: two whole nodes at once,
    and a gang one node larger than the queue's quota gets no pod at all."""
    if "jobset" not in cluster.plan.releases:
        pytest.skip(f"{cluster.id}: the plan installs no JobSet")
    p = _own_quota_placement(cluster)
    cp = cluster.cp
    gang = jobset("gang", p, replicas=2 if p.quota >= 2 * p.per_node else 1, units=p.per_node)
    cp.apply([gang])
    w = admitted(cp, p.namespace, "gang")
    replicas = gang["spec"]["replicatedJobs"][0]["replicas"]
    assignment = w["status"]["admission"]["podSetAssignments"][0]
    assert assignment["count"] == replicas, (cluster.id, assignment)
    assert assignment["flavors"][p.resource] == p.flavor["metadata"]["name"], (cluster.id, assignment)
    assert _count(assignment["resourceUsage"][p.resource]) == replicas * p.per_node, (cluster.id, assignment)
    # Where the pods bind, not that each has a node of its own: kwok completes a Job's pod as soon as it runs
    # (tools/control-plane/controllers/kwok-stages.yaml, pod-complete), so the node the first pod freed may
    # rightly take the second.
    nodes = bound_nodes(cp, p.namespace, "jobset.sigs.k8s.io%2Fjobset-name%3Dgang", replicas)
    assert_on_pool(cluster, nodes, p)
    delete(cp, gang)
    too_big = jobset("too-big", p, replicas=p.quota // p.per_node + 1, units=p.per_node)
    cp.apply([too_big])
    message = pending_for_quota(cp, p.namespace, "too-big")
    assert "insufficient" in message.lower() and "quota" in message.lower(), (cluster.id, message)
    pods = cp.get(
        f"/api/v1/namespaces/{p.namespace}/pods?labelSelector=jobset.sigs.k8s.io%2Fjobset-name%3Dtoo-big"
    )
    assert pods["items"] == [], "a gang that does not fit must start no pod"
    delete(cp, too_big)


REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"


def test_a_job_requiring_one_block_lands_in_one_block(cluster: Cluster) -> None:
    topologies = {t["metadata"]["name"]: t for t in cluster.plan.of_kind("Topology")}
    tas = [p for p in placements(cluster) if p.flavor["spec"].get("topologyName") in topologies]
    if not tas:
        pytest.skip(f"{cluster.id}: no topology-aware flavor")
    cp = cluster.cp
    for i, p in enumerate(tas):
        levels = [lv["nodeLabel"] for lv in topologies[p.flavor["spec"]["topologyName"]]["spec"]["levels"]]
        block = levels[0]  # the broadest level; on a hostname-only Topology (AKS ND) one node
        first = cluster.nodes[f"{p.pool.name}-0"]["metadata"]["labels"][block]
        per_block = sum(
            1
            for name, n in cluster.nodes.items()
            if name.startswith(f"{p.pool.name}-") and n["metadata"]["labels"].get(block) == first
        )
        pods = min(per_block, p.quota // p.per_node)
        assert pods >= 1, (cluster.id, block, per_block)
        name = f"one-block-{i}"
        cp.apply([job(name, p, units=p.per_node, pods=pods, annotations={REQUIRED_TOPOLOGY: block})])
        w = admitted(cp, p.namespace, name)
        assert w["status"]["admission"]["podSetAssignments"][0].get("topologyAssignment"), cluster.id
        nodes = bound_nodes(cp, p.namespace, f"job-name={name}", pods)
        assert_on_pool(cluster, nodes, p)
        blocks = {cluster.nodes[n]["metadata"]["labels"][block] for n in nodes}
        assert len(blocks) == 1 and len(set(nodes)) == pods, (cluster.id, nodes, blocks)


# --- KServe ----------------------------------------------------------------------------------------------------

POD_FIELDS = (
    "nodeSelector",
    "tolerations",
    "affinity",
    "priorityClassName",
    "runtimeClassName",
    "schedulerName",
    "serviceAccountName",
    "securityContext",
    "volumes",
    "initContainers",
    "imagePullSecrets",
    "hostIPC",
    "shmSize",
)


def predictor_deployment(isvc: dict[str, Any], runtimes: list[dict[str, Any]]) -> dict[str, Any]:
    """What KServe's Standard mode makes of an InferenceService's predictor (kserve v0.15
    pkg/controller/v1beta1/inferenceservice/reconcilers/deployment): a Deployment ``<name>-predictor`` whose pod
    is the predictor's pod fields and one ``kserve-container`` running the model, with the service's labels
    (Kueue's queue label among them); the image is the serving runtime's that supports the model's format."""
    meta, predictor = isvc["metadata"], isvc["spec"]["predictor"]
    model = predictor.get("model") or {}
    if predictor.get("containers"):
        containers = predictor["containers"]
    else:
        fmt = (model.get("modelFormat") or {}).get("name")
        images = [
            r["spec"]["containers"][0]["image"]
            for r in runtimes
            if any(f.get("name") == fmt for f in r["spec"].get("supportedModelFormats", []))
        ]
        c = {"name": "kserve-container", "image": images[0] if images else PAUSE}
        c.update({k: model[k] for k in ("args", "env", "resources") if k in model})
        containers = [c]
    pod = {k: v for k, v in predictor.items() if k in POD_FIELDS and k != "shmSize"}
    labels = {
        **meta.get("labels", {}),
        "serving.kserve.io/inferenceservice": meta["name"],
        "app": f"isvc.{meta['name']}-predictor",
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": f"{meta['name']}-predictor", "namespace": meta["namespace"], "labels": labels},
        "spec": {
            "replicas": predictor.get("minReplicas", 1) or 1,
            "selector": {"matchLabels": {"app": labels["app"]}},
            "template": {
                "metadata": {"labels": labels, "annotations": meta.get("annotations", {})},
                "spec": {**pod, "containers": containers},
            },
        },
    }


def test_each_kserve_predictor_is_a_valid_deployment_bound_to_its_pool(cluster: Cluster) -> None:
    services = cluster.plan.of_kind("InferenceService")
    if not services:
        pytest.skip(f"{cluster.id}: no KServe InferenceService")
    runtimes = [
        o for objs in cluster.plan.releases.values() for o in objs if o["kind"] == "ClusterServingRuntime"
    ]
    cp = cluster.cp
    deployments = [predictor_deployment(s, runtimes) for s in services]
    assert [str(r) for r in cp.try_apply(deployments)] == [], cluster.id
    for d, s in zip(deployments, services, strict=True):
        pool = s["spec"]["predictor"]["nodeSelector"]["gpu-platform.io/pool"]
        selector = f"app%3D{d['spec']['selector']['matchLabels']['app']}"
        nodes = bound_nodes(cp, d["metadata"]["namespace"], selector, d["spec"]["replicas"])
        assert all(n.startswith(f"{pool}-") for n in nodes), (cluster.id, s["metadata"]["name"], nodes)


def test_deployments_outside_team_namespaces_never_wait_on_kueue(cluster: Cluster) -> None:
    """With Kueue's controller down (its webhooks still installed: the seconds after its chart installs them, or
    an outage), a Deployment outside the team namespaces, as the GPU Operator's, is still accepted: Kueue's pod
    and Deployment webhooks (``failurePolicy: Fail``) select the team namespaces only. Kueue is started again after
    (the next stack's reset needs it to lift its objects' finalizers)."""
    mutating = [
        o for o in cluster.plan.releases.get("kueue", []) if o["kind"] == "MutatingWebhookConfiguration"
    ]
    hooks = [h for o in mutating for h in o["webhooks"] if h["name"] in ("mpod.kb.io", "mdeployment.kb.io")]
    if not any(h["failurePolicy"] == "Fail" for h in hooks):
        pytest.skip(f"{cluster.id}: Kueue's pod and Deployment integrations are off")
    cp = cluster.cp
    control_plane_script.stop_process(cp, "kueue")
    namespace = "gpu-platform-operator-probe"
    labels = {"app": "probe"}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "probe", "namespace": namespace},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "main", "image": PAUSE}]},
            },
        },
    }
    cp.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}])
    try:
        assert [str(r) for r in cp.try_apply([deployment])] == [], cluster.id
    finally:
        cp.delete(deployment)
        control_plane_script.start_kueue(cp, cluster.plan.releases["kueue"])
