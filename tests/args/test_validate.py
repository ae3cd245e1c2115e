"""Every component checks its arguments against its ``*Args`` type before registering anything.

Unknown keys are refused by name (with the nearest valid key), missing required ones by name, a
plan-time field given an Output says so, and every problem carries its property path
(``pulumi.InputPropertiesError``, the convention of the Pulumi SDK and pulumi-eks).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pulumi
import pytest

import gpu_platform
from gpu_platform.args.validate import fields
from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import Plan, run_program

L4_POOL = {"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 2}
EKS_POOL = {"name": "l4", "machine_type": "g6.xlarge", "max_nodes": 2}
AKS_POOL = {"name": "t4", "machine_type": "Standard_NC8as_T4_v3", "max_nodes": 2}
EXISTING_POOL = {
    "name": "h100",
    "gpu": "h100-80gb",
    "gpus_per_node": 8,
    "cpus_per_node": 208,
    "memory_gib_per_node": 1872,
    "max_nodes": 2,
}

VALID: dict[str, dict[str, Any]] = {
    "GkeCluster": {"location": "us-central1"},
    "EksCluster": {},
    "AksCluster": {},
    "GkeGpuNodePool": {"cluster": "c", "location": "us-central1", "pool": L4_POOL},
    "EksGpuNodePool": {
        "cluster_name": "c",
        "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
        "subnet_ids": ["subnet-0123456789abcdef0"],
        "pool": EKS_POOL,
    },
    "AksGpuNodePool": {"resource_group_name": "rg", "cluster_name": "c", "pool": AKS_POOL},
    "GpuOperator": {"cloud": "gke", "pools": [L4_POOL]},
    "Kueue": {"cloud": "existing", "pools": [EXISTING_POOL]},
    "GpuFleet": {
        "manager": {"kubeconfig": "k"},
        "workers": [{"name": "w", "kubeconfig": "k", "cloud": "existing", "pools": [EXISTING_POOL]}],
        "cluster_queues": [{"name": "q", "pools": ["h100"]}],
        "teams": [{"name": "t", "cluster_queue": "q"}],
    },
    "CertManager": {},
    "KServe": {},
    "LlmServing": {
        "cloud": "existing",
        "pools": [EXISTING_POOL],
        "models": [{"name": "llama-70b", "model": "llama-3.1-70b", "context_length": 8192}],
    },
    "GpuInferenceService": {"cloud": "existing", "pool": EXISTING_POOL, "model_format": "huggingface"},
    "ClusterAutoscaler": {"cluster_name": "c", "region": "us-east-1"},
    "EfaDevicePlugin": {"pools": [{**EKS_POOL, "machine_type": "p5.48xlarge", "efa": True}]},
    "JobSet": {},
    "LeaderWorkerSet": {},
    "KubeflowTrainer": {},
    "KubeRay": {},
    "Volcano": {"cloud": "existing", "pools": [EXISTING_POOL]},
    # DRA and node auto-provisioning (issue 16)
    "DraDriver": {
        "cloud": "existing",
        "kubernetes_version": "1.34",
        "driver": {"owner": "operator"},
        "pools": [{**EXISTING_POOL, "allocation": "dra"}],
    },
    "EksKarpenter": {
        "cluster_name": "c",
        "subnet_ids": ["subnet-0123456789abcdef0"],
        "security_group_ids": ["g"],
    },
    "EksKarpenterGpuNodePool": {"pool": EKS_POOL, "node_role_name": "r", "discovery": "c"},
    "AksNapGpuNodePool": {"pool": AKS_POOL, "driver": {"owner": "cloud"}},
    "GkeGpuComputeClass": {"pool": L4_POOL},
    "GpuPlatform": {
        "cloud": "existing",
        "cluster": {"name": "onprem", "kubeconfig": "apiVersion: v1"},
        "gpu_pools": [EXISTING_POOL],
        "gpu_operator": {"driver": {"owner": "operator"}},
    },
    "GpuObservability": {"cloud": "gke"},
    "NetworkOperator": {
        "pools": [
            {"name": "nd", "machine_type": "Standard_ND96isr_H100_v5", "max_nodes": 2, "infiniband": True}
        ]
    },
    "GkeGpuDirect": {
        "cluster_name": "train",
        "region": "us-central1",
        "pools": [
            {
                "name": "a3m",
                "machine_type": "a3-megagpu-8g",
                "max_nodes": 2,
                "zones": ["us-central1-c"],
                "gpudirect": True,
            }
        ],
    },
    "SlurmCluster": {
        "cloud": "existing",
        "gpu_pools": [EXISTING_POOL],
        "pools": [EXISTING_POOL["name"]],
    },
    "OpenShiftGpuMachineSet": {
        "pool": {**EXISTING_POOL, "max_nodes": 2},
        "infrastructure_id": "ocp-x7k2p",
        "platform": "aws",
        "instance_type": "p5.48xlarge",
        "zones": ["us-east-1a"],
        "provider_spec": {"kind": "AWSMachineProviderConfig"},
    },
    "GpuDockerHost": {
        "cloud": "gke",
        "machine_type": "g2-standard-8",
        "gce": {"zone": "us-central1-a"},
        "egress": "nat",
        "services": [{"name": "app", "image": "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04", "gpus": 1}],
    },
}
REQUIRED: dict[str, str] = {
    "GkeCluster": "location",
    "GkeGpuNodePool": "cluster",
    "EksGpuNodePool": "node_role_arn",
    "AksGpuNodePool": "resource_group_name",
    "GpuOperator": "cloud",
    "Kueue": "pools",
    "GpuFleet": "workers",
    "LlmServing": "models",
    "GpuInferenceService": "model_format",
    "ClusterAutoscaler": "region",
    "EfaDevicePlugin": "pools",
    "Volcano": "pools",
    "DraDriver": "kubernetes_version",
    "EksKarpenter": "subnet_ids",
    "EksKarpenterGpuNodePool": "node_role_name",
    "AksNapGpuNodePool": "pool",
    "GkeGpuComputeClass": "pool",
    "GpuPlatform": "gpu_pools",
    "GpuObservability": "cloud",
    "NetworkOperator": "pools",
    "GkeGpuDirect": "region",
    "SlurmCluster": "gpu_pools",
    "OpenShiftGpuMachineSet": "instance_type",
    "GpuDockerHost": "machine_type",
}


def _build(name: str, args: Any) -> Callable[[], Any]:
    return lambda: getattr(gpu_platform, name)("x", args)


def _refused(name: str, args: Any) -> tuple[ArgumentsError, Plan | None]:
    """Build the component under mocks; return its error and prove nothing was registered."""
    registered: list[Plan] = []
    with pytest.raises(ArgumentsError) as err:
        registered.append(run_program(_build(name, args)))
    return err.value, None


def test_every_component_is_covered() -> None:
    assert set(VALID) == set(gpu_platform._COMPONENTS)


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_arguments_build(name: str) -> None:
    plan = run_program(_build(name, VALID[name]))
    [component] = [r for r in plan.resources if r.type == f"gpu-platform:index:{name}"]
    assert plan.children_of(component.urn), f"{name} created no children"


@pytest.mark.parametrize("name", sorted(VALID))
def test_unknown_key_is_refused_by_name_with_the_nearest_valid_key(name: str) -> None:
    args = dict(VALID[name])
    args_type = inspect.get_annotations(getattr(gpu_platform, name).__init__)["args"]
    key = fields(args_type)[-1]
    misspelled = key[:-1] + "x" + key[-1]
    args[misspelled] = "oops"
    error, _ = _refused(name, args)
    [detail] = [e for e in error.errors or [] if e["property_path"] == misspelled]
    assert f"unknown key '{misspelled}'" in detail["reason"]
    assert "did you mean" in detail["reason"]


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_missing_required_argument_is_refused_by_name(name: str) -> None:
    args = {k: v for k, v in VALID[name].items() if k != REQUIRED[name]}
    error, _ = _refused(name, args)
    assert {"property_path": REQUIRED[name], "reason": "required argument is missing"} in (error.errors or [])


def test_nested_problems_carry_the_whole_property_path() -> None:
    args = {
        **VALID["GpuOperator"],
        "pools": [L4_POOL, {**L4_POOL, "name": "l4b", "sharing": {"mode": "time-slicing", "replicas": 1}}],
        "driver": {"owner": "nobody"},
    }
    error, _ = _refused("GpuOperator", args)
    paths = {e["property_path"] for e in error.errors or []}
    assert paths == {"pools[1].sharing.replicas", "driver.owner"}
    assert isinstance(error, pulumi.InputPropertiesError)


def test_all_problems_of_one_component_are_reported_at_once() -> None:
    pool = {**L4_POOL, "min_nodes": 5, "max_nodes": 2, "spot_max_price": 1.0, "machine_typ": "x"}
    error, _ = _refused(
        "GkeGpuNodePool", {**VALID["GkeGpuNodePool"], "pool": pool, "workload_identity": "yes"}
    )
    paths = sorted(e["property_path"] for e in error.errors or [])
    assert paths == ["pool.machine_typ", "workload_identity"]
    pool = {**L4_POOL, "min_nodes": 5, "max_nodes": 2, "spot_max_price": 1.0}
    error, _ = _refused("GkeGpuNodePool", {**VALID["GkeGpuNodePool"], "pool": pool})
    paths = sorted(e["property_path"] for e in error.errors or [])
    assert paths == ["pool.min_nodes", "pool.spot_max_price"]


def test_a_plan_time_field_given_an_output_says_so() -> None:
    def program() -> None:
        pools = pulumi.Output.from_input([L4_POOL])
        gpu_platform.GpuOperator("op", {"cloud": "gke", "pools": pools})  # type: ignore[typeddict-item]

    with pytest.raises(ArgumentsError) as err:
        run_program(program)
    [detail] = err.value.errors or []
    assert detail["property_path"] == "pools"
    assert "known at plan time" in detail["reason"]


def test_a_deploy_time_field_may_be_an_output() -> None:
    def program() -> None:
        cluster = pulumi.Output.from_input("made-elsewhere")
        gpu_platform.GkeGpuNodePool("l4", {**VALID["GkeGpuNodePool"], "cluster": cluster})

    pool = run_program(program).one("gcp:container/nodePool:NodePool")
    assert pool.inputs["cluster"] == "made-elsewhere"


def test_wrong_kinds_are_refused_not_coerced() -> None:
    pool = {**L4_POOL, "max_nodes": True, "cuda_version": 12.1}
    error, _ = _refused("GkeGpuNodePool", {**VALID["GkeGpuNodePool"], "pool": pool})
    reasons = {e["property_path"]: e["reason"] for e in error.errors or []}
    assert "is not a whole number" in reasons["pool.max_nodes"]
    assert "quote it" in reasons["pool.cuda_version"]


def test_plain_values_are_exposed_besides_outputs() -> None:
    built: list[Any] = []
    run_program(lambda: built.append(gpu_platform.GkeGpuNodePool("l4", VALID["GkeGpuNodePool"])))
    plan = built[0].plan
    assert plan.taint_dicts[0] == {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    assert plan.labels["gpu-platform.io/pool"] == "l4"
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in plan.tolerations
