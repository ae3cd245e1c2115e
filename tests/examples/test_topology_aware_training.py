"""examples/topology-aware-training: one stack per cloud plans offline with Kueue TAS on a multi-node pool.

GKE A3 Mega (compact placement), GKE A4 (a reservation), GKE A4X (one NVL72 rack per pool, ComputeDomains), EKS
p5 (EFA + cluster placement group) and AKS ND H100 v5 (InfiniBand): each plan holds the cloud's Topology, the pool's flavor naming it, and the placement the cloud
offers; every Kueue object validates against Kueue 0.19.2's CRDs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_platform.cli import main
from tests.conftest import REPO, planned_stack
from tests.support import crds

EXAMPLE = REPO / "examples" / "topology-aware-training"
KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"
STACKS = {
    "gke-a3-mega": ("a3-mega", "gce-topology", "cloud.google.com/gce-topology-block"),
    "gke-a4": ("b200", "gce-topology", "cloud.google.com/gce-topology-block"),
    "gke-a4x": ("gb200-rack-1", "gce-topology-a4x", "cloud.google.com/gce-topology-block"),
    "example": ("h100-efa", "ec2-network-topology", "topology.k8s.aws/network-node-layer-1"),
    "aks-nd-h100": ("ndh100", "hostname", "kubernetes.io/hostname"),
}


def test_every_stack_file_is_one_of_these() -> None:
    assert sorted(p.name.split(".")[1] for p in EXAMPLE.glob("Pulumi.*.yaml")) == sorted(STACKS)


@pytest.mark.parametrize("stack", sorted(STACKS))
def test_the_cli_plans_the_stack(tmp_path: Path, stack: str) -> None:
    assert (
        main(["plan", "--project", str(EXAMPLE), "--stack", stack, "--out", str(tmp_path), "--policy"]) == 0
    )


@pytest.mark.parametrize("stack", sorted(STACKS))
def test_the_pool_flavor_names_the_cloud_topology(stack: str) -> None:
    pool, name, top = STACKS[stack]
    p = planned_stack(stack, EXAMPLE)
    topologies = {t.inputs["metadata"]["name"]: t for t in p.by_type(KUEUE + "Topology")}
    # The pool's, and the one-level hostname Topology of the system pool's twin flavor (the queue is TAS-only).
    assert set(topologies) == {name, "hostname"}
    topology = topologies[name]
    system = next(f for f in p.by_type(KUEUE + "ResourceFlavor") if f.inputs["metadata"]["name"] != pool)
    assert system.inputs["metadata"]["name"] == "system-cpu-hostname"
    assert system.inputs["spec"]["topologyName"] == "hostname"
    levels = [lvl["nodeLabel"] for lvl in topology.inputs["spec"]["levels"]]
    assert levels[0] == top and levels[-1] == "kubernetes.io/hostname"
    flavor = next(f for f in p.by_type(KUEUE + "ResourceFlavor") if f.inputs["metadata"]["name"] == pool)
    assert flavor.inputs["spec"]["topologyName"] == name
    # The flavor waits for its Topology; the Topology's levels are immutable, so a change replaces it first.
    assert topology.urn in flavor.depends_on
    assert topology.options["deleteBeforeReplace"] and topology.options["replaceOnChanges"] == ["spec.levels"]
    for obj in p.by_type(KUEUE):
        assert crds.problems_of(obj.inputs) == [], obj.name


@pytest.mark.parametrize("stack", sorted(STACKS))
def test_the_queue_covers_everything_the_nodes_offer(stack: str) -> None:
    """The resources a training pod asks for on these nodes (GPUs; EFA devices and huge pages on EKS) are all
    quota'd, so a job requesting them is admitted rather than refused for an uncovered resource."""
    pool = STACKS[stack][0]
    (cq,) = planned_stack(stack, EXAMPLE).by_type(KUEUE + "ClusterQueue")
    (group,) = cq.inputs["spec"]["resourceGroups"]
    flavor = next(f for f in group["flavors"] if f["name"] == pool)
    quota = {r["name"]: r["nominalQuota"] for r in flavor["resources"]}
    if stack == "gke-a4x":  # GPUs claimed through DRA: one NVL72 rack, 18 nodes of 4
        assert quota["dra.gpu-platform.io/gpu"] == 72 and "nvidia.com/gpu" not in quota
        assert (
            quota["dra.gpu-platform.io/compute-domain-channel"] == 72
        )  # a ComputeDomain's pods are admitted
        return
    assert quota["nvidia.com/gpu"] == 8 * (8 if stack == "gke-a4" else 4)
    if stack == "example":
        assert quota["vpc.amazonaws.com/efa"] == 4 * 32
        assert quota["hugepages-2Mi"] == f"{4 * 5120}Mi"


def test_gke_a3_mega_is_compactly_placed_in_its_one_zone() -> None:
    pools = [
        r
        for r in planned_stack("gke-a3-mega", EXAMPLE).by_type("gcp:container/nodePool:NodePool")
        if r.inputs["nodeConfig"].get("guestAccelerators")
    ]
    (pool,) = pools
    assert pool.inputs["placementPolicy"] == {"type": "COMPACT"}
    assert pool.inputs["nodeLocations"] == ["us-central1-c"]
    assert pool.inputs["nodeConfig"]["machineType"] == "a3-megagpu-8g"


def test_gke_a4_takes_its_placement_from_the_reservation() -> None:
    (pool,) = [
        r
        for r in planned_stack("gke-a4", EXAMPLE).by_type("gcp:container/nodePool:NodePool")
        if r.inputs["nodeConfig"].get("guestAccelerators")
    ]
    assert "placementPolicy" not in pool.inputs
    affinity = pool.inputs["nodeConfig"]["reservationAffinity"]
    assert affinity["consumeReservationType"] == "SPECIFIC_RESERVATION"
    assert affinity["values"] == ["a4-training-reservation"]


def test_eks_p5_has_a_cluster_placement_group_and_every_efa_device() -> None:
    p = planned_stack("example", EXAMPLE)
    (group,) = p.by_type("aws:ec2/placementGroup:PlacementGroup")
    assert group.inputs["strategy"] == "cluster"
    (lt,) = p.by_type("aws:ec2/launchTemplate:LaunchTemplate")
    assert "placement" in lt.inputs and len(lt.inputs["networkInterfaces"]) == 32
    (ng,) = [
        r for r in p.by_type("aws:eks/nodeGroup:NodeGroup") if r.inputs.get("amiType", "").endswith("NVIDIA")
    ]
    assert len(ng.inputs["subnetIds"]) == 1  # one zone: the placement group's


def test_gke_a4x_is_one_nvl72_rack_with_compute_domains() -> None:
    p = planned_stack("gke-a4x", EXAMPLE)
    (policy,) = p.by_type("gcp:compute/resourcePolicy:ResourcePolicy")
    assert policy.inputs["workloadPolicy"] == {"type": "HIGH_THROUGHPUT", "acceleratorTopology": "1x72"}
    (pool,) = [
        r
        for r in p.by_type("gcp:container/nodePool:NodePool")
        if r.inputs["nodeConfig"].get("guestAccelerators")
    ]
    assert pool.inputs["placementPolicy"] == {"type": "COMPACT", "policyName": policy.inputs["name"]}
    assert pool.inputs["autoscaling"]["totalMaxNodeCount"] == 18
    assert pool.inputs["nodeConfig"]["reservationAffinity"]["values"] == ["a4x-training-reservation"]
    dra = p.one("kubernetes:helm.sh/v3:Release", "dra-driver-helm").inputs["values"]
    assert dra["resources"]["computeDomains"] == {"enabled": True}
    (topology,) = [t for t in p.by_type(KUEUE + "Topology") if t.inputs["metadata"]["name"] != "hostname"]
    levels = [lvl["nodeLabel"] for lvl in topology.inputs["spec"]["levels"]]
    assert "cloud.google.com/gke-nodepool" in levels
