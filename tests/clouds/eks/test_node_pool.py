"""EksGpuNodePool: the exact NodeGroup and LaunchTemplate inputs (AMI, taints, capacity, disk, EFA, scaling)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from gpu_platform.clouds.eks.node_pool import EksGpuNodePool
from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import Plan, run_program

NODEGROUP = "aws:eks/nodeGroup:NodeGroup"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
GPU_TAINT_EKS = {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}


def build(pool: dict[str, Any], **extra: Any) -> Plan:
    args = {
        "cluster_name": "gpu",
        "node_role_arn": "arn:aws:iam::111122223333:role/nodes",
        "subnet_ids": ["subnet-0a0a0a0a", "subnet-0b0b0b0b"],
        "pool": pool,
        **extra,
    }
    return run_program(lambda: EksGpuNodePool(pool["name"], args))


@pytest.fixture(scope="module")
def l4_spot() -> Plan:
    return build(
        {
            "name": "l4-spot",
            "machine_type": "g6.2xlarge",
            "min_nodes": 0,
            "initial_nodes": 1,
            "max_nodes": 5,
            "spot": True,
            "sharing": {"mode": "time-slicing", "replicas": 2},
        }
    )


def test_node_group_inputs_are_exact(l4_spot: Plan) -> None:
    ng = l4_spot.one(NODEGROUP)
    i = ng.inputs
    assert i["clusterName"] == "gpu"
    assert re.fullmatch(r"l4-spot-[0-9a-f]{6}", i["nodeGroupName"])
    assert i["nodeRoleArn"] == "arn:aws:iam::111122223333:role/nodes"
    assert i["subnetIds"] == ["subnet-0a0a0a0a", "subnet-0b0b0b0b"]
    assert i["amiType"] == "AL2023_x86_64_NVIDIA"
    assert i["instanceTypes"] == ["g6.2xlarge"]
    assert i["capacityType"] == "SPOT"
    assert i["taints"] == [GPU_TAINT_EKS]
    assert i["labels"] == {
        "gpu-platform.io/pool": "l4-spot",
        "gpu-platform.io/gpu": "l4",
        "gpu-platform.io/sharing": "time-slicing",
        "nvidia.com/device-plugin.config": "l4-spot-time-slicing-2",
        # The Cluster Autoscaler's GPU label: it waits for nvidia.com/gpu instead of adding nodes.
        "k8s.amazonaws.com/accelerator": "nvidia-l4",
    }
    assert i["scalingConfig"] == {"minSize": 0, "desiredSize": 1, "maxSize": 5}
    assert i["updateConfig"] == {"maxUnavailable": 1}
    assert i["launchTemplate"] == {"id": "l4-spot-lt-id", "version": "1"}
    # With a launch template the disk lives there; EKS rejects disk_size next to one.
    assert "diskSize" not in i


def test_desired_size_belongs_to_the_autoscaler(l4_spot: Plan) -> None:
    ng = l4_spot.one(NODEGROUP)
    assert ng.options["ignoreChanges"] == ["scalingConfig.desiredSize"]
    # A generated name: a replacing change creates the new group before deleting the old one.
    assert ng.options["deleteBeforeReplace"] is False
    assert ng.options["protect"] is True


def test_launch_template_holds_an_encrypted_disk_and_imdsv2(l4_spot: Plan) -> None:
    lt = l4_spot.one(LAUNCH_TEMPLATE).inputs
    assert lt["blockDeviceMappings"] == [
        {
            "deviceName": "/dev/xvda",
            "ebs": {
                "volumeSize": 200,
                "volumeType": "gp3",
                "encrypted": "true",
                "deleteOnTermination": "true",
            },
        }
    ]
    assert lt["metadataOptions"] == {
        "httpEndpoint": "enabled",
        "httpTokens": "required",
        "httpPutResponseHopLimit": 1,
    }
    assert "networkInterfaces" not in lt and "placement" not in lt and "imageId" not in lt
    assert l4_spot.by_type("aws:ec2/placementGroup") == []


def test_on_demand_is_the_default_capacity() -> None:
    plan = build({"name": "l40s", "machine_type": "g6e.xlarge", "max_nodes": 1})
    assert plan.one(NODEGROUP).inputs["capacityType"] == "ON_DEMAND"


def test_bottlerocket_puts_the_big_disk_on_its_data_volume() -> None:
    plan = build(
        {
            "name": "a10g",
            "machine_type": "g5.xlarge",
            "max_nodes": 1,
            "image": "BOTTLEROCKET_x86_64_NVIDIA",
            "disk_size_gb": 300,
        }
    )
    assert plan.one(NODEGROUP).inputs["amiType"] == "BOTTLEROCKET_x86_64_NVIDIA"
    [bdm] = plan.one(LAUNCH_TEMPLATE).inputs["blockDeviceMappings"]
    assert bdm["deviceName"] == "/dev/xvdb" and bdm["ebs"]["volumeSize"] == 300


def test_efa_exposes_every_interface_in_one_placement_group() -> None:
    plan = build(
        {"name": "h100", "machine_type": "p5.48xlarge", "max_nodes": 2, "efa": True},
        security_group_ids=["sg-cluster"],
    )
    lt = plan.one(LAUNCH_TEMPLATE).inputs
    nics = lt["networkInterfaces"]
    assert len(nics) == 32
    assert [n["networkCardIndex"] for n in nics] == list(range(32))
    # Card 0: EFA with ENA (the primary interface); the others EFA-only, without an IP (AWS's recommendation).
    assert [n["deviceIndex"] for n in nics] == [0] * 32
    assert [n["interfaceType"] for n in nics] == ["efa"] + ["efa-only"] * 31
    assert all(n["securityGroups"] == ["sg-cluster"] for n in nics)
    pg = plan.one("aws:ec2/placementGroup:PlacementGroup")
    assert pg.inputs["strategy"] == "cluster"
    assert lt["placement"] == {
        "groupName": "h100-placement"
    }  # the placement group's name (mock: resource name)


def test_a_reserved_node_group_is_refused_without_the_reservations_one_zone() -> None:
    """A Capacity Block (or ODCR) lives in one Availability Zone: a node group over every subnet would launch
    outside it, so the pool names that zone."""
    pool = {
        "name": "h200",
        "machine_type": "p5e.48xlarge",
        "max_nodes": 2,
        "capacity_type": "CAPACITY_BLOCK",
        "reservation": "cr-0123456789abcdef0",
    }
    with pytest.raises(ArgumentsError) as err:
        build(pool)
    found = dict(err.value.problems)
    assert "lives in one Availability Zone" in found["pool.zones"]
    with pytest.raises(ArgumentsError):
        build({**pool, "zones": ["us-east-1a", "us-east-1b"]})


def test_capacity_block_uses_the_reservation_in_the_launch_template() -> None:
    plan = build(
        {
            "name": "h200",
            "machine_type": "p5e.48xlarge",
            "max_nodes": 2,
            "capacity_type": "CAPACITY_BLOCK",
            "reservation": "cr-0123456789abcdef0",
            "zones": ["us-east-1a"],
        }
    )
    assert plan.one(NODEGROUP).inputs["capacityType"] == "CAPACITY_BLOCK"
    lt = plan.one(LAUNCH_TEMPLATE).inputs
    assert lt["instanceMarketOptions"] == {"marketType": "capacity-block"}
    assert lt["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": "cr-0123456789abcdef0"}
    }


@pytest.mark.parametrize(
    ("pool", "extra", "path"),
    [
        (
            {"name": "x", "machine_type": "g6.xlarge", "max_nodes": 1},
            {"driver": {"owner": "operator"}},
            "driver.owner",
        ),
        ({"name": "x", "machine_type": "p5.48xlarge", "max_nodes": 1, "efa": True}, {}, "security_group_ids"),
        ({"name": "x", "machine_type": "g6.xlarge", "max_nodes": 1, "efa": True}, {}, "pool.efa"),
        ({"name": "x", "machine_type": "g6.xlarge", "max_nodes": 0}, {}, "pool.max_nodes"),
        (
            {"name": "x", "machine_type": "p5.48xlarge", "max_nodes": 1, "capacity_type": "CAPACITY_BLOCK"},
            {},
            "pool.reservation",
        ),
        (
            # A reservation on EKS is a Capacity Block ID: it needs capacity_type CAPACITY_BLOCK.
            {
                "name": "x",
                "machine_type": "p5.48xlarge",
                "max_nodes": 1,
                "reservation": "cr-0123456789abcdef0",
            },
            {},
            "pool.reservation",
        ),
        (
            {"name": "x", "machine_type": "g6.xlarge", "max_nodes": 1, "image": "AL2_x86_64_GPU"},
            {},
            "pool.image",
        ),
    ],
)
def test_invalid_pools_fail_before_registering(
    pool: dict[str, Any], extra: dict[str, Any], path: str
) -> None:
    errors: list[ArgumentsError] = []

    def program() -> None:
        with pytest.raises(ArgumentsError) as err:
            EksGpuNodePool(
                "x",
                {
                    "cluster_name": "c",
                    "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
                    "subnet_ids": ["subnet-0123456789abcdef0"],
                    "pool": pool,
                    **extra,
                },
            )
        errors.append(err.value)

    plan = run_program(program)
    assert plan.resources == []
    assert [p for p, _ in errors[0].problems] == [path]
    assert errors[0].component == "EksGpuNodePool 'x'" and str(errors[0]).startswith("EksGpuNodePool 'x': ")


def test_the_old_capacity_reservation_argument_is_refused_pointing_at_the_pool() -> None:
    # The Capacity Block ID moved to pool.reservation: the old top-level argument is refused, not
    # silently ignored, and the pool without its reservation is reported in the same error.
    with pytest.raises(ArgumentsError) as err:
        EksGpuNodePool(
            "x",
            {  # type: ignore[typeddict-unknown-key]
                "cluster_name": "c",
                "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
                "subnet_ids": ["subnet-0123456789abcdef0"],
                "pool": {
                    "name": "x",
                    "machine_type": "p5.48xlarge",
                    "max_nodes": 1,
                    "capacity_type": "CAPACITY_BLOCK",
                },
                "capacity_reservation_id": "cr-0123456789abcdef0",
            },
        )
    found = dict(err.value.problems)
    assert set(found) == {"capacity_reservation_id", "pool.reservation"}
    assert found["capacity_reservation_id"].startswith("unknown key 'capacity_reservation_id'")
    assert "Capacity Block ID" in found["pool.reservation"]


def test_user_taints_follow_the_gpu_taint_in_eks_shape() -> None:
    plan = build(
        {
            "name": "l4",
            "machine_type": "g6.xlarge",
            "max_nodes": 1,
            "taints": [
                {"key": "team", "value": "a", "effect": "NoExecute"},
                {"key": "batch", "effect": "PreferNoSchedule"},
            ],
        }
    )
    assert plan.one(NODEGROUP).inputs["taints"] == [
        GPU_TAINT_EKS,
        {"key": "team", "value": "a", "effect": "NO_EXECUTE"},
        {"key": "batch", "effect": "PREFER_NO_SCHEDULE"},  # EKS takes no empty value: it is left out
    ]
