"""``cluster.autoscaler: karpenter``: an EKS stack whose GPU pools are Karpenter NodePools (issue 16).

Karpenter with its IAM, one NodePool + EC2NodeClass per GPU pool carrying the managed pools' labels and
taints, the cluster's own subnets and security group tagged for discovery, no Cluster Autoscaler and no
managed GPU node group; what Karpenter cannot size is refused naming the key.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gpu_platform.errors import ConfigError
from gpu_platform.offline import Plan
from gpu_platform.scheduling import pool_labels
from gpu_platform.stack import load_platform

NODEPOOL = "kubernetes:karpenter.sh/v1:NodePool"
NODECLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
RELEASE = "kubernetes:helm.sh/v3:Release"
STACK: dict[str, Any] = {
    "cloud": "eks",
    "cluster": {
        "name": "gpu-karp",
        "region": "us-east-1",
        "kubernetesVersion": "1.34",
        "autoscaler": "karpenter",
        "systemPool": {"machineType": "m6i.large", "minNodes": 2, "maxNodes": 3},
    },
    "gpuPools": [
        {"name": "l4-spot", "machineType": "g6.2xlarge", "maxNodes": 4, "spot": True},
        {
            "name": "h100",
            "machineType": "p5.48xlarge",
            "maxNodes": 2,
            "taints": [{"key": "workload", "value": "training", "effect": "NoSchedule"}],
        },
    ],
    "kueue": {"teams": [{"name": "ml", "clusterQueue": "gpu"}]},
}


@pytest.fixture(scope="module")
def plan() -> Plan:
    from gpu_platform.offline import run_plan
    from tests.conftest import REPO

    return run_plan(REPO, "prod", config_override=copy.deepcopy(STACK))


def test_every_gpu_pool_is_a_tainted_karpenter_node_pool(plan: Plan) -> None:
    spec = load_platform(copy.deepcopy(STACK))
    pools = {r.inputs["metadata"]["name"]: r.inputs["spec"] for r in plan.by_type(NODEPOOL)}
    assert set(pools) == {p.name for p in spec.pools}
    for pool in spec.pools:
        template = pools[pool.name]["template"]
        taints = template["spec"]["taints"]
        assert taints[0] == {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
        # The same labels as a managed node group of the pool: operator, Kueue flavors and KServe unchanged.
        assert template["metadata"]["labels"] == pool_labels(pool, spec.driver)
        assert pools[pool.name]["limits"]["nvidia.com/gpu"] == str(pool.gpus_per_node * pool.max_nodes)
    classes = {r.inputs["metadata"]["name"] for r in plan.by_type(NODECLASS)}
    assert classes == set(pools)
    # No managed GPU node group, no Cluster Autoscaler next to Karpenter.
    groups = [
        r
        for r in plan.by_type("aws:eks/nodeGroup:NodeGroup")
        if "gpu-platform.io/pool" in (r.inputs.get("labels") or {})
    ]
    assert groups == []
    assert not [r for r in plan.by_type(RELEASE) if r.inputs["chart"] == "cluster-autoscaler"]


def test_karpenter_runs_with_pod_identity_on_the_system_nodes(plan: Plan) -> None:
    release = plan.one(RELEASE, "karpenter-helm").inputs
    assert release["values"]["settings"]["clusterName"] == "gpu-karp"
    assert release["values"]["settings"]["interruptionQueue"]
    system = next(r for r in plan.by_type("aws:eks/nodeGroup:NodeGroup"))
    affinity = json.dumps(release["values"]["affinity"])
    assert system.inputs["nodeGroupName"] in affinity
    trust = json.loads(plan.one("aws:iam/role:Role", "karpenter-controller-role").inputs["assumeRolePolicy"])
    assert trust["Statement"][0]["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    association = plan.one("aws:eks/podIdentityAssociation:PodIdentityAssociation").inputs
    assert association["namespace"] == "kube-system"
    assert (
        plan.one("aws:eks/addon:Addon", "eks-pod-identity-agent").inputs["addonName"]
        == "eks-pod-identity-agent"
    )


def test_the_cluster_tags_its_own_subnets_and_security_group_for_discovery(plan: Plan) -> None:
    private = [r for r in plan.by_type("aws:ec2/subnet:Subnet") if "-private-" in r.name]
    assert private and all(r.inputs["tags"]["karpenter.sh/discovery"] == "gpu-karp" for r in private)
    public = [r for r in plan.by_type("aws:ec2/subnet:Subnet") if "-public-" in r.name]
    assert all("karpenter.sh/discovery" not in r.inputs["tags"] for r in public)  # nodes never go public
    (sg_tag,) = plan.by_type("aws:ec2/tag:Tag")
    assert sg_tag.inputs == {
        "key": "karpenter.sh/discovery",
        "resourceId": "sg-gpu-karp-cluster",
        "value": "gpu-karp",
    }
    for node_class in plan.by_type(NODECLASS):
        terms = node_class.inputs["spec"]["subnetSelectorTerms"]
        assert terms == [{"tags": {"karpenter.sh/discovery": "gpu-karp"}}]


def _with(path: list[Any], value: Any) -> dict[str, Any]:
    cfg = copy.deepcopy(STACK)
    node = cfg
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return cfg


@pytest.mark.parametrize(
    ("cfg", "line"),
    [
        (
            _with(["gpuPools", 1, "efa"], True),
            "gpu-platform:gpuPools[1].efa: EFA pools need every EFA interface",
        ),
        (
            _with(["gpuPools", 0, "minNodes"], 1),
            "gpu-platform:gpuPools[0].minNodes: Karpenter creates nodes only",
        ),
        (
            _with(["gpuPools", 0, "sharing"], {"mode": "time-slicing", "replicas": 4}),
            "gpu-platform:gpuPools[0].sharing.mode: Karpenter sizes nodes by the instance type's whole",
        ),
        (
            _with(["cluster", "systemPool", "minNodes"], 1),
            "gpu-platform:cluster.systemPool.minNodes: 1 is too few with cluster.autoscaler karpenter",
        ),
    ],
)
def test_what_karpenter_cannot_do_is_refused_naming_the_key(cfg: dict[str, Any], line: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_platform(cfg)
    assert str(err.value).startswith(line), str(err.value)


def test_karpenter_is_refused_on_an_attached_cluster() -> None:
    cfg = _with(
        ["cluster"],
        {
            "name": "gpu-karp",
            "region": "us-east-1",
            "create": False,
            "autoscaler": "karpenter",
            "kubeconfig": "apiVersion: v1",
            "existingNodeRoleArn": "arn:aws:iam::111122223333:role/nodes",
            "existingSubnetIds": ["subnet-0a0a0a0a"],
        },
    )
    with pytest.raises(ConfigError) as err:
        load_platform(cfg)
    assert "gpu-platform:cluster.autoscaler: karpenter only on a cluster the stack creates" in str(err.value)


ADDON = "aws:eks/addon:Addon"


@pytest.mark.parametrize("autoscaler", ["karpenter", "cluster-autoscaler"])
def test_one_pod_identity_agent_whichever_autoscaler_owns_it(autoscaler: str) -> None:
    """Switching ``cluster.autoscaler`` keeps the add-on's URN (EKS refuses a second ``eks-pod-identity-agent``);
    a stack made before it lived at the top finds it through its aliases: the URNs it had under each owner."""
    from gpu_platform.offline import run_plan
    from tests.conftest import REPO

    cfg = copy.deepcopy(STACK)
    cfg["cluster"]["autoscaler"] = autoscaler
    plan = run_plan(REPO, "prod", config_override=cfg)
    (addon,) = [r for r in plan.by_type(ADDON) if r.inputs["addonName"] == "eks-pod-identity-agent"]
    assert addon.urn == f"urn:pulumi:prod::gpu-platform::{ADDON}::eks-pod-identity-agent"
    assert addon.options["aliases"] == [
        f"urn:pulumi:prod::gpu-platform::gpu-platform:index:ClusterAutoscaler${ADDON}::cluster-autoscaler-pod-identity-agent",
        f"urn:pulumi:prod::gpu-platform::gpu-platform:index:EksKarpenter${ADDON}::karpenter-pod-identity-agent",
    ]
    # The controller starts after it: its credentials come through the agent.
    owner = "karpenter-helm" if autoscaler == "karpenter" else "cluster-autoscaler-helm"
    assert addon.urn in plan.one(RELEASE, owner).depends_on


def test_node_classes_pin_the_ami_release_and_bottlerocket_is_refused(plan: Plan) -> None:
    """The stack's Karpenter pools boot the pinned AL2023 release; Bottlerocket, which it pins none of, is
    refused at the pool's image (never ``bottlerocket@<an AL2023 release>``)."""
    from gpu_platform import versions

    aliases = {r.inputs["spec"]["amiSelectorTerms"][0]["alias"] for r in plan.by_type(NODECLASS)}
    assert aliases == {f"al2023@{versions.EKS_AL2023_AMI_RELEASE}"}
    raw = copy.deepcopy(STACK)
    raw["gpuPools"][0]["image"] = "BOTTLEROCKET_x86_64_NVIDIA"
    with pytest.raises(ConfigError) as err:
        load_platform(raw)
    found = dict(err.value.problems)
    assert "no AMI release the stack pins" in found["gpu-platform:gpuPools[0].image"]


def test_a_reserved_node_group_needs_the_reservations_zone_but_a_karpenter_pool_does_not() -> None:
    raw = copy.deepcopy(STACK)
    block = {"source": "capacity-block", "reservation": "cr-0123456789abcdef0", "nodes": 2}
    raw["gpuPools"][1]["capacity"] = [block]
    load_platform(copy.deepcopy(raw))  # Karpenter reads the zone from the reservation
    raw["cluster"].pop("autoscaler")  # managed node groups with the Cluster Autoscaler
    with pytest.raises(ConfigError) as err:
        load_platform(copy.deepcopy(raw))
    assert "lives in one Availability Zone" in dict(err.value.problems)["gpu-platform:gpuPools[1].zones"]
    raw["gpuPools"][1]["zones"] = ["us-east-1a"]
    raw["cluster"]["zones"] = ["us-east-1a", "us-east-1b"]
    load_platform(raw)
