"""Every example that creates GPU pools leaves nodes that advertise GPUs: for each pool exactly one driver
path and exactly one device plugin (issue 13: an example is a working platform, not pools that stop)."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform.offline import Plan, run_plan
from tests.conftest import REPO

MULTI_CLUSTER = {"multikueue-fleet"}
"""Examples of several clusters, each with its own GPU Operator (checked by their own tests)."""
EXAMPLES = sorted(
    p.name
    for p in (REPO / "examples").iterdir()
    if (p / "__main__.py").is_file() and p.name not in MULTI_CLUSTER
)
"""The Python examples of one cluster (examples/yaml-gpu-pools is Pulumi YAML over the component package)."""
RELEASE = "kubernetes:helm.sh/v3:Release"
GKE_POOL = "gcp:container/nodePool:NodePool"
EKS_GROUP = "aws:eks/nodeGroup:NodeGroup"
AKS_POOL = "azure-native:containerservice:AgentPool"
KARPENTER_POOL = "kubernetes:karpenter.sh/v1:NodePool"  # issue 16: Karpenter GPU NodePools (EKS)
DRA_CHART = "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu"


def gpu_pools(plan: Plan) -> list[tuple[str, Any]]:
    out = [("gke", r) for r in plan.by_type(GKE_POOL) if r.inputs["nodeConfig"].get("guestAccelerators")]
    out += [("eks", r) for r in plan.by_type(EKS_GROUP) if "NVIDIA" in r.inputs.get("amiType", "")]
    out += [("aks", r) for r in plan.by_type(AKS_POOL) if "gpuProfile" in r.inputs]
    out += [
        ("karpenter", r)
        for r in plan.by_type(KARPENTER_POOL)
        if "nvidia.com/gpu" in r.inputs["spec"].get("limits", {})
    ]
    return out


def labels_of(cloud: str, pool: Any) -> dict[str, str]:
    if cloud == "gke":
        return dict(pool.inputs["nodeConfig"].get("labels") or {})
    if cloud == "karpenter":
        return dict(pool.inputs["spec"]["template"]["metadata"].get("labels") or {})
    return dict(pool.inputs.get("labels" if cloud == "eks" else "nodeLabels") or {})


def operator_values(plan: Plan) -> dict[str, Any] | None:
    releases = [r for r in plan.by_type(RELEASE) if r.inputs["chart"] == "gpu-operator"]
    assert len(releases) <= 1
    return releases[0].inputs["values"] if releases else None


def driver_paths(plan: Plan, cloud: str, pool: Any, operator: dict[str, Any] | None) -> list[str]:
    paths = []
    if operator is not None and operator["driver"]["enabled"]:
        paths.append("gpu-operator driver")
    if cloud == "gke":
        accel = pool.inputs["nodeConfig"]["guestAccelerators"][0]
        if accel["gpuDriverInstallationConfig"]["gpuDriverVersion"] != "INSTALLATION_DISABLED":
            paths.append("GKE-managed driver")
        installers = [d for d in plan.by_type("kubernetes:apps/v1:DaemonSet") if "driver-installer" in d.name]
        if installers and pool.inputs["nodeConfig"].get("imageType", "COS_CONTAINERD").startswith("COS"):
            tolerations = installers[0].inputs["spec"]["template"]["spec"]["tolerations"]
            assert {"operator": "Exists"} in tolerations  # reaches every tainted GPU node
            paths.append("Google's COS installer")
    if cloud == "eks":
        paths.append("EKS NVIDIA AMI")  # gpu_pools() kept only NVIDIA AMIs
    if cloud == "karpenter":
        node_class = pool.inputs["spec"]["template"]["spec"]["nodeClassRef"]["name"]
        (ec2nc,) = [
            c
            for c in plan.by_type("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass")
            if c.inputs["metadata"]["name"] == node_class
        ]
        alias = ec2nc.inputs["spec"]["amiSelectorTerms"][0]["alias"]
        assert alias.split("@")[0] in ("al2023", "bottlerocket")  # Karpenter picks their NVIDIA variants
        paths.append("EKS NVIDIA AMI (Karpenter alias)")
    if cloud == "aks" and pool.inputs["gpuProfile"].get("driver") == "Install":
        paths.append("AKS-managed driver")
    return paths


def device_plugins(
    cloud: str, pool: Any, operator: dict[str, Any] | None, plan: Plan | None = None
) -> list[str]:
    labels = labels_of(cloud, pool)
    plugins = []
    for release in plan.by_type(RELEASE) if plan is not None else ():  # DRA pools (issue 16)
        selector = ((release.inputs.get("values") or {}).get("kubeletPlugin") or {}).get("nodeSelector") or {}
        if release.inputs["chart"] == DRA_CHART and selector and set(selector.items()) <= set(labels.items()):
            plugins.append("NVIDIA DRA driver")
    operator_plugin = operator is not None and operator["devicePlugin"]["enabled"]
    if operator_plugin and labels.get("nvidia.com/gpu.deploy.device-plugin") != "false":
        plugins.append("gpu-operator device plugin")
    if cloud == "gke" and labels.get("gke-no-default-nvidia-gpu-device-plugin") != "true":
        plugins.append("GKE's device plugin")
    if cloud == "eks" and pool.inputs["amiType"].startswith("BOTTLEROCKET"):
        plugins.append("Bottlerocket's device plugin")
    return plugins


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_gpu_pool_of_an_example_gets_one_driver_and_one_device_plugin(example: str) -> None:
    plan = run_plan(REPO / "examples" / example, "example")
    operator = operator_values(plan)
    for cloud, pool in gpu_pools(plan):
        assert len(driver_paths(plan, cloud, pool, operator)) == 1, (
            pool.name,
            driver_paths(plan, cloud, pool, operator),
        )
        assert len(device_plugins(cloud, pool, operator, plan)) == 1, (
            pool.name,
            device_plugins(cloud, pool, operator, plan),
        )


def test_the_pool_examples_are_the_ones_checked() -> None:
    """Guard against a vacuous pass: the per-cloud examples do create GPU pools."""
    counts = {
        name: len(gpu_pools(run_plan(REPO / "examples" / name, "example")))
        for name in ("gke-gpu-pools", "eks-gpu-pools", "aks-gpu-pools")
    }
    assert counts == {"gke-gpu-pools": 3, "eks-gpu-pools": 2, "aks-gpu-pools": 2}


def test_the_eks_example_scales_and_exposes_efa() -> None:
    plan = run_plan(REPO / "examples" / "eks-gpu-pools", "example")
    charts = {r.inputs["chart"] for r in plan.by_type(RELEASE)}
    assert {"cluster-autoscaler", "aws-efa-k8s-device-plugin", "gpu-operator"} <= charts
