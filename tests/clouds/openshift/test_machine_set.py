"""GPU MachineSets on OpenShift: the library's taint and labels on the nodes, the autoscaler's accelerator
label, one MachineSet per zone whose sizes add up to the pool's, each valid against the Machine API's CRDs."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpu_platform.clouds.openshift.checks import machine_set_args
from gpu_platform.clouds.openshift.machine_set_plan import (
    ACCELERATOR_LABEL,
    MachineSetPlan,
    machine_set_plan,
    split_total,
)
from gpu_platform.errors import ArgumentsError
from gpu_platform.pools import GPU_TAINT
from gpu_platform.scheduling import pool_labels
from tests.support.crds import problems_of

AWS_SPEC = {
    "apiVersion": "machine.openshift.io/v1beta1",
    "kind": "AWSMachineProviderConfig",
    "ami": {"id": "ami-0123456789abcdef0"},
    "iamInstanceProfile": {"id": "ocp-gpu-x7k2p-worker-profile"},
    "placement": {"region": "us-east-1"},
    "subnet": {"filters": [{"name": "tag:Name", "values": ["ocp-gpu-x7k2p-private-us-east-1a"]}]},
}


def args(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "pool": {
            "name": "l4",
            "gpu": "l4",
            "gpus_per_node": 1,
            "cpus_per_node": 7,
            "memory_gib_per_node": 28,
            "min_nodes": 0,
            "max_nodes": 5,
        },
        "infrastructure_id": "ocp-gpu-x7k2p",
        "platform": "aws",
        "instance_type": "g6.2xlarge",
        "zones": ["us-east-1a", "us-east-1b"],
        "provider_spec": copy.deepcopy(AWS_SPEC),
    }
    pool = over.pop("pool", {})
    base["pool"].update(pool)
    base.update(over)
    return base


def plan_of(**over: Any) -> MachineSetPlan:
    return machine_set_plan(*machine_set_args(args(**over)))  # type: ignore[arg-type]


def problems(**over: Any) -> dict[str, str]:
    with pytest.raises(ArgumentsError) as err:
        plan_of(**over)
    return dict(err.value.problems)


def test_every_object_validates_against_the_machine_api_crds() -> None:
    plan = plan_of()
    objects = [z.machine_set for z in plan.zones] + [
        z.machine_autoscaler for z in plan.zones if z.machine_autoscaler
    ]
    assert len(objects) == 4
    for obj in objects:
        assert problems_of(obj) == [], obj["metadata"]["name"]


def test_the_cluster_autoscaler_gpu_limit_validates_in_a_cluster_autoscaler() -> None:
    plan = plan_of()
    autoscaler = {
        "apiVersion": "autoscaling.openshift.io/v1",
        "kind": "ClusterAutoscaler",
        "metadata": {"name": "default"},
        "spec": {"resourceLimits": {"gpus": [plan.gpu_limit]}},
    }
    assert problems_of(autoscaler) == []
    assert plan.gpu_limit == {"type": "nvidia-l4", "min": 0, "max": 5}


def test_nodes_get_the_gpu_taint_the_pool_labels_and_the_accelerator_label() -> None:
    plan = plan_of(pool={"taints": [{"key": "team", "value": "ml", "effect": "NoSchedule"}]})
    node = plan.zones[0].machine_set["spec"]["template"]["spec"]
    assert node["taints"][0] == {"key": GPU_TAINT.key, "value": GPU_TAINT.value, "effect": "NoSchedule"}
    assert {"key": "team", "value": "ml", "effect": "NoSchedule"} in node["taints"]
    assert node["metadata"]["labels"] == {
        **pool_labels(plan.pool, plan.driver),
        ACCELERATOR_LABEL: "nvidia-l4",
    }
    assert node["metadata"]["labels"]["gpu-platform.io/pool"] == "l4"


def test_machine_type_zone_and_spot_are_set_on_a_copy_of_the_provider_spec() -> None:
    given = args(pool={"spot": True})
    plan = machine_set_plan(*machine_set_args(given))  # type: ignore[arg-type]
    specs = [z.machine_set["spec"]["template"]["spec"]["providerSpec"]["value"] for z in plan.zones]
    assert [s["placement"]["availabilityZone"] for s in specs] == ["us-east-1a", "us-east-1b"]
    assert all(s["instanceType"] == "g6.2xlarge" and s["spotMarketOptions"] == {} for s in specs)
    assert all(s["ami"] == AWS_SPEC["ami"] for s in specs)
    assert given["provider_spec"] == AWS_SPEC  # the caller's dict is not changed


def test_gcp_gpu_vms_terminate_on_host_maintenance() -> None:
    plan = plan_of(
        pool={"gpu": "a100-40gb", "gpus_per_node": 1, "cpus_per_node": 11, "memory_gib_per_node": 80},
        platform="gcp",
        instance_type="a2-highgpu-1g",
        zones=["us-central1-a"],
        provider_spec={"kind": "GCPMachineProviderSpec", "projectID": "p"},
    )
    spec = plan.zones[0].machine_set["spec"]["template"]["spec"]["providerSpec"]["value"]
    assert spec["onHostMaintenance"] == "Terminate" and spec["zone"] == "us-central1-a"
    assert spec["machineType"] == "a2-highgpu-1g" and "gpus" not in spec


@pytest.mark.parametrize(("low", "high", "zones"), [(0, 5, 2), (3, 3, 3), (1, 7, 3), (0, 1, 1)])
def test_zone_sizes_add_up_to_the_pool_and_only_autoscaled_zones_get_an_autoscaler(
    low: int, high: int, zones: int
) -> None:
    names = ["us-east-1a", "us-east-1b", "us-east-1c"][:zones]
    plan = plan_of(pool={"min_nodes": low, "max_nodes": high}, zones=names)
    assert sum(z.machine_set["spec"]["replicas"] for z in plan.zones) == low
    scalers = [z.machine_autoscaler for z in plan.zones]
    assert (
        sum(
            s["spec"]["maxReplicas"] if s else z.machine_set["spec"]["replicas"]
            for s, z in zip(scalers, plan.zones, strict=True)
        )
        == high
    )
    for s, z in zip(scalers, plan.zones, strict=True):
        if s is not None:
            assert s["spec"]["scaleTargetRef"]["name"] == z.machine_set["metadata"]["name"]
            assert s["spec"]["minReplicas"] == z.machine_set["spec"]["replicas"] < s["spec"]["maxReplicas"]
    assert split_total(7, 3) == [3, 2, 2]


def test_a_mig_pool_at_zero_is_refused_because_the_autoscaler_cannot_see_its_slices() -> None:
    mig = {"gpu": "a100-80gb", "gpus_per_node": 8, "cpus_per_node": 92, "memory_gib_per_node": 1100}
    mig["sharing"] = {
        "mode": "mig",
        "mig": {"strategy": "mixed", "profiles": ["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]},
    }
    found = problems(pool={**mig, "min_nodes": 0}, instance_type="p4de.24xlarge")
    assert "MIG slices exist only once a node runs" in found["pool.min_nodes"]
    found = problems(pool={**mig, "min_nodes": 1}, instance_type="p4de.24xlarge")
    assert "leaves a zone's MachineSet at 0" in found["pool.min_nodes"]
    plan = plan_of(pool={**mig, "min_nodes": 2}, instance_type="p4de.24xlarge")
    assert [z.machine_set["spec"]["replicas"] for z in plan.zones] == [1, 1]


@pytest.mark.parametrize(
    ("over", "key", "text"),
    [
        ({"platform": "vsphere"}, "platform", "aws, azure, gcp"),
        ({"instance_type": "m5.large"}, "instance_type", "not a GPU machine type of the aws catalog"),
        ({"instance_type": "p5.48xlarge"}, "instance_type", "the pool declares 1 x"),
        ({"zones": ["eastus-1"]}, "zones[0]", "not a zone name on aws"),
        ({"zones": []}, "zones", "at least one zone"),
        ({"zones": ["us-east-1a", "us-east-1a"]}, "zones", "twice"),
        ({"provider_spec": {}}, "provider_spec", "worker MachineSet"),
        ({"infrastructure_id": "Bad_Name"}, "infrastructure_id", "infrastructure name"),
        ({"pool": {"max_nodes": 1}}, "pool.max_nodes", "fewer than the 2 zones"),
        ({"pool": {"name": "a-very-long-pool-name-for-gpus"}}, "pool.name", "longer than 57"),
        ({"driver": {"owner": "cloud"}}, "driver.owner", "Driver Toolkit"),
    ],
)
def test_bad_arguments_are_refused_naming_the_argument(over: dict[str, Any], key: str, text: str) -> None:
    found = problems(**over)
    assert key in found, found
    assert text in found[key]


def test_the_component_creates_machine_sets_with_replicas_left_to_the_autoscaler() -> None:
    from gpu_platform.clouds.openshift.machine_set import OpenShiftGpuMachineSet
    from gpu_platform.offline import run_program

    planned = run_program(lambda: OpenShiftGpuMachineSet("gpu", args()))  # type: ignore[arg-type]
    sets = [r for r in planned.resources if r.type == "kubernetes:machine.openshift.io/v1beta1:MachineSet"]
    scalers = [
        r
        for r in planned.resources
        if r.type == "kubernetes:autoscaling.openshift.io/v1beta1:MachineAutoscaler"
    ]
    assert sorted(r.name for r in sets) == ["gpu-us-east-1a", "gpu-us-east-1b"]
    assert all(r.options.get("ignoreChanges") == ["spec.replicas"] for r in sets), [r.options for r in sets]
    assert sorted(r.name for r in scalers) == ["gpu-us-east-1a-autoscaler", "gpu-us-east-1b-autoscaler"]
    component = next(r for r in planned.resources if r.type == "gpu-platform:index:OpenShiftGpuMachineSet")
    assert component.name == "gpu"


# --- the policy pack on MachineSets a program declares by hand ----------------------------------------


def _machine_set(props_spec: dict[str, Any]) -> Any:
    from gpu_platform.clouds.openshift.policy import MACHINE_SET
    from gpu_platform.policy import PolicyResource

    props = {"metadata": {"name": "gpu-a"}, "spec": {"template": {"spec": props_spec}}}
    return PolicyResource(MACHINE_SET, "gpu-a", f"urn:pulumi:t::p::{MACHINE_SET}::gpu-a", props, {})


@pytest.mark.parametrize(
    "provider",
    [
        {"instanceType": "p4d.24xlarge"},
        {"vmSize": "Standard_NC24ads_A100_v4"},
        {"machineType": "a2-highgpu-1g"},
        {"machineType": "n1-standard-8", "gpus": [{"type": "nvidia-tesla-t4", "count": 1}]},
    ],
)
def test_an_untainted_gpu_machine_set_is_refused_and_a_tainted_one_passes(provider: dict[str, Any]) -> None:
    from gpu_platform.policy import rules as R

    bare = R.gpu_pool_taint(_machine_set({"providerSpec": {"value": provider}}))
    assert len(bare) == 1 and bare[0].level == "mandatory"
    assert "spec.template.spec.taints" in bare[0].message and "'gpu-a'" in bare[0].message
    taint = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    assert R.gpu_pool_taint(_machine_set({"providerSpec": {"value": provider}, "taints": [taint]})) == []
    weak = {**taint, "effect": "PreferNoSchedule"}
    assert (
        "only PreferNoSchedule"
        in R.gpu_pool_taint(_machine_set({"providerSpec": {"value": provider}, "taints": [weak]}))[0].message
    )


def test_a_cpu_machine_set_is_not_a_gpu_pool() -> None:
    from gpu_platform.policy import rules as R

    assert R.gpu_pool_taint(_machine_set({"providerSpec": {"value": {"instanceType": "m6i.2xlarge"}}})) == []


def test_the_library_s_own_machine_sets_pass_every_rule() -> None:
    from gpu_platform.offline import run_program
    from gpu_platform.policy.offline import check_plan

    planned = run_program(lambda: __import__("gpu_platform").OpenShiftGpuMachineSet("gpu", args()))
    assert check_plan(planned) == []


def test_a_zone_s_own_provider_settings_are_merged_over_the_shared_ones() -> None:
    subnet_b = {"filters": [{"name": "tag:Name", "values": ["ocp-gpu-x7k2p-private-us-east-1b"]}]}
    plan = plan_of(zone_provider_specs={"us-east-1b": {"subnet": subnet_b}})
    a, b = (z.machine_set["spec"]["template"]["spec"]["providerSpec"]["value"] for z in plan.zones)
    assert a["subnet"] == AWS_SPEC["subnet"] and b["subnet"] == subnet_b
    assert b["ami"] == AWS_SPEC["ami"] and b["placement"] == {
        "region": "us-east-1",
        "availabilityZone": "us-east-1b",
    }
    found = problems(zone_provider_specs={"us-east-1c": {}})
    assert "not one of the zones" in found["zone_provider_specs.us-east-1c"]
