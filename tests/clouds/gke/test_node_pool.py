"""GkeGpuNodePool: the exact NodePool inputs GKE receives (taint, accelerator, driver, sharing, labels, counts)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from gpu_platform.cloud_facts import profile_of
from gpu_platform.clouds.gke.node_pool import GkeGpuNodePool
from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import Plan, run_program
from gpu_platform.resolve.cluster_pools import resolve_pools
from gpu_platform.scheduling import pool_labels
from gpu_platform.versions import GPU_OPERATOR
from tests.support.plans import plan_gke_node_pool

NODEPOOL = "gcp:container/nodePool:NodePool"
GPU_TAINT_GKE = {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}


def build(pool: dict[str, Any], **extra: Any) -> Plan:
    args = {"cluster": "gpu", "location": "us-central1", "project": "proj", "pool": pool, **extra}
    return run_program(lambda: GkeGpuNodePool(pool["name"], args))


def node_pool(plan: Plan) -> dict[str, Any]:
    return plan.one(NODEPOOL).inputs


@pytest.fixture(scope="module")
def l4_spot() -> Plan:
    return build(
        {
            "name": "l4-spot",
            "machine_type": "g2-standard-8",
            "max_nodes": 3,
            "spot": True,
            "zones": ["us-central1-a", "us-central1-c"],
            "sharing": {"mode": "time-slicing", "replicas": 4},
        },
        service_account="nodes@proj.iam.gserviceaccount.com",
    )


def test_gpu_pool_inputs_are_exact(l4_spot: Plan) -> None:
    r = l4_spot.one(NODEPOOL)
    inputs = r.inputs
    cfg = inputs["nodeConfig"]
    assert re.fullmatch(r"l4-spot-[0-9a-f]{6}", inputs["name"])
    assert inputs["cluster"] == "gpu" and inputs["location"] == "us-central1" and inputs["project"] == "proj"
    assert cfg["taints"] == [GPU_TAINT_GKE]
    assert cfg["guestAccelerators"] == [
        {
            "type": "nvidia-l4",
            "count": 1,
            "gpuDriverInstallationConfig": {"gpuDriverVersion": "INSTALLATION_DISABLED"},
        }
    ]
    assert cfg["labels"] == {
        "gpu-platform.io/pool": "l4-spot",
        "gpu-platform.io/gpu": "l4",
        "gpu-platform.io/sharing": "time-slicing",
        "nvidia.com/device-plugin.config": "l4-spot-time-slicing-4",
        "gke-no-default-nvidia-gpu-device-plugin": "true",
    }
    assert cfg["machineType"] == "g2-standard-8"
    assert cfg["spot"] is True
    assert cfg["imageType"] == "COS_CONTAINERD"
    assert cfg["diskSizeGb"] == 200
    assert cfg["serviceAccount"] == "nodes@proj.iam.gserviceaccount.com"
    assert cfg["oauthScopes"] == ["https://www.googleapis.com/auth/cloud-platform"]
    assert cfg["workloadMetadataConfig"] == {"mode": "GKE_METADATA"}
    assert "reservationAffinity" not in cfg
    assert inputs["nodeLocations"] == ["us-central1-a", "us-central1-c"]


def test_autoscaling_from_zero_and_counts_left_to_the_autoscaler(l4_spot: Plan) -> None:
    r = l4_spot.one(NODEPOOL)
    assert r.inputs["autoscaling"] == {
        "totalMinNodeCount": 0,
        "totalMaxNodeCount": 3,
        "locationPolicy": "ANY",
    }
    assert r.inputs["initialNodeCount"] == 0
    assert "nodeCount" not in r.inputs, "node_count must not be combined with autoscaling"
    assert r.inputs["ignoreNodeCountChanges"] is True
    assert r.options["ignoreChanges"] == ["initialNodeCount", "nodeCount"]


def test_immutable_fields_replace_the_pool_creating_first(l4_spot: Plan) -> None:
    r = l4_spot.one(NODEPOOL)
    assert r.options["replaceOnChanges"] == [
        "nodeConfig.guestAccelerators",
        "nodeConfig.reservationAffinity",
        "nodeConfig.spot",
    ]
    assert r.options["deleteBeforeReplace"] is False
    assert r.options["protect"] is True


def test_labels_are_the_scheduling_labels_the_operator_selects_on(l4_spot: Plan) -> None:
    [pool] = resolve_pools(
        "gke",
        [
            {
                "name": "l4-spot",
                "machine_type": "g2-standard-8",
                "max_nodes": 3,
                "spot": True,
                "sharing": {"mode": "time-slicing", "replicas": 4},
            }
        ],
    )
    plan = profile_of("gke").driver(None, "auto", GPU_OPERATOR.version)
    labels = pool_labels(pool, plan)
    assert l4_spot.one(NODEPOOL).inputs["nodeConfig"]["labels"] == labels
    # The component's plan carries the same labels as plain values, known before anything is created.
    planned = plan_gke_node_pool(
        {
            "cluster": "gpu",
            "location": "us-central1",
            "pool": {
                "name": "l4-spot",
                "machine_type": "g2-standard-8",
                "max_nodes": 3,
                "spot": True,
                "sharing": {"mode": "time-slicing", "replicas": 4},
            },
        }
    )
    assert planned.labels == labels
    assert planned.driver == plan


def test_component_is_parent_with_the_right_type(l4_spot: Plan) -> None:
    comp = l4_spot.one("gpu-platform:index:GkeGpuNodePool", "l4-spot")
    assert l4_spot.one(NODEPOOL).parent == comp.urn


@pytest.mark.parametrize(("mode", "strategy"), [("time-slicing", "TIME_SHARING"), ("mps", "MPS")])
def test_gke_native_sharing_sets_gpu_sharing_config(mode: str, strategy: str) -> None:
    plan = build(
        {
            "name": "l4-shared",
            "machine_type": "g2-standard-8",
            "max_nodes": 2,
            "sharing": {"mode": mode, "replicas": 3, "managed_by": "cloud"},
        }
    )
    cfg = node_pool(plan)["nodeConfig"]
    assert cfg["guestAccelerators"][0]["gpuSharingConfig"] == {
        "gpuSharingStrategy": strategy,
        "maxSharedClientsPerGpu": 3,
    }
    assert "gpuPartitionSize" not in cfg["guestAccelerators"][0]
    # GKE's device plugin implements the sharing: keep NVIDIA's off these nodes, keep GKE's on.
    assert cfg["labels"]["nvidia.com/gpu.deploy.device-plugin"] == "false"
    assert "gke-no-default-nvidia-gpu-device-plugin" not in cfg["labels"]
    assert "nvidia.com/device-plugin.config" not in cfg["labels"]


def test_gke_native_mig_sets_partition_size() -> None:
    plan = build(
        {
            "name": "a100-mig",
            "machine_type": "a2-highgpu-2g",
            "max_nodes": 2,
            "sharing": {"mode": "mig", "managed_by": "cloud", "mig": {"layout": "all-1g.5gb"}},
        }
    )
    accel = node_pool(plan)["nodeConfig"]["guestAccelerators"][0]
    assert accel == {
        "type": "nvidia-tesla-a100",
        "count": 2,
        "gpuPartitionSize": "1g.5gb",
        "gpuDriverInstallationConfig": {"gpuDriverVersion": "INSTALLATION_DISABLED"},
    }
    labels = node_pool(plan)["nodeConfig"]["labels"]
    assert labels["nvidia.com/gpu.deploy.mig-manager"] == "false"
    assert "nvidia.com/mig.config" not in labels


def test_operator_mig_leaves_the_gpu_whole_and_labels_the_layout() -> None:
    plan = build(
        {
            "name": "h100",
            "machine_type": "a3-highgpu-8g",
            "min_nodes": 1,
            "max_nodes": 1,
            "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb"}},
        }
    )
    cfg = node_pool(plan)["nodeConfig"]
    assert cfg["guestAccelerators"] == [
        {
            "type": "nvidia-h100-80gb",
            "count": 8,
            "gpuDriverInstallationConfig": {"gpuDriverVersion": "INSTALLATION_DISABLED"},
        }
    ]
    assert cfg["labels"]["nvidia.com/mig.config"] == "all-1g.10gb"
    assert cfg["labels"]["gke-no-default-nvidia-gpu-device-plugin"] == "true"


def test_operator_owned_driver_on_ubuntu() -> None:
    plan = build(
        {
            "name": "t4",
            "machine_type": "n1-standard-8",
            "gpus_per_node": 2,
            "max_nodes": 2,
            "image": "UBUNTU_CONTAINERD",
        },
        driver={"owner": "operator"},
    )
    cfg = node_pool(plan)["nodeConfig"]
    assert cfg["imageType"] == "UBUNTU_CONTAINERD"
    assert cfg["guestAccelerators"] == [
        {
            "type": "nvidia-tesla-t4",
            "count": 2,
            "gpuDriverInstallationConfig": {"gpuDriverVersion": "INSTALLATION_DISABLED"},
        }
    ]


def test_operator_owned_driver_on_cos_is_refused() -> None:
    with pytest.raises(ArgumentsError) as err:
        build({"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 1}, driver={"owner": "operator"})
    [(path, reason)] = err.value.problems
    assert path == "driver.owner"
    assert "UBUNTU_CONTAINERD" in reason


def test_specific_reservation_and_on_demand() -> None:
    plan = build({"name": "h100", "machine_type": "a3-highgpu-8g", "max_nodes": 4, "reservation": "h100-res"})
    inputs = node_pool(plan)
    assert inputs["nodeConfig"]["reservationAffinity"] == {
        "consumeReservationType": "SPECIFIC_RESERVATION",
        "key": "compute.googleapis.com/reservation-name",
        "values": ["h100-res"],
    }
    assert inputs["nodeConfig"]["spot"] is False
    assert inputs["autoscaling"]["locationPolicy"] == "ANY"


def test_user_taints_follow_the_gpu_taint_in_gke_shape() -> None:
    plan = build(
        {
            "name": "l4",
            "machine_type": "g2-standard-8",
            "max_nodes": 2,
            "taints": [
                {"key": "team", "value": "research", "effect": "NoExecute"},
                {"key": "tier", "value": "batch", "effect": "PreferNoSchedule"},
            ],
        }
    )
    assert node_pool(plan)["nodeConfig"]["taints"] == [
        GPU_TAINT_GKE,
        {"key": "team", "value": "research", "effect": "NO_EXECUTE"},
        {"key": "tier", "value": "batch", "effect": "PREFER_NO_SCHEDULE"},
    ]
    assert node_pool(plan)["autoscaling"]["locationPolicy"] == "BALANCED"


def test_initial_nodes_are_split_per_zone() -> None:
    plan = build(
        {
            "name": "l4",
            "machine_type": "g2-standard-8",
            "min_nodes": 1,
            "initial_nodes": 3,
            "max_nodes": 6,
            "zones": ["us-central1-a", "us-central1-b"],
        }
    )
    inputs = node_pool(plan)
    assert inputs["initialNodeCount"] == 2
    assert inputs["autoscaling"]["totalMinNodeCount"] == 1 and inputs["autoscaling"]["totalMaxNodeCount"] == 6


def test_workload_identity_can_be_turned_off_for_clusters_without_it() -> None:
    plan = build({"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 1}, workload_identity=False)
    assert "workloadMetadataConfig" not in node_pool(plan)["nodeConfig"]


def test_errors_name_the_argument_and_register_nothing() -> None:
    seen: list[ArgumentsError] = []

    def program() -> None:
        for pool in (
            {"name": "x", "machine_type": "p5.48xlarge", "max_nodes": 1},
            {
                "name": "x",
                "machine_type": "a2-highgpu-1g",
                "max_nodes": 1,
                "sharing": {"mode": "mig", "managed_by": "cloud", "mig": {"layout": "all-1g.5gb.me"}},
            },
        ):
            with pytest.raises(ArgumentsError) as err:
                GkeGpuNodePool("x", {"cluster": "c", "location": "l", "pool": pool})
            seen.append(err.value)

    plan = run_program(program)
    assert plan.resources == []
    [(path, reason)] = seen[0].problems
    assert path == "pool.machine_type"
    assert "p5.48xlarge" in reason and "g2-standard-8" in reason
    assert seen[1].problems == [
        ("pool.sharing.mig.layout", "GKE gpu_partition_size takes plain <n>g.<m>gb profiles, not '+me' ones")
    ]


def test_labels_taints_and_tolerations_are_outputs_of_the_plan_values() -> None:
    """They are registered as plain values and made Outputs on first read: the values must be the plan's."""
    seen: dict[str, Any] = {}
    pool_args = {"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 2}

    def program() -> None:
        pool = GkeGpuNodePool("l4", {"cluster": "gpu", "location": "us-central1", "pool": pool_args})
        seen["plan"] = pool.plan
        assert pool.labels is pool.labels  # made once
        for name in ("labels", "taints", "tolerations"):
            getattr(pool, name).apply(lambda value, name=name: seen.__setitem__(name, value))
        with pytest.raises(AttributeError, match="no_such_output"):
            pool.no_such_output  # noqa: B018

    run_program(program)
    plan = seen["plan"]
    assert seen["labels"] == plan.labels and seen["labels"]["gpu-platform.io/pool"] == "l4"
    assert seen["taints"] == plan.taint_dicts
    assert {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"} in seen["taints"]
    assert seen["tolerations"] == plan.tolerations


@pytest.mark.parametrize(
    ("machine", "count"),
    [("a3-highgpu-8g", 16), ("a3-megagpu-8g", 16), ("a4-highgpu-8g", 32), ("g2-standard-8", None)],
)
def test_local_ssds_back_ephemeral_storage_where_the_machine_has_them(
    machine: str, count: int | None
) -> None:
    """A3 and A4 machines come with local NVMe SSDs (Cluster Toolkit ``disk_definitions.tf``): images, emptyDir
    and checkpoints go there, not to the boot disk. Machines without them get no such block."""
    plan = build({"name": "gpu", "machine_type": machine, "max_nodes": 2, "local_ssds": count is not None})
    config = plan.one("gcp:container/nodePool:NodePool").inputs["nodeConfig"]
    if count is None:
        assert "ephemeralStorageLocalSsdConfig" not in config
    else:
        assert config["ephemeralStorageLocalSsdConfig"] == {"localSsdCount": count}


def test_local_ssds_are_opt_in_so_an_upgrade_never_replaces_a_pool() -> None:
    """GKE fixes ephemeral storage when a pool is created: on by default, every existing A3/A4 pool would be
    replaced (or, protected, block ``pulumi up``) after a library upgrade. A machine without them is refused."""
    plan = build({"name": "gpu", "machine_type": "a3-highgpu-8g", "max_nodes": 2})
    assert (
        "ephemeralStorageLocalSsdConfig"
        not in plan.one("gcp:container/nodePool:NodePool").inputs["nodeConfig"]
    )
    with pytest.raises(ArgumentsError) as err:
        build({"name": "gpu", "machine_type": "g2-standard-8", "max_nodes": 2, "local_ssds": True})
    assert "local_ssds: g2-standard-8 has no local SSDs the library can use" in str(err.value)
