"""The cluster ``gpu-platform verify`` expects, as API objects: what a cluster that holds exactly the plan returns
(the drift tests change one thing in it), and the expectation of each stack, planned once per test session."""

from __future__ import annotations

import functools
from collections import defaultdict
from pathlib import Path
from typing import Any

from gpu_platform.scheduling import POOL_LABEL
from gpu_platform.sharing import resource_quantity
from gpu_platform.verify.expected import Expected, ExpectedPool
from gpu_platform.verify.load import load_expected
from gpu_platform.verify.snapshot import HelmRelease, Snapshot

REPO = Path(__file__).resolve().parents[2]


@functools.cache
def stack_expectation(stack: str) -> Expected:
    """The expectation of the repository stack ``stacks/Pulumi.<stack>.yaml``, planned once."""
    return load_expected(REPO, stack)


def taint(text: str) -> dict[str, str]:
    """``key=value:Effect`` as a node's ``spec.taints`` entry."""
    key_value, effect = text.rsplit(":", 1)
    key, _, value = key_value.partition("=")
    return {"key": key, "value": value, "effect": effect}


def pool_node(pool: ExpectedPool, index: int) -> dict[str, Any]:
    """A node of the pool as the plan says it is: its labels, taints and extended resources."""
    name = f"{pool.name}-{index}"
    resources = {k: str(resource_quantity(k, v)) for k, v in pool.allocatable.items()}
    resources.update({"cpu": "8", "memory": "32Gi", "pods": "110"})
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **pool.labels}},
        "spec": {"taints": [taint(t) for t in pool.taints]},
        "status": {
            "capacity": dict(resources),
            "allocatable": dict(resources),
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def _cpu_node(name: str, labels: dict[str, str]) -> dict[str, Any]:
    resources = {"cpu": "8", "memory": "32Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **labels}},
        "spec": {},
        "status": {"capacity": resources, "allocatable": dict(resources)},
    }


def cluster_queue(name: str, quotas: dict[tuple[str, str], Any]) -> dict[str, Any]:
    flavors: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for (flavor, resource), quota in quotas.items():
        flavors[flavor].append({"name": resource, "nominalQuota": str(quota)})
    covered = sorted({r for (_, r) in quotas})
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": name},
        "spec": {
            "resourceGroups": [
                {
                    "coveredResources": covered,
                    "flavors": [{"name": f, "resources": r} for f, r in flavors.items()],
                }
            ]
        },
        "status": {
            "conditions": [{"type": "Active", "status": "True", "reason": "Ready", "message": "Can admit"}]
        },
    }


def operand_pod(namespace: str, app: str, node: str) -> dict[str, Any]:
    return {
        "metadata": {"name": f"{app}-{node}", "namespace": namespace, "labels": {"app": app}},
        "spec": {"nodeName": node},
        "status": {"phase": "Running"},
    }


def planned_snapshot(expected: Expected, nodes_per_pool: int = 1) -> Snapshot:
    """A snapshot of a cluster that holds exactly what ``expected`` says, ``nodes_per_pool`` nodes in each pool
    (at least its minimum)."""
    nodes = [pool_node(p, i) for p in expected.pools for i in range(max(nodes_per_pool, p.min_nodes))]
    pools = {p.name for p in expected.pools}
    nodes += [  # a CPU node for each flavor that selects no pool (the system pool's)
        _cpu_node(f"{f.name}-0", dict(f.node_labels))
        for f in expected.flavors
        if f.node_labels.get(POOL_LABEL) not in pools
    ]
    pods = []
    if expected.operands is not None:
        ns = expected.operands.namespace
        pods = [operand_pod(ns, app, n["metadata"]["name"]) for n in nodes for app in expected.operands.apps]
    return Snapshot(
        nodes=nodes,
        clusterQueues=[cluster_queue(q.name, dict(q.quotas)) for q in expected.cluster_queues],
        localQueues=[
            {
                "metadata": {"name": q.name, "namespace": q.namespace},
                "spec": {"clusterQueue": q.cluster_queue},
            }
            for q in expected.local_queues
        ],
        resourceFlavors=[
            {"metadata": {"name": f.name}, "spec": {"nodeLabels": dict(f.node_labels)}}
            for f in expected.flavors
        ],
        pods=pods,
        helmReleases=[
            HelmRelease(
                name=r.name,
                namespace=r.namespace,
                revision=1,
                status="deployed",
                chart=r.chart,
                version=r.version,
            )
            for r in expected.releases
        ],
    )
