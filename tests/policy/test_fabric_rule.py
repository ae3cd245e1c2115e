"""``fabric-resources-agree``: Topology references, fabric device plugins and Kueue coverage agree; the plans of
the library's own training stacks pass it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpu_platform import versions
from gpu_platform.offline import run_plan
from gpu_platform.policy import PolicyResource
from gpu_platform.policy import rules as R
from gpu_platform.policy.offline import to_policy_resource
from tests.conftest import REPO
from tests.support.policy import eks_group, only, res

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


# --- GKE GPUDirect ---------------------------------------------------------------------------------------

A3M_NICS = [{"network": f"c-gpu-{i}", "subnetwork": f"c-gpu-{i}-sub"} for i in range(1, 9)]


def a3_mega_pool(nics: list[dict[str, str]]) -> PolicyResource:
    props = {
        "name": "a3m",
        "nodeConfig": {"machineType": "a3-megagpu-8g", "taints": [], "labels": {}},
        "networkConfig": {"additionalNodeNetworkConfigs": nics},
    }
    return res("gcp:container/nodePool:NodePool", props, "a3m-nodepool")


def param_set(name: str, vpc: str, subnet: str) -> PolicyResource:
    spec = {"vpc": vpc, "vpcSubnet": subnet, "deviceMode": "NetDevice"}
    return res(
        "kubernetes:networking.gke.io/v1:GKENetworkParamSet", {"metadata": {"name": name}, "spec": spec}, name
    )


def network(name: str, params: str | None = None) -> PolicyResource:
    ref = {"group": "networking.gke.io", "kind": "GKENetworkParamSet", "name": params or name}
    spec = {"type": "Device", "parametersRef": ref}
    return res(
        "kubernetes:networking.gke.io/v1:Network", {"metadata": {"name": name}, "spec": spec}, f"net-{name}"
    )


def tcpxo_installer(image: str) -> PolicyResource:
    spec = {"template": {"spec": {"initContainers": [{"name": "i", "image": image}], "containers": []}}}
    return res("kubernetes:apps/v1:DaemonSet", {"metadata": {"name": "nccl"}, "spec": spec}, "nccl")


def complete_tcpxo() -> list[PolicyResource]:
    out = [a3_mega_pool(A3M_NICS), tcpxo_installer(versions.NCCL_TCPXO_INSTALLER_IMAGE)]
    for i, nic in enumerate(A3M_NICS, start=1):
        out += [param_set(f"vpc{i}", nic["network"], nic["subnetwork"]), network(f"vpc{i}")]
    return out


def test_a_complete_tcpxo_setup_agrees() -> None:
    assert R.fabric_resources_agree(complete_tcpxo()) == []
    # Another release of the installer still installs the plugin.
    older = [
        r
        if r.name != "nccl"
        else tcpxo_installer(
            "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/nccl-plugin-gpudirecttcpx-dev:v1.0.14"
        )
        for r in complete_tcpxo()
    ]
    assert R.fabric_resources_agree(older) == []


def test_a_gpudirect_pool_missing_nics_param_sets_or_its_installer() -> None:
    short = [a3_mega_pool(A3M_NICS[:4]) if r.name == "a3m-nodepool" else r for r in complete_tcpxo()]
    v = only(R.fabric_resources_agree(short), RULE)
    assert "attaches 4 extra NICs; a3-megagpu-8g has 8 for GPUDirect-TCPXO" in v.message
    no_params = [r for r in complete_tcpxo() if r.name != "vpc3"]
    found = R.fabric_resources_agree(no_params)
    assert any(
        "VPC 'c-gpu-3' / subnet 'c-gpu-3-sub', which no GKENetworkParamSet" in f.message for f in found
    )
    assert any("Network 'net-vpc3' names GKENetworkParamSet 'vpc3'" in f.message for f in found)
    no_installer = [r for r in complete_tcpxo() if r.name != "nccl"]
    v = only(R.fabric_resources_agree(no_installer), RULE)
    assert "runs no DaemonSet of Google's NCCL plugin installer" in v.message


def test_a_pod_attaching_a_network_the_stack_does_not_define() -> None:
    interfaces = json.dumps(
        [{"interfaceName": "eth0", "network": "default"}, {"interfaceName": "eth1", "network": "vpc9"}]
    )
    pod: dict[str, Any] = {
        "metadata": {"annotations": {"networking.gke.io/interfaces": interfaces}},
        "spec": {"containers": []},
    }
    jobset = res("kubernetes:batch/v1:Job", {"metadata": {"name": "j"}, "spec": {"template": pod}}, "j")
    v = only(R.fabric_resources_agree([*complete_tcpxo(), jobset]), RULE)
    assert "attaches network 'vpc9', which no Network in the stack defines" in v.message
    ok = json.dumps(
        [{"interfaceName": "eth0", "network": "default"}, {"interfaceName": "eth1", "network": "vpc1"}]
    )
    pod["metadata"]["annotations"]["networking.gke.io/interfaces"] = ok
    jobset = res("kubernetes:batch/v1:Job", {"metadata": {"name": "j"}, "spec": {"template": pod}}, "j")
    assert R.fabric_resources_agree([*complete_tcpxo(), jobset]) == []


@pytest.mark.parametrize("stack", ["gke-a3-mega", "gke-a4", "gke-a4x"])
def test_the_gke_gpudirect_training_plans_agree(stack: str) -> None:
    resources = [
        to_policy_resource(r)
        for r in run_plan(REPO / "examples" / "topology-aware-training", stack).resources
    ]
    assert R.fabric_resources_agree(resources) == []
    # The rule reads these plans: drop the installer and it is found missing.
    without = [r for r in resources if not (r.type == "kubernetes:apps/v1:DaemonSet" and "nccl" in r.name)]
    assert any("NCCL plugin installer" in f.message for f in R.fabric_resources_agree(without))


def test_an_arm_rdma_pool_needs_the_arm64_gib_installer() -> None:
    """A4X's Arm nodes run Google's arm64 gIB build; the amd64 installer would not start there."""
    resources = [
        to_policy_resource(r)
        for r in run_plan(REPO / "examples" / "topology-aware-training", "gke-a4x").resources
    ]
    installers = [r for r in resources if r.type == "kubernetes:apps/v1:DaemonSet" and "nccl" in r.name]
    assert [r.name for r in installers] == ["train-a4x-gpudirect-nccl-rdma-installer-arm64"]
    amd64 = json.dumps(installers[0].props).replace(
        versions.NCCL_GIB_ARM64_INSTALLER_IMAGE, versions.NCCL_GIB_INSTALLER_IMAGE
    )
    amd64_only = [r if r not in installers else res(r.type, json.loads(amd64), r.name) for r in resources]
    v = only(R.fabric_resources_agree(amd64_only), RULE)
    assert versions.NCCL_GIB_ARM64_INSTALLER_IMAGE in v.message
