"""Kueue Topology-Aware Scheduling: a ``Topology`` from the node labels each cloud sets on the machine type, named
by the pool's ResourceFlavor, accepted by Kueue 0.19.2's CRDs (schema and CEL)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpu_platform.addons.kueue.plan import KueueObjects
from gpu_platform.catalog.topology import HOST_TOPOLOGY, HOSTNAME_LABEL
from gpu_platform.cloud_facts import profile_of
from gpu_platform.cloud_facts.eks.topology import EC2_TOPOLOGY
from gpu_platform.cloud_facts.gke.topology import GCE_A4X_TOPOLOGY, GCE_TOPOLOGY
from gpu_platform.errors import ArgumentsError
from tests.support import crds
from tests.support.plans import plan_kueue

CASES = [
    ("gke", "a3-megagpu-8g", GCE_TOPOLOGY),
    ("gke", "a3-ultragpu-8g", GCE_TOPOLOGY),
    ("gke", "a4-highgpu-8g", GCE_TOPOLOGY),
    ("gke", "a4x-highgpu-4g", GCE_A4X_TOPOLOGY),
    ("eks", "p5.48xlarge", EC2_TOPOLOGY),
    ("eks", "p4d.24xlarge", EC2_TOPOLOGY),
    ("eks", "g6e.48xlarge", EC2_TOPOLOGY),
    ("aks", "Standard_ND96isr_H100_v5", HOST_TOPOLOGY),
]


NVL72_POOL: dict[str, Any] = {
    "zones": ["us-central1-b"],
    "capacity": [{"source": "reservation", "reservation": "gb200-block"}],
}
"""What an A4X pool needs beside its machine type: one zone and a reservation (its NVL72 workload policy)."""


def _objects(cloud: str, machine: str, **pool: Any) -> KueueObjects:
    args = {
        "cloud": cloud,
        "pools": [{"name": "train", "machine_type": machine, "max_nodes": 4, "topology": True, **pool}],
        "teams": [{"name": "ml", "cluster_queue": "gpu"}],
    }
    return plan_kueue(args).objects


@pytest.mark.parametrize(("cloud", "machine", "topology"), CASES, ids=[c[1] for c in CASES])
def test_flavor_names_the_machine_topology_and_both_validate(cloud: str, machine: str, topology: Any) -> None:
    objs = _objects(cloud, machine, **(NVL72_POOL if machine.startswith("a4x-") else {}))
    (topo,) = objs.topologies
    assert topo["metadata"]["name"] == topology.name
    assert [lvl["nodeLabel"] for lvl in topo["spec"]["levels"]] == list(topology.levels)
    (flavor,) = [f for f in objs.flavors if f["metadata"]["name"] == "train"]
    assert flavor["spec"]["topologyName"] == topology.name
    # TAS ignores webhook-added tolerations: the GPU taint's toleration is on the flavor.
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in flavor["spec"][
        "tolerations"
    ]
    assert crds.problems_of(topo) == []
    assert crds.problems_of(flavor) == []
    # Topologies first: the component creates them before the flavors that name them.
    assert next(iter(objs.custom_resources()))["kind"] == "Topology"


def test_the_cloud_labels_are_the_documented_ones() -> None:
    assert GCE_TOPOLOGY.levels == (
        "cloud.google.com/gce-topology-block",
        "cloud.google.com/gce-topology-subblock",
        "cloud.google.com/gce-topology-host",
        HOSTNAME_LABEL,
    )
    assert EC2_TOPOLOGY.levels == (
        "topology.k8s.aws/network-node-layer-1",
        "topology.k8s.aws/network-node-layer-2",
        "topology.k8s.aws/network-node-layer-3",
        HOSTNAME_LABEL,
    )


def test_machines_without_topology_labels() -> None:
    """Only the documented families: GKE A3 High, A2 and G2 get no gce-topology labels; EC2 describes no
    topology for g5/g6; AKS NC sizes have no InfiniBand."""
    for cloud, machine in (
        ("gke", "a3-highgpu-8g"),
        ("gke", "g2-standard-96"),
        ("eks", "g6.48xlarge"),
        ("eks", "g5.48xlarge"),
        ("aks", "Standard_NC80adis_H100_v5"),
    ):
        found = profile_of(cloud).machine(machine)
        assert found is not None and found.topology is None, machine
    with pytest.raises(
        ArgumentsError, match=r"pools\[0\]\.topology: g6\.48xlarge nodes carry no network topology"
    ):
        _objects("eks", "g6.48xlarge")


def test_pools_without_topology_get_no_topology_name() -> None:
    objs = _objects("eks", "p5.48xlarge", topology=False)
    assert objs.topologies == []
    assert all("topologyName" not in f["spec"] for f in objs.flavors)


def test_two_pools_of_one_topology_share_one_object() -> None:
    args = {
        "cloud": "gke",
        "pools": [
            {"name": "a3m", "machine_type": "a3-megagpu-8g", "max_nodes": 2, "topology": True},
            {"name": "a4", "machine_type": "a4-highgpu-8g", "max_nodes": 2, "topology": True},
        ],
        "teams": [{"name": "ml", "cluster_queue": "gpu"}],
    }
    objs = plan_kueue(args).objects
    assert [t["metadata"]["name"] for t in objs.topologies] == ["gce-topology"]
    assert {f["spec"].get("topologyName") for f in objs.flavors if f["metadata"]["name"] != "system"} == {
        "gce-topology"
    }


def test_the_crd_check_can_fail() -> None:
    """The CEL rules bite: hostname above another level, or a level twice, is refused."""
    (topo,) = _objects("eks", "p5.48xlarge").topologies
    bad = copy.deepcopy(topo)
    bad["spec"]["levels"].reverse()
    assert any("lowest level" in p for p in crds.problems_of(bad))
    twice = copy.deepcopy(topo)
    twice["spec"]["levels"].insert(0, twice["spec"]["levels"][0])
    assert any("unique" in p for p in crds.problems_of(twice))


SYSTEM_FLAVOR = {"node_labels": {"node.example.com/role": "cpu"}, "cpus": 10, "memory_gib": 40}


def _queue_flavors(objs: KueueObjects, queue: str) -> list[str]:
    (cq,) = [q for q in objs.cluster_queues if q["metadata"]["name"] == queue]
    return [f["name"] for g in cq["spec"]["resourceGroups"] for f in g["flavors"]]


def _system_nominal(objs: KueueObjects, resource: str) -> int:
    return sum(
        int(str(r["nominalQuota"]))
        for q in objs.cluster_queues
        for g in q["spec"]["resourceGroups"]
        for f in g["flavors"]
        if f["name"].startswith("system-cpu")
        for r in f["resources"]
        if r["name"] == resource
    )


def test_a_queue_of_topology_aware_pools_only_lists_the_system_pool_as_topology_aware_too() -> None:
    """Kueue treats a ClusterQueue whose flavors are all topology-aware as TAS-only and schedules every pod set
    with TAS; with one plain flavor beside them (the system flavor) a topology-aware flavor refuses every pod set
    that asks for no topology, so ordinary GPU jobs were never admitted. The queue lists the system pool's
    hostname-topology twin instead, and the plain system flavor is not made when no queue lists it."""
    args = {
        "cloud": "eks",
        "pools": [{"name": "train", "machine_type": "p5.48xlarge", "max_nodes": 4, "topology": True}],
        "teams": [{"name": "ml", "cluster_queue": "gpu"}],
        "system_flavor": SYSTEM_FLAVOR,
    }
    objs = plan_kueue(args).objects
    assert _queue_flavors(objs, "gpu") == ["system-cpu-hostname", "train"]
    flavors = {f["metadata"]["name"]: f for f in objs.flavors}
    assert set(flavors) == {"system-cpu-hostname", "train"}
    assert flavors["system-cpu-hostname"]["spec"] == {
        "nodeLabels": {"node.example.com/role": "cpu"},
        "topologyName": "hostname",
    }
    assert [t["metadata"]["name"] for t in objs.topologies] == ["ec2-network-topology", "hostname"]
    (host,) = [t for t in objs.topologies if t["metadata"]["name"] == "hostname"]
    assert host["spec"]["levels"] == [{"nodeLabel": HOSTNAME_LABEL}]
    assert _system_nominal(objs, "cpu") == 10
    for obj in [*objs.topologies, *objs.flavors, *objs.cluster_queues]:
        assert crds.problems_of(obj) == [], obj["metadata"]["name"]


def test_queues_with_a_plain_gpu_flavor_keep_the_plain_system_flavor_and_the_shares_still_add_up() -> None:
    args = {
        "cloud": "eks",
        "pools": [
            {"name": "train", "machine_type": "p5.48xlarge", "max_nodes": 4, "topology": True},
            {"name": "dev", "machine_type": "g6.12xlarge", "max_nodes": 2},
        ],
        "cluster_queues": [{"name": "tas", "pools": ["train"]}, {"name": "plain", "pools": ["dev"]}],
        "teams": [{"name": "ml", "cluster_queue": "tas"}, {"name": "web", "cluster_queue": "plain"}],
        "system_flavor": SYSTEM_FLAVOR,
    }
    objs = plan_kueue(args).objects
    assert _queue_flavors(objs, "tas") == ["system-cpu-hostname", "train"]
    assert _queue_flavors(objs, "plain") == ["system-cpu", "dev"]
    assert [f["metadata"]["name"] for f in objs.flavors][:2] == ["system-cpu", "system-cpu-hostname"]
    assert _system_nominal(objs, "cpu") == 10


def test_the_system_twin_shares_the_topology_of_an_aks_infiniband_pool() -> None:
    """AKS ND pools' topology is hostname only too: one Topology object serves both flavors."""
    args = {
        "cloud": "aks",
        "pools": [
            {"name": "nd", "machine_type": "Standard_ND96isr_H100_v5", "max_nodes": 2, "topology": True}
        ],
        "teams": [{"name": "ml", "cluster_queue": "gpu"}],
        "system_flavor": SYSTEM_FLAVOR,
    }
    objs = plan_kueue(args).objects
    assert [t["metadata"]["name"] for t in objs.topologies] == [HOST_TOPOLOGY.name]
    assert _queue_flavors(objs, "gpu") == ["system-cpu-hostname", "nd"]
