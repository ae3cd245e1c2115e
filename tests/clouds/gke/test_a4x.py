"""A4X (``a4x-highgpu-4g``, GB200 on Grace/Arm): its catalog facts, the Arm taint every library pod on it and its
Kueue flavor tolerate, its GPUDirect RDMA shape with Google's arm64 gIB installer, Google's A4X driver installer
on its nodes (and the COS installer kept off them), its Kueue Topology, and a stack that plans with it."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform import versions
from gpu_platform.addons.gpu_operator.checks import resolve_gpu_operator
from gpu_platform.addons.gpu_operator.plan import (
    gpu_operator_plan,
    operand_tolerations,
)
from gpu_platform.addons.kueue.plan import resource_flavor
from gpu_platform.addons.observability.gpu_health import gpu_health_plan
from gpu_platform.cloud_facts import profile_of
from gpu_platform.cloud_facts.gke.driver_installer import gke_driver_installers
from gpu_platform.cloud_facts.gke.gpudirect import RDMA_A4X
from gpu_platform.cloud_facts.gke.profile import ARM_TAINT
from gpu_platform.cloud_facts.gke.topology import GCE_A4X_TOPOLOGY, GCE_TOPOLOGY
from gpu_platform.clouds.gke.gpudirect_plan import daemonsets, gpudirect_plan
from gpu_platform.clouds.gke.node_pool_plan import gke_node_pool_plan
from gpu_platform.driver import DriverPlan
from gpu_platform.errors import ArgumentsError, Problems
from gpu_platform.offline.runner import Plan
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cluster_pools import resolve_pools
from gpu_platform.resolve.pools import resolve_pool_list
from gpu_platform.scheduling import pool_tolerations
from tests.conftest import REPO, load_yaml_docs, stack_file_config, upstream
from tests.support.kube import node_affinity, node_selector_terms

ARM_TOLERATION = {"key": "kubernetes.io/arch", "operator": "Equal", "value": "arm64", "effect": "NoSchedule"}
RESERVED = [{"source": "reservation", "reservation": "gb200-block"}]
A4X = {
    "name": "gb200",
    "machine_type": "a4x-highgpu-4g",
    "max_nodes": 2,
    "zones": ["us-central1-b"],
    "capacity": RESERVED,
}
A4 = {"name": "b200", "machine_type": "a4-highgpu-8g", "max_nodes": 2, "zones": ["us-central1-b"]}


def _pools(*pools: dict[str, Any]) -> list[GpuPool]:
    """Resolved without the cloud's pool limits (those are tested on their own below)."""
    p = Problems()
    resolved = resolve_pool_list("gke", list(pools), None, lambda i: p.at("pools", i)).pools
    assert not p.items, p.items
    return resolved


def test_the_catalog_has_a4x_as_google_documents_it() -> None:
    m = profile_of("gke").machine("a4x-highgpu-4g")
    assert m is not None
    assert (m.gpus, m.vcpus, m.memory_gib, m.accelerator_type, m.cpu_arch) == (
        4,
        140,
        884,
        "nvidia-gb200",
        "arm64",
    )
    assert (m.gpu.key, m.gpu.memory_gb, m.gpu.mig_capable) == ("gb200-186gb", 186, True)
    assert m.gpudirect == RDMA_A4X and m.topology == GCE_A4X_TOPOLOGY
    assert all(x.cpu_arch == "amd64" for x in profile_of("gke").machines.values() if x is not m)


def test_arm_pools_tolerate_gke_s_arm_taint_and_others_do_not() -> None:
    (arm,) = _pools(A4X)
    (x86,) = _pools(A4)
    assert profile_of("gke").added_taints(arm) == [ARM_TAINT]
    assert ARM_TOLERATION in pool_tolerations(arm)
    assert ARM_TOLERATION not in pool_tolerations(x86)
    # The Kueue flavor carries it, so admitted jobs land on the Arm nodes ...
    assert ARM_TOLERATION in resource_flavor(arm)["spec"]["tolerations"]
    assert ARM_TOLERATION not in resource_flavor(x86)["spec"]["tolerations"]
    # ... and so do the GPU Operator's operands and the health checks on the pool's nodes.
    assert ARM_TOLERATION in operand_tolerations([x86, arm])
    assert ARM_TOLERATION in gpu_health_plan("kube-system", [x86, arm]).tolerations
    assert ARM_TOLERATION not in operand_tolerations([x86])


def test_the_node_pool_leaves_the_arm_taint_to_gke() -> None:
    (arm,) = _pools(A4X)
    driver = DriverPlan("cloud", "operator", "operator", None, pool_driver="INSTALLATION_DISABLED")  # type: ignore[arg-type]
    plan = gke_node_pool_plan(arm, driver, {})
    assert ARM_TAINT in plan.taints  # what the nodes carry (the component's taints output)
    assert [t["key"] for t in plan.cloud_taints] == ["nvidia.com/gpu"]  # what Pulumi manages


def _installers(*pools: dict[str, Any]) -> dict[str, dict[str, Any]]:
    plan = gpudirect_plan("c", "us-central1", _pools(*({**p, "gpudirect": True} for p in pools)))
    return {d["metadata"]["name"]: d for d in daemonsets(plan)}


def test_a4x_gets_google_s_arm64_gib_installer_on_arm_nodes_only() -> None:
    by_name = _installers(A4X)
    assert sorted(by_name) == ["nccl-rdma-installer-arm64"]
    ds = by_name["nccl-rdma-installer-arm64"]
    (theirs,) = load_yaml_docs(upstream("gke-gpudirect", "installers", "nccl-rdma-installer-a4x.yaml"))
    (their_init,) = theirs["spec"]["template"]["spec"]["initContainers"]
    (init,) = ds["spec"]["template"]["spec"]["initContainers"]
    for key in ("image", "args", "volumeMounts", "securityContext", "resources"):
        assert init[key] == their_init[key], key
    assert init["image"] == versions.NCCL_GIB_ARM64_INSTALLER_IMAGE
    assert {"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]} in node_affinity(ds)
    assert ARM_TOLERATION in ds["spec"]["template"]["spec"]["tolerations"]


def test_a4_and_a4x_get_one_installer_per_architecture_and_share_the_roce_vpc() -> None:
    alone = _installers(A4)["nccl-rdma-installer"]
    keys = [e["key"] for e in node_affinity(alone)]
    assert keys == ["gpu-platform.io/gpudirect"]  # as before: no arch term
    both = _installers(A4, {**A4X, "name": "gb"})
    assert sorted(both) == ["nccl-rdma-installer", "nccl-rdma-installer-arm64"]
    assert {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]} in node_affinity(
        both["nccl-rdma-installer"]
    )
    assert ARM_TOLERATION not in both["nccl-rdma-installer"]["spec"]["template"]["spec"]["tolerations"]
    assert both["nccl-rdma-installer"]["spec"]["template"]["spec"]["initContainers"][0]["image"] == (
        versions.NCCL_GIB_INSTALLER_IMAGE
    )
    plan = gpudirect_plan(
        "c", "us-central1", _pools({**A4, "gpudirect": True}, {**A4X, "name": "gb", "gpudirect": True})
    )
    (rdma,) = [v for v in plan.vpcs if v.roce_zone]
    assert len(rdma.subnets) == 8  # A4's eight; A4X attaches the first four
    assert plan.node_networks(RDMA_A4X) == plan.node_networks(plan.pools[0].gpudirect)[:5]  # type: ignore[arg-type]
    only = gpudirect_plan("c", "us-central1", _pools({**A4X, "gpudirect": True}))
    (rdma,) = [v for v in only.vpcs if v.roce_zone]
    assert [s.nic.network for s in rdma.subnets] == ["rdma-0", "rdma-1", "rdma-2", "rdma-3"]


L4 = {"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 2}
A4X_MACHINES = [
    "a4x-highgpu-4g",
    "a4x-highgpu-4g-nolssd",
]  # the instance types Google's A4X installer selects


def test_a4x_nodes_get_google_s_a4x_installer_and_the_cos_installer_stays_off_them() -> None:
    by_name = {d["metadata"]["name"]: d for d in gke_driver_installers(_pools(L4, A4X))}
    cos, a4x = (
        by_name["gpu-platform-nvidia-driver-installer"],
        by_name["gpu-platform-nvidia-driver-installer-a4x"],
    )
    (theirs,) = load_yaml_docs(REPO / "components/gpu_platform/data" / versions.GKE_COS_A4X_INSTALLER.file)
    # Google's A4X manifest as it is (renamed): its own affinity on the A4X instance types, every taint
    # tolerated (GKE's Arm taint and nvidia.com/gpu among them), the latest driver, no partition container.
    assert a4x["spec"]["template"]["spec"]["affinity"] == theirs["spec"]["template"]["spec"]["affinity"]
    (term,) = node_selector_terms(a4x)
    assert {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": A4X_MACHINES} in term[
        "matchExpressions"
    ]
    assert a4x["spec"]["template"]["spec"]["tolerations"] == [{"operator": "Exists"}]
    (init,) = a4x["spec"]["template"]["spec"]["initContainers"]
    assert "/cos-gpu-installer install --version=latest ||" in init["command"][-1]
    assert init["image"] == versions.GKE_COS_DRIVER_INSTALLER_IMAGE
    assert (
        a4x["spec"]["template"]["spec"]["containers"][0]["image"] == versions.GKE_DRIVER_INSTALLER_PAUSE_IMAGE
    )
    # The COS installer selects every GPU node: with an A4X pool it keeps off the A4X instance types.
    (term,) = node_selector_terms(cos)
    assert term["matchExpressions"][-1] == {
        "key": "node.kubernetes.io/instance-type",
        "operator": "NotIn",
        "values": A4X_MACHINES,
    }
    assert [c["name"] for c in cos["spec"]["template"]["spec"]["initContainers"]] == [
        "nvidia-driver-installer",
        "partition-gpus",
    ]
    # Without A4X pools: the COS installer alone, unchanged; with only A4X pools: the A4X installer alone.
    (alone,) = gke_driver_installers(_pools(L4))
    assert "node.kubernetes.io/instance-type" not in str(node_selector_terms(alone))
    assert [d["metadata"]["name"] for d in gke_driver_installers(_pools(A4X))] == [
        "gpu-platform-nvidia-driver-installer-a4x"
    ]


def test_a_pinned_installer_version_pins_both_installers() -> None:
    for ds in gke_driver_installers(_pools(L4, A4X), "580.105.08"):
        script = ds["spec"]["template"]["spec"]["initContainers"][0]["command"][-1]
        assert "/cos-gpu-installer install --version=580.105.08 ||" in script
        assert "--version=latest" not in script


def test_the_operator_installs_no_driver_on_a4x_and_the_node_pool_asks_gke_for_none() -> None:
    args: Any = {"cloud": "gke", "pools": [L4, A4X]}
    plan = gpu_operator_plan(resolve_gpu_operator(args))
    assert plan.driver.cloud_installer and plan.driver.pool_driver == "INSTALLATION_DISABLED"
    values = plan.values
    assert values["driver"]["enabled"] is False  # Google's installers own the driver
    assert values["toolkit"]["enabled"] is True and values["devicePlugin"]["enabled"] is True
    assert values["hostPaths"] == {"driverInstallDir": "/home/kubernetes/bin/nvidia"}
    assert ARM_TOLERATION in values["daemonsets"]["tolerations"]


def test_a4x_pools_resolve_on_cos_and_refuse_what_its_installer_cannot_do() -> None:
    (pool,) = resolve_pools("gke", [A4X])
    assert pool.machine is not None and pool.machine.name == "a4x-highgpu-4g"
    with pytest.raises(ArgumentsError, match=r"pools\[0\]\.image: a4x-highgpu-4g needs COS_CONTAINERD"):
        resolve_pools("gke", [{**A4X, "image": "UBUNTU_CONTAINERD"}])
    mig = {"mode": "mig", "managed_by": "cloud", "mig": {"layout": "all-3g.93gb"}}
    with pytest.raises(
        ArgumentsError, match=r"sharing\.managed_by: Google's A4X driver installer has no partition"
    ):
        resolve_pools("gke", [{**A4X, "sharing": mig}])


def test_a4x_pools_get_google_s_a4x_kueue_topology_and_other_machines_keep_theirs() -> None:
    docs = load_yaml_docs(upstream("cluster-toolkit", "gke-a4x-kueue-configuration.yaml.tftpl"))
    (theirs,) = [d for d in docs if d["kind"] == "Topology"]
    assert GCE_A4X_TOPOLOGY.levels == tuple(lvl["nodeLabel"] for lvl in theirs["spec"]["levels"])
    (arm,) = _pools({**A4X, "topology": True})
    assert resource_flavor(arm)["spec"]["topologyName"] == GCE_A4X_TOPOLOGY.name
    others = [
        m for m in profile_of("gke").machines.values() if m.topology is not None and m.cpu_arch == "amd64"
    ]
    assert others and all(m.topology == GCE_TOPOLOGY for m in others)


def test_a_stack_with_an_a4x_pool_plans(plan_stack: Any) -> None:
    doc = stack_file_config("dev")
    a4x = {
        "name": "gb200",
        "machineType": "a4x-highgpu-4g",
        "maxNodes": 2,
        "zones": ["us-central1-b"],
        "capacity": [{"source": "reservation", "reservation": "gb200-block"}],
    }
    pools = [*doc["gpu-platform:gpuPools"], {**a4x, "gpudirect": True, "topology": True}]
    plan: Plan = plan_stack("dev", REPO, {**doc, "gpu-platform:gpuPools": pools})
    node_pool = plan.one("gcp:container/nodePool:NodePool", "gb200-nodepool").inputs
    (accelerator,) = node_pool["nodeConfig"]["guestAccelerators"]
    assert accelerator["gpuDriverInstallationConfig"] == {"gpuDriverVersion": "INSTALLATION_DISABLED"}
    assert node_pool["nodeConfig"]["labels"]["gke-no-default-nvidia-gpu-device-plugin"] == "true"
    policy = plan.one("gcp:compute/resourcePolicy:ResourcePolicy", "gb200-workload-policy").inputs
    assert policy["workloadPolicy"] == {"type": "HIGH_THROUGHPUT", "acceleratorTopology": "1x72"}
    assert node_pool["placementPolicy"] == {"type": "COMPACT", "policyName": policy["name"]}
    networks = node_pool["networkConfig"]["additionalNodeNetworkConfigs"]
    assert [n["subnetwork"] for n in networks] == [
        "gpu-dev-gvnic-1-sub",
        *(f"gpu-dev-rdma-sub-{i}" for i in range(4)),
    ]
    installers = {
        r.name: r.inputs for r in plan.by_type("kubernetes:apps/v1:DaemonSet") if "driver-installer" in r.name
    }
    assert sorted(installers) == [
        "gpu-operator-gke-driver-installer",
        "gpu-operator-gke-driver-installer-a4x",
    ]
    (cos_term,) = node_selector_terms(installers["gpu-operator-gke-driver-installer"])
    assert {
        "key": "node.kubernetes.io/instance-type",
        "operator": "NotIn",
        "values": A4X_MACHINES,
    } in cos_term["matchExpressions"]
    assert (
        plan.one("kubernetes:helm.sh/v3:Release", "gpu-operator-helm").inputs["values"]["driver"]["enabled"]
        is False
    )
    flavor = plan.one("kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor", "kueue-flavor-gb200").inputs["spec"]
    assert ARM_TOLERATION in flavor["tolerations"] and flavor["topologyName"] == GCE_A4X_TOPOLOGY.name
    topology = plan.one(
        "kubernetes:kueue.x-k8s.io/v1beta2:Topology", "kueue-topology-gce-topology-a4x"
    ).inputs
    assert [lvl["nodeLabel"] for lvl in topology["spec"]["levels"]] == list(GCE_A4X_TOPOLOGY.levels)
    assert "nccl-rdma-installer-arm64" in str([r.name for r in plan.by_type("kubernetes:apps/v1:DaemonSet")])
