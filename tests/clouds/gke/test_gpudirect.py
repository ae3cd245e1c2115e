"""GKE GPUDirect from a stack file: A3 Mega (TCPXO) and A4 (RDMA) pools with Kueue TAS
(examples/topology-aware-training ``gke-a3-mega`` / ``gke-a4``).

Asserted on the inputs the providers receive: the extra VPCs and subnets (MTU, RoCE profile, CIDRs), the
cluster's multi-networking, the node pool's additional networks, the ``Network`` / ``GKENetworkParamSet``
objects (validated against gke-networking-api v0.2.0's CRDs) and Google's DaemonSets (images, node
affinity, tolerations), each compared with Google's own manifests vendored under tests/upstream/gke-gpudirect.
"""

from __future__ import annotations

import copy
import ipaddress
import json
from typing import Any

import pytest
import yaml

from gpu_platform import versions
from gpu_platform.args.pool import GpuPoolArgs
from gpu_platform.cloud_facts import profile_of
from gpu_platform.cloud_facts.gke.gpudirect import DEFAULT_GPU_NETWORK_CIDR as GPU_NETWORK_RANGE
from gpu_platform.cloud_facts.gke.gpudirect import RDMA, RDMA_A4X, TCPX, TCPXO
from gpu_platform.clouds.gke.gpudirect_plan import pod_requirements
from gpu_platform.clouds.gke.node_pool import GkeGpuNodePool
from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import Plan, run_plan, run_program
from gpu_platform.plans.node_daemonsets import Requests, gpu_node_requests
from gpu_platform.resolve.cluster_pools import resolve_pools
from tests.conftest import REPO, load_yaml_docs, planned_stack, upstream
from tests.support import crds
from tests.support.kube import node_affinity

EXAMPLE = REPO / "examples" / "topology-aware-training"
NETWORK = "gcp:compute/network:Network"
SUBNET = "gcp:compute/subnetwork:Subnetwork"
FIREWALL = "gcp:compute/firewall:Firewall"
NODEPOOL = "gcp:container/nodePool:NodePool"
GKE_NET = "kubernetes:networking.gke.io/v1:"
DAEMONSET = "kubernetes:apps/v1:DaemonSet"


def _upstream(*path: str) -> list[dict[str, Any]]:
    return load_yaml_docs(upstream("gke-gpudirect", *path))


def _gpu_pool(p: Plan) -> Any:
    (pool,) = [r for r in p.by_type(NODEPOOL) if r.inputs["nodeConfig"].get("guestAccelerators")]
    return pool


def _daemonsets(p: Plan) -> dict[str, dict[str, Any]]:
    return {r.inputs["metadata"]["name"]: r.inputs for r in p.by_type(DAEMONSET) if "gpudirect" in r.name}


# --- catalog ---------------------------------------------------------------------------------------------


def test_the_catalog_names_each_machine_s_gpudirect_path() -> None:
    machines = profile_of("gke").machines
    with_path = {name: m.gpudirect for name, m in machines.items() if m.gpudirect is not None}
    assert with_path == {
        "a3-highgpu-8g": TCPX,
        "a3-megagpu-8g": TCPXO,
        "a3-ultragpu-8g": RDMA,
        "a4-highgpu-8g": RDMA,
        "a4x-highgpu-4g": RDMA_A4X,
    }
    assert [n.network for n in TCPXO.nics] == [f"vpc{i}" for i in range(1, 9)]
    assert [n.network for n in TCPX.nics] == [f"vpc{i}" for i in range(1, 5)]
    assert [n.network for n in RDMA.nics] == ["gvnic-1", *(f"rdma-{i}" for i in range(8))]
    assert [n.network for n in RDMA_A4X.nics] == ["gvnic-1", *(f"rdma-{i}" for i in range(4))]
    assert (TCPXO.mtu, TCPX.mtu, RDMA.mtu, RDMA_A4X.mtu) == (8244, 8244, 8896, 8896)


@pytest.mark.parametrize(
    ("path", "pod_file"),
    [
        (TCPXO, "tcpxo-nccl-test-latest.yaml"),
        (TCPX, "tcpx-nccl-test-latest.yaml"),
        (RDMA, "rdma-nccl-test-a4.yaml"),
        (RDMA_A4X, "rdma-nccl-test-imex-a4x.yaml"),
    ],
)
def test_pod_interfaces_are_the_ones_google_s_pods_attach(path: Any, pod_file: str) -> None:
    (pod, *_) = [d for d in _upstream("pods", pod_file) if d["kind"] == "Pod"]
    theirs = pod["metadata"]["annotations"]
    ours = pod_requirements(path)["annotations"]
    assert json.loads(ours["networking.gke.io/interfaces"]) == json.loads(
        theirs["networking.gke.io/interfaces"]
    )
    assert ours["networking.gke.io/default-interface"] == theirs["networking.gke.io/default-interface"]
    for key in (k for k in theirs if k.startswith("devices.gke.io/")):
        assert yaml.safe_load(ours[key]) == yaml.safe_load(theirs[key]), key


def test_the_daemon_sidecar_is_the_release_paired_with_the_installer() -> None:
    notes = upstream("gke-gpudirect", "tcpxo-release-notes.md").read_text()
    newest = notes.split("## Jan 9, 2026", 1)[1].split("\n## ", 1)[0]
    assert versions.NCCL_TCPXO_INSTALLER_IMAGE in newest and versions.TCPXO_DAEMON_IMAGE in newest
    (sidecar,) = pod_requirements(TCPXO)["sidecars"]
    assert sidecar["image"] == versions.TCPXO_DAEMON_IMAGE and sidecar["name"] == "tcpxo-daemon"
    assert "--num_nics=8" in sidecar["args"][0]
    (tcpx,) = [d for d in _upstream("pods", "tcpx-nccl-test-latest.yaml") if d["kind"] == "Pod"][:1]
    assert pod_requirements(TCPX)["sidecars"][0]["image"] == tcpx["spec"]["containers"][0]["image"]
    assert pod_requirements(RDMA)["sidecars"] == []


# --- A3 Mega: TCPXO ----------------------------------------------------------------------------------------


def test_a3_mega_gets_eight_gpu_vpcs_with_subnets_and_firewalls() -> None:
    p = planned_stack("gke-a3-mega", EXAMPLE)
    gpu = [r for r in p.by_type(NETWORK) if "gpudirect" in r.name]
    assert [r.inputs["name"] for r in gpu] == [f"train-a3m-gpu-{i}" for i in range(1, 9)]
    assert {r.inputs["mtu"] for r in gpu} == {8244}
    assert all(r.inputs["autoCreateSubnetworks"] is False and "networkProfile" not in r.inputs for r in gpu)
    subnets = [r for r in p.by_type(SUBNET) if "gpudirect" in r.name]
    assert [s.inputs["name"] for s in subnets] == [f"train-a3m-gpu-{i}-sub" for i in range(1, 9)]
    assert {s.inputs["region"] for s in subnets} == {"us-central1"}
    cidrs = [ipaddress.IPv4Network(s.inputs["ipCidrRange"]) for s in subnets]
    assert all(c.prefixlen == 20 and c.subnet_of(ipaddress.IPv4Network(GPU_NETWORK_RANGE)) for c in cidrs)
    assert not any(a.overlaps(b) for i, a in enumerate(cidrs) for b in cidrs[i + 1 :])
    # The primary VPC (10.0.0.0/16 by default) and the GPU subnets do not overlap.
    (nodes,) = [s for s in p.by_type(SUBNET) if s.name == "train-a3m-nodes"]
    assert not any(c.overlaps(ipaddress.ip_network(nodes.inputs["ipCidrRange"])) for c in cidrs)
    firewalls = [r for r in p.by_type(FIREWALL) if "gpudirect" in r.name]
    assert len(firewalls) == 8
    for fw in firewalls:
        assert fw.inputs["sourceRanges"] == [GPU_NETWORK_RANGE]
        assert {a["protocol"] for a in fw.inputs["allows"]} == {"tcp", "udp", "icmp"}


def test_a3_mega_cluster_runs_multi_networking_on_dataplane_v2() -> None:
    (cluster,) = planned_stack("gke-a3-mega", EXAMPLE).by_type("gcp:container/cluster:Cluster")
    assert cluster.inputs["enableMultiNetworking"] is True
    assert cluster.inputs["datapathProvider"] == "ADVANCED_DATAPATH"


def test_a3_mega_pool_attaches_the_eight_nics_in_order() -> None:
    p = planned_stack("gke-a3-mega", EXAMPLE)
    pool = _gpu_pool(p)
    extra = pool.inputs["networkConfig"]["additionalNodeNetworkConfigs"]
    assert extra == [
        {"network": f"train-a3m-gpu-{i}", "subnetwork": f"train-a3m-gpu-{i}-sub"} for i in range(1, 9)
    ]
    assert pool.inputs["nodeConfig"]["gvnic"] == {"enabled": True}
    assert pool.inputs["nodeConfig"]["labels"]["gpu-platform.io/gpudirect"] == "tcpxo"
    assert "networkConfig.additionalNodeNetworkConfigs" in pool.options["replaceOnChanges"]
    # The subnets exist before a node attaches them.
    subnets = {r.urn for r in p.by_type(SUBNET) if "gpudirect" in r.name}
    assert len(subnets) == 8 and subnets <= set(pool.depends_on)


def test_network_objects_validate_and_name_the_created_vpcs() -> None:
    p = planned_stack("gke-a3-mega", EXAMPLE)
    params = {r.inputs["metadata"]["name"]: r for r in p.by_type(GKE_NET + "GKENetworkParamSet")}
    networks = {r.inputs["metadata"]["name"]: r for r in p.by_type(GKE_NET + "Network")}
    assert sorted(params) == sorted(networks) == sorted(f"vpc{i}" for i in range(1, 9))
    for name, param in params.items():
        i = name.removeprefix("vpc")
        assert param.inputs["spec"] == {
            "vpc": f"train-a3m-gpu-{i}",
            "vpcSubnet": f"train-a3m-gpu-{i}-sub",
            "deviceMode": "NetDevice",
        }
        net = networks[name]
        assert net.inputs["spec"]["type"] == "Device"
        assert net.inputs["spec"]["parametersRef"]["name"] == name
        assert param.urn in net.depends_on
        assert crds.problems_of(param.inputs) == [] and crds.problems_of(net.inputs) == []
    broken = copy.deepcopy(params["vpc1"].inputs)
    broken["spec"]["deviceMode"] = "Netdevice"
    assert crds.problems_of(broken) != []  # the check can fail: the CRD's enum
    typo = copy.deepcopy(networks["vpc1"].inputs)
    typo["spec"]["parameterRef"] = typo["spec"].pop("parametersRef")
    assert crds.problems_of(typo) != []


def test_a3_mega_runs_google_s_tcpxo_installer_and_nri_injector_on_the_pool_only() -> None:
    p = planned_stack("gke-a3-mega", EXAMPLE)
    ds = _daemonsets(p)
    assert sorted(ds) == ["device-injector", "nccl-tcpxo-installer"]
    (theirs,) = _upstream("installers", "nccl-tcpxo-installer.yaml")
    their_init = {c["name"]: c for c in theirs["spec"]["template"]["spec"]["initContainers"]}
    installer = ds["nccl-tcpxo-installer"]
    spec = installer["spec"]["template"]["spec"]
    init = {c["name"]: c for c in spec["initContainers"]}
    assert sorted(init) == sorted(their_init)
    assert init["nccl-tcpxo-installer"]["image"] == their_init["nccl-tcpxo-installer"]["image"]
    assert init["nccl-tcpxo-installer"]["image"] == versions.NCCL_TCPXO_INSTALLER_IMAGE
    assert init["nccl-tcpxo-installer"]["args"] == their_init["nccl-tcpxo-installer"]["args"]
    assert init["nccl-tcpxo-installer"]["resources"] == their_init["nccl-tcpxo-installer"]["resources"]
    # The host setup is Google's script, run the same way (only the image is pinned here).
    assert init["pre-installation"]["command"][:5] == their_init["pre-installation"]["command"][:5]
    assert init["pre-installation"]["command"][-1] == their_init["pre-installation"]["command"][-1]
    assert spec["containers"] == [
        {"name": c["name"], "image": c["image"]} for c in theirs["spec"]["template"]["spec"]["containers"]
    ]
    assert installer["metadata"]["namespace"] == "kube-system"
    assert node_affinity(installer) == [
        {"key": "gpu-platform.io/gpudirect", "operator": "In", "values": ["tcpxo"]}
    ]
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in spec["tolerations"]
    (nri,) = _upstream("installers", "nri-device-injector.yaml")
    injector = ds["device-injector"]["spec"]["template"]["spec"]
    assert injector["containers"][0]["image"] == nri["spec"]["template"]["spec"]["containers"][0]["image"]
    assert injector["containers"][0]["image"] == versions.NRI_DEVICE_INJECTOR_IMAGE
    assert node_affinity(ds["device-injector"])[0]["values"] == ["tcpxo"]


# --- A4: RDMA ---------------------------------------------------------------------------------------------


def test_a4_gets_a_second_gvnic_vpc_and_a_roce_vpc_with_a_subnet_per_nic() -> None:
    p = planned_stack("gke-a4", EXAMPLE)
    vpcs = {r.inputs["name"]: r.inputs for r in p.by_type(NETWORK) if "gpudirect" in r.name}
    assert sorted(vpcs) == ["train-a4-gvnic-1", "train-a4-rdma"]
    assert vpcs["train-a4-rdma"]["networkProfile"] == (
        "projects/my-training-project/global/networkProfiles/us-central1-b-vpc-roce"
    )
    assert "networkProfile" not in vpcs["train-a4-gvnic-1"]
    assert {v["mtu"] for v in vpcs.values()} == {8896}
    subnets = [r.inputs for r in p.by_type(SUBNET) if "rdma" in r.name]
    assert [s["name"] for s in subnets] == [f"train-a4-rdma-sub-{i}" for i in range(8)]
    cidrs = [ipaddress.ip_network(s["ipCidrRange"]) for s in subnets]
    assert len(set(cidrs)) == 8 and all(c.prefixlen == 21 for c in cidrs)
    # Only the gVNIC VPC has a firewall rule; the RoCE VPC carries RDMA only.
    assert [r.inputs["name"] for r in p.by_type(FIREWALL) if "gpudirect" in r.name] == [
        "train-a4-gvnic-1-internal"
    ]


def test_a4_pool_attaches_gvnic_1_then_the_eight_rdma_nics() -> None:
    pool = _gpu_pool(planned_stack("gke-a4", EXAMPLE))
    extra = pool.inputs["networkConfig"]["additionalNodeNetworkConfigs"]
    assert extra[0] == {"network": "train-a4-gvnic-1", "subnetwork": "train-a4-gvnic-1-sub"}
    assert extra[1:] == [
        {"network": "train-a4-rdma", "subnetwork": f"train-a4-rdma-sub-{i}"} for i in range(8)
    ]
    assert pool.inputs["nodeConfig"]["labels"]["gpu-platform.io/gpudirect"] == "rdma"
    # The reservation still places the nodes, and Kueue's Topology still names the pool's flavor.
    assert pool.inputs["nodeConfig"]["reservationAffinity"]["values"] == ["a4-training-reservation"]


def test_a4_network_objects_use_rdma_device_mode_and_validate() -> None:
    params = {
        r.inputs["metadata"]["name"]: r.inputs
        for r in planned_stack("gke-a4", EXAMPLE).by_type(GKE_NET + "GKENetworkParamSet")
    }
    assert sorted(params) == sorted(["gvnic-1", *(f"rdma-{i}" for i in range(8))])
    assert params["gvnic-1"]["spec"]["deviceMode"] == "NetDevice"
    assert {params[f"rdma-{i}"]["spec"]["deviceMode"] for i in range(8)} == {"RDMA"}
    assert params["rdma-3"]["spec"] == {
        "vpc": "train-a4-rdma",
        "vpcSubnet": "train-a4-rdma-sub-3",
        "deviceMode": "RDMA",
    }
    for obj in [
        *params.values(),
        *(r.inputs for r in planned_stack("gke-a4", EXAMPLE).by_type(GKE_NET + "Network")),
    ]:
        assert crds.problems_of(obj) == [], obj["metadata"]["name"]


def test_a4_runs_the_gib_installer_and_no_nri_injector() -> None:
    ds = _daemonsets(planned_stack("gke-a4", EXAMPLE))
    assert sorted(ds) == ["nccl-rdma-installer"]
    (theirs,) = _upstream("installers", "nccl-rdma-installer.yaml")
    (init,) = ds["nccl-rdma-installer"]["spec"]["template"]["spec"]["initContainers"]
    (their_init,) = theirs["spec"]["template"]["spec"]["initContainers"]
    for key in ("image", "args", "volumeMounts", "resources", "securityContext"):
        assert init[key] == their_init[key], key
    assert init["image"] == versions.NCCL_GIB_INSTALLER_IMAGE
    volumes = ds["nccl-rdma-installer"]["spec"]["template"]["spec"]["volumes"]
    assert volumes == theirs["spec"]["template"]["spec"]["volumes"]
    assert node_affinity(ds["nccl-rdma-installer"]) == [
        {"key": "gpu-platform.io/gpudirect", "operator": "In", "values": ["rdma"]}
    ]


# --- quota, refusals, the component ----------------------------------------------------------------------


def test_kueue_quota_leaves_room_for_google_s_daemonsets() -> None:
    plain, direct = resolve_pools(
        "gke",
        [
            {"name": "a", "machine_type": "a3-megagpu-8g", "max_nodes": 2, "zones": ["us-central1-c"]},
            {
                "name": "b",
                "machine_type": "a3-megagpu-8g",
                "max_nodes": 2,
                "zones": ["us-central1-c"],
                "gpudirect": True,
            },
        ],
    )
    with_daemonsets = gpu_node_requests(direct, [direct], None)
    assert with_daemonsets == gpu_node_requests(plain, [plain], None) + Requests(
        300, 0
    )  # installer + NRI injector


def test_a_gpudirect_node_pool_component_needs_one_network_per_nic() -> None:
    pool: dict[str, Any] = {
        "name": "a3m",
        "machine_type": "a3-megagpu-8g",
        "max_nodes": 2,
        "zones": ["us-central1-c"],
        "gpudirect": True,
    }
    args: dict[str, Any] = {"cluster": "c", "location": "us-central1", "pool": pool}
    with pytest.raises(
        ArgumentsError, match=r"additional_node_networks: GPUDirect-TCPXO on a3-megagpu-8g needs 8"
    ):
        run_program(lambda: GkeGpuNodePool("a3m", args))  # type: ignore[arg-type]
    nets = [{"network": f"n{i}", "subnetwork": f"s{i}"} for i in range(8)]
    planned = run_program(lambda: GkeGpuNodePool("a3m", {**args, "additional_node_networks": nets}))  # type: ignore[typeddict-item]
    assert planned.one(NODEPOOL).inputs["networkConfig"]["additionalNodeNetworkConfigs"] == nets
    plain = {**args, "pool": {**pool, "gpudirect": False}, "additional_node_networks": nets}
    with pytest.raises(ArgumentsError, match="only GPUDirect pools"):
        run_program(lambda: GkeGpuNodePool("a3m", plain))  # type: ignore[arg-type]


def test_pools_without_gpudirect_plan_as_before() -> None:
    """A pool that does not opt in gets no extra NIC, no gVNIC change and no GPUDirect label."""
    pool: GpuPoolArgs = {
        "name": "a3m",
        "machine_type": "a3-megagpu-8g",
        "max_nodes": 2,
        "zones": ["us-central1-c"],
    }
    planned = run_program(
        lambda: GkeGpuNodePool("a3m", {"cluster": "c", "location": "us-central1", "pool": pool})
    )
    inputs = planned.one(NODEPOOL).inputs
    assert "networkConfig" not in inputs and "gvnic" not in inputs["nodeConfig"]
    assert "gpu-platform.io/gpudirect" not in inputs["nodeConfig"]["labels"]
    assert (
        "networkConfig.additionalNodeNetworkConfigs" not in planned.one(NODEPOOL).options["replaceOnChanges"]
    )


# --- what pods carry: the stack output and the documented JobSets --------------------------------------


def _documented_jobsets() -> dict[str, dict[str, Any]]:
    text = (REPO / "docs" / "networking.md").read_text()
    blocks = [b.split("```", 1)[0] for b in text.split("```yaml\n")[1:]]
    docs = [d for b in blocks for d in yaml.safe_load_all(b)]
    return {d["metadata"]["name"]: d for d in docs if isinstance(d, dict) and d.get("kind") == "JobSet"}


@pytest.mark.parametrize(("jobset", "path"), [("pretrain-a3m", TCPXO), ("pretrain-a4", RDMA)])
def test_the_documented_jobsets_carry_exactly_the_pod_requirements(jobset: str, path: Any) -> None:
    doc = _documented_jobsets()[jobset]
    assert crds.problems_of(doc) == []  # a JobSet the API server accepts
    want = pod_requirements(path)
    pod = doc["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    annotations = pod["metadata"]["annotations"]
    assert {k: v for k, v in annotations.items() if not k.startswith("kueue.")} == want["annotations"]
    *sidecars, trainer = pod["spec"]["containers"]
    assert sidecars == want["sidecars"]
    assert pod["spec"]["volumes"] == want["volumes"]
    assert trainer["env"] == want["env"] and trainer["volumeMounts"] == want["volumeMounts"]
    assert trainer["args"][0].startswith(want["command"] + "\n")
    mounted = {m["name"] for c in pod["spec"]["containers"] for m in c.get("volumeMounts", [])}
    assert mounted <= {v["name"] for v in pod["spec"]["volumes"]}  # every mount has its volume


def test_the_stack_outputs_what_each_gpudirect_pool_s_pods_carry() -> None:
    from gpu_platform.clouds.gke.stack import cloud_addons
    from gpu_platform.stack.spec import load_platform

    config = yaml.safe_load((EXAMPLE / "Pulumi.gke-a4.yaml").read_text())["config"]
    spec = load_platform({k.split(":", 1)[1]: v for k, v in config.items() if k.startswith("gpu-platform:")})
    outputs = cloud_addons(spec, None, None)  # type: ignore[arg-type]
    assert outputs == {"gpudirectPods": {"b200": pod_requirements(RDMA)}}


def test_tcpx_and_tcpxo_pools_share_the_gpu_vpcs_and_each_gets_its_installer() -> None:
    from gpu_platform.clouds.gke.gpudirect_plan import daemonsets, gpudirect_plan

    pools = resolve_pools(
        "gke",
        [
            {"name": "a3h", "machine_type": "a3-highgpu-8g", "max_nodes": 2, "gpudirect": True},
            {"name": "a3m", "machine_type": "a3-megagpu-8g", "max_nodes": 2, "gpudirect": True},
            {"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 2},
        ],
    )
    plan = gpudirect_plan("c", "us-central1", pools)
    assert [p.name for p in plan.pools] == ["a3h", "a3m"]
    assert [v.name for v in plan.vpcs] == [f"c-gpu-{i}" for i in range(1, 9)]
    assert plan.node_networks(TCPX) == plan.node_networks(TCPXO)[:4]
    by_name = {d["metadata"]["name"]: d for d in daemonsets(plan)}
    assert sorted(by_name) == ["device-injector", "nccl-tcpx-installer", "nccl-tcpxo-installer"]
    assert node_affinity(by_name["device-injector"])[0]["values"] == ["tcpx", "tcpxo"]
    (theirs,) = _upstream("installers", "nccl-tcpx-installer.yaml")
    (their_init,) = theirs["spec"]["template"]["spec"]["initContainers"]
    (init,) = by_name["nccl-tcpx-installer"]["spec"]["template"]["spec"]["initContainers"]
    for key in ("image", "args", "volumeMounts", "resources", "securityContext"):
        assert init[key] == their_init[key], key
    assert init["image"] == versions.NCCL_TCPX_INSTALLER_IMAGE


def test_the_component_refuses_pools_without_gpudirect() -> None:
    from gpu_platform.clouds.gke.gpudirect import GkeGpuDirect

    pools: list[Any] = [{"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 2}]
    args: Any = {"cluster_name": "c", "region": "us-central1", "pools": pools}
    with pytest.raises(ArgumentsError, match="no pool sets gpudirect: true"):
        run_program(lambda: GkeGpuDirect("gd", args))
    pools[0] = {**pools[0], "gpudirect": True}
    with pytest.raises(
        ArgumentsError, match=r"pools\[0\].gpudirect: needs a machine type with GPUDirect NICs"
    ):
        run_program(lambda: GkeGpuDirect("gd", args))


def test_an_attached_cluster_gets_the_networks_pools_and_objects_too(tmp_path: Any) -> None:
    """``cluster.create: false``: the cluster is not the library's (its multi-networking is the owner's), but
    the VPCs, the pool's extra NICs, the Network objects and the installer come the same way."""
    for name in ("Pulumi.yaml", "__main__.py"):
        (tmp_path / name).write_text((EXAMPLE / name).read_text())
    config = {
        "gcp:project": "p",
        "gpu-platform:cloud": "gke",
        "gpu-platform:cluster": {
            "name": "made-elsewhere",
            "project": "p",
            "region": "us-central1",
            "create": False,
            "kubeconfigStackReference": {"stack": "org/infra/prod"},
        },
        "gpu-platform:gpuPools": [
            {
                "name": "a3m",
                "machineType": "a3-megagpu-8g",
                "maxNodes": 2,
                "zones": ["us-central1-c"],
                "gpudirect": True,
            }
        ],
    }
    (tmp_path / "Pulumi.t.yaml").write_text(yaml.safe_dump({"config": config}))
    p = run_plan(tmp_path, "t")
    assert p.by_type("gcp:container/cluster:Cluster") == []
    pool = _gpu_pool(p)
    assert pool.inputs["cluster"] == "made-elsewhere"
    assert [n["network"] for n in pool.inputs["networkConfig"]["additionalNodeNetworkConfigs"]] == [
        f"made-elsewhere-gpu-{i}" for i in range(1, 9)
    ]
    assert len(p.by_type(GKE_NET + "Network")) == 8
    assert sorted(_daemonsets(p)) == ["device-injector", "nccl-tcpxo-installer"]


def test_the_stack_s_kueue_quota_takes_off_the_daemonsets_on_every_node() -> None:
    """4 A3 Mega nodes, each running the TCPXO installer and the NRI injector (150m CPU each): 1200m less CPU
    in the flavor's quota than the same pool without GPUDirect."""
    config = yaml.safe_load((EXAMPLE / "Pulumi.gke-a3-mega.yaml").read_text())["config"]
    off = copy.deepcopy(config)
    off["gpu-platform:gpuPools"][0]["gpudirect"] = False

    def cpu(c: dict[str, Any]) -> int:
        (cq,) = run_plan(EXAMPLE, "gke-a3-mega", config_override=c).by_type(
            "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"
        )
        (group,) = cq.inputs["spec"]["resourceGroups"]
        flavor = next(f for f in group["flavors"] if f["name"] == "a3-mega")
        return int(
            next(r["nominalQuota"] for r in flavor["resources"] if r["name"] == "cpu").removesuffix("m")
        )

    assert cpu(off) - cpu(config) == 4 * 300
