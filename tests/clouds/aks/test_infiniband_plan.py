"""AKS ND-series InfiniBand: the NVIDIA Network Operator (pinned chart, rendered offline), its NicClusterPolicy
(validated against the chart's CRD, images as released with the chart), ``rdma/shared_ib`` in Kueue's quota and
GPUDirect RDMA in the GPU Operator's driver."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
import yaml

from gpu_platform import versions
from gpu_platform.clouds.aks.infiniband_plan import (
    network_operator_values,
    nic_cluster_policy,
)
from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import Plan
from gpu_platform.sharing import RDMA_HCA_MAX, RDMA_SHARED_IB_RESOURCE
from tests.conftest import REPO, planned_stack, upstream
from tests.support import crds
from tests.support.helm import rendered_documents
from tests.support.plans import plan_network_operator

ND_POOL: dict[str, Any] = {
    "name": "ndh100",
    "machine_type": "Standard_ND96isr_H100_v5",
    "max_nodes": 4,
    "infiniband": True,
    "taints": [{"key": "workload", "value": "training", "effect": "NoSchedule"}],
}
CHART = upstream("charts", f"network-operator-{versions.NETWORK_OPERATOR.version}", "Chart.yaml").parent


def _plan() -> Any:
    return plan_network_operator(
        {"pools": [ND_POOL, {"name": "t4", "machine_type": "Standard_NC4as_T4_v3", "max_nodes": 2}]}
    )  # type: ignore[list-item]


def test_the_policy_validates_against_the_pinned_crd() -> None:
    policy = nic_cluster_policy(_plan())
    assert crds.problems_of(policy) == []
    broken = copy.deepcopy(policy)
    broken["spec"]["rdmaSharedDevicePlugin"]["imageTag"] = broken["spec"]["rdmaSharedDevicePlugin"].pop(
        "version"
    )
    assert crds.problems_of(broken) != []  # the check can fail: an unknown field would be pruned


def test_the_policy_serves_only_the_infiniband_pools_and_tolerates_their_taints() -> None:
    plan = _plan()
    assert [p.name for p in plan.pools] == ["ndh100"]
    spec = nic_cluster_policy(plan)["spec"]
    (term,) = spec["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term["matchExpressions"] == [
        {"key": "gpu-platform.io/infiniband", "operator": "In", "values": ["true"]}
    ]
    assert {"key": "workload", "operator": "Equal", "value": "training", "effect": "NoSchedule"} in spec[
        "tolerations"
    ]
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in spec["tolerations"]
    config = json.loads(spec["rdmaSharedDevicePlugin"]["config"])
    (resource,) = config["configList"]
    assert f"rdma/{resource['resourceName']}" == RDMA_SHARED_IB_RESOURCE
    assert resource["rdmaHcaMax"] == RDMA_HCA_MAX
    assert resource["selectors"] == {"vendors": ["15b3"], "linkTypes": ["infiniband"]}


def test_the_policy_images_are_the_ones_released_with_the_chart() -> None:
    release = yaml.safe_load(upstream("network-operator", "release.yaml").read_text())
    spec = nic_cluster_policy(_plan())["spec"]
    for key, component in (("ofedDriver", "Mofed"), ("rdmaSharedDevicePlugin", "RdmaSharedDevicePlugin")):
        want = release[component]
        assert (spec[key]["repository"], spec[key]["image"], spec[key]["version"]) == (
            want["repository"],
            want["image"],
            want["version"],
        ), key
    chart = yaml.safe_load(upstream("charts", CHART.name, "Chart.yaml").read_text())
    assert chart["version"] == versions.NETWORK_OPERATOR.version


def _render(values: dict[str, Any]) -> list[dict[str, Any]]:
    return rendered_documents(
        CHART,
        values,
        "network-operator",
        versions.NETWORK_OPERATOR.namespace,
        skip_without_helm=True,
        yaml_files_only=True,
    )


def test_the_chart_renders_the_controller_only() -> None:
    objects = _render(network_operator_values(_plan()))
    kinds = {o["kind"] for o in objects}
    assert "Deployment" in kinds
    # No second Node Feature Discovery, no NodeFeatureRule needing its CRDs, no SR-IOV operator.
    assert "NodeFeatureRule" not in kinds and "DaemonSet" not in kinds
    (operator,) = [o for o in objects if o["kind"] == "Deployment"]
    (container,) = operator["spec"]["template"]["spec"]["containers"]
    assert container["image"].endswith(f":v{versions.NETWORK_OPERATOR.version}")
    # The chart's defaults would deploy NFD and the rule: the values are what turns them off.
    assert "NodeFeatureRule" in {o["kind"] for o in _render({})}


def test_no_infiniband_pool_is_refused() -> None:
    with pytest.raises(ArgumentsError, match="no pool sets infiniband"):
        plan_network_operator(
            {"pools": [{"name": "t4", "machine_type": "Standard_NC4as_T4_v3", "max_nodes": 2}]}
        )  # type: ignore[list-item]


@pytest.fixture(scope="module")
def stack_plan() -> Plan:
    return planned_stack("aks-nd-h100", REPO / "examples" / "topology-aware-training")


def test_the_stack_installs_it_and_kueue_quotas_the_hcas(stack_plan: Plan) -> None:
    (policy,) = stack_plan.by_type("kubernetes:mellanox.com/v1alpha1:NicClusterPolicy")
    release = stack_plan.one("kubernetes:helm.sh/v3:Release", "network-operator-helm")
    assert release.urn in policy.depends_on  # its CRD comes with the release
    assert release.inputs["version"] == versions.NETWORK_OPERATOR.version
    (cq,) = stack_plan.by_type("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue")
    (group,) = cq.inputs["spec"]["resourceGroups"]
    assert RDMA_SHARED_IB_RESOURCE in group["coveredResources"]
    flavor = next(f for f in group["flavors"] if f["name"] == "ndh100")
    quota = {r["name"]: r["nominalQuota"] for r in flavor["resources"]}
    assert quota[RDMA_SHARED_IB_RESOURCE] == 4 * RDMA_HCA_MAX


def test_the_gpu_operator_driver_runs_gpudirect_rdma(stack_plan: Plan) -> None:
    gpu_operator = next(
        r
        for r in stack_plan.by_type("kubernetes:helm.sh/v3:Release")
        if r.inputs["chart"].endswith("gpu-operator")
    )
    assert gpu_operator.inputs["values"]["driver"]["rdma"] == {"enabled": True, "useHostMofed": False}
    (pool,) = [
        r
        for r in stack_plan.by_type("azure-native:containerservice:AgentPool")
        if r.inputs.get("mode") == "User"
    ]
    assert pool.inputs["nodeLabels"]["gpu-platform.io/infiniband"] == "true"


def test_a_doca_driver_upgrade_waits_for_jobs_and_never_forces(stack_plan: Plan) -> None:
    """A DOCA driver reload drops every RDMA connection on the node: like the GPU Operator's driver upgrade, it
    waits for the node's Job pods to finish and never force-drains (the CRD's own fields, checked against it)."""
    (policy,) = stack_plan.by_type("kubernetes:mellanox.com/v1alpha1:NicClusterPolicy")
    upgrade = policy.inputs["spec"]["ofedDriver"]["upgradePolicy"]
    assert upgrade["waitForCompletion"] == {
        "timeoutSeconds": 0,
        "podSelector": "batch.kubernetes.io/job-name",
    }
    assert upgrade["drain"]["force"] is False and upgrade["maxParallelUpgrades"] == 1
