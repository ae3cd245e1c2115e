"""``fabric-resources-agree``: Topology references, fabric device plugins and Kueue coverage agree; the plans of
the library's own training stacks pass it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpu_platform.offline import run_plan
from gpu_platform.policy import PolicyResource
from gpu_platform.policy import rules as R
from gpu_platform.policy.offline import to_policy_resource
from tests.conftest import REPO
from tests.policy.test_rules import eks_group, only, res

KUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:"
RULE = "fabric-resources-agree"


def flavor(topology: str | None) -> PolicyResource:
    spec: dict[str, Any] = {"nodeLabels": {"gpu-platform.io/pool": "h100"}}
    if topology:
        spec["topologyName"] = topology
    return res(KUEUE + "ResourceFlavor", {"metadata": {"name": "h100"}, "spec": spec}, "h100")


def topology(name: str) -> PolicyResource:
    levels = [{"nodeLabel": "kubernetes.io/hostname"}]
    return res(KUEUE + "Topology", {"metadata": {"name": name}, "spec": {"levels": levels}}, name)


def queue(*covered: str) -> PolicyResource:
    group = {"coveredResources": list(covered), "flavors": []}
    return res(
        KUEUE + "ClusterQueue", {"metadata": {"name": "gpu"}, "spec": {"resourceGroups": [group]}}, "gpu"
    )


def efa_plugin() -> PolicyResource:
    return res(
        "kubernetes:helm.sh/v3:Release",
        {"chart": "aws-efa-k8s-device-plugin", "version": "v0.5.30"},
        "efa-device-plugin-helm",
    )


def nic_policy(resource: str = "shared_ib") -> PolicyResource:
    config = json.dumps({"configList": [{"resourceName": resource, "rdmaHcaMax": 63}]})
    spec = {"rdmaSharedDevicePlugin": {"config": config}}
    return res("kubernetes:mellanox.com/v1alpha1:NicClusterPolicy", {"spec": spec}, "nic")


def job(resources: dict[str, Any]) -> PolicyResource:
    container = {"name": "t", "resources": {"limits": resources}}
    props = {
        "metadata": {"name": "train", "labels": {"kueue.x-k8s.io/queue-name": "training"}},
        "spec": {"template": {"spec": {"containers": [container]}}},
    }
    return res("kubernetes:batch/v1:Job", props, "train")


def test_a_flavor_naming_a_missing_topology() -> None:
    v = only(R.fabric_resources_agree([flavor("gce-topology")]), RULE)
    assert "Topology 'gce-topology'" in v.message
    assert R.fabric_resources_agree([flavor("gce-topology"), topology("gce-topology")]) == []
    assert R.fabric_resources_agree([flavor(None)]) == []


@pytest.mark.parametrize(
    ("resource", "plugin"),
    [("vpc.amazonaws.com/efa", efa_plugin()), ("rdma/shared_ib", nic_policy())],
)
def test_a_quota_without_its_device_plugin(resource: str, plugin: PolicyResource) -> None:
    pool = eks_group(instance="p5.48xlarge")
    v = only(R.fabric_resources_agree([pool, queue("nvidia.com/gpu", resource)]), RULE)
    assert resource in v.message and "no device plugin" in v.message
    assert R.fabric_resources_agree([pool, queue("nvidia.com/gpu", resource), plugin]) == []
    # A queue-only program (the pools and plugins live in another stack) is not asked for the plugin.
    assert R.fabric_resources_agree([queue("nvidia.com/gpu", resource)]) == []


def test_an_rdma_plugin_for_another_resource_name_does_not_count() -> None:
    pool = eks_group(instance="p5.48xlarge")
    v = only(
        R.fabric_resources_agree([pool, queue("rdma/shared_ib"), nic_policy("hca_shared_devices_a")]), RULE
    )
    assert "rdma/shared_ib" in v.message


def test_a_queued_workload_asking_for_an_uncovered_fabric_resource() -> None:
    ask = {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32}
    v = only(R.fabric_resources_agree([queue("nvidia.com/gpu"), job(ask)]), RULE)
    assert "requests vpc.amazonaws.com/efa, which no ClusterQueue covers" in v.message
    assert R.fabric_resources_agree([queue("nvidia.com/gpu", "vpc.amazonaws.com/efa"), job(ask)]) == []


@pytest.mark.parametrize(
    ("project", "stack"),
    [
        (REPO / "examples" / "topology-aware-training", "example"),
        (REPO / "examples" / "topology-aware-training", "aks-nd-h100"),
        (REPO / "examples" / "kueue-distributed-training", "example"),
    ],
)
def test_the_librarys_training_plans_agree(project: Any, stack: str) -> None:
    resources = [to_policy_resource(r) for r in run_plan(project, stack).resources]
    assert R.fabric_resources_agree(resources) == []
