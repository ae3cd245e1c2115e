"""GpuInferenceService: whole units of the pool's advertised resource, placed on that pool only.

Kubernetes rejects fractional extended resources and request != limit (kubernetes/kubernetes
``pkg/apis/core/validation/validation.go``), so every predictor must ask for N whole units of exactly what
its pool advertises. Every InferenceService it generates validates against KServe v0.20.0's own CRD schema
(v1beta1).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pulumi
import pytest

from gpu_platform.addons.kserve.service import GpuInferenceService
from gpu_platform.addons.kserve.service_plan import gpu_inference_service_plan
from gpu_platform.errors import ArgumentsError, ConfigError
from gpu_platform.offline import Plan
from gpu_platform.offline.recorder import run_under_mocks, start_mock_runtime
from gpu_platform.stack import load_platform
from tests.support.crds import problems_of

ISVC = "kubernetes:serving.kserve.io/v1beta1:InferenceService"

L4_TIME_SLICED = {
    "name": "l4",
    "machine_type": "g2-standard-8",
    "max_nodes": 2,
    "sharing": {"mode": "time-slicing", "replicas": 4},
}
H100_MIG_MIXED = {
    "name": "h100",
    "gpu": "h100-80gb",
    "gpus_per_node": 1,
    "max_nodes": 1,
    "sharing": {"mode": "mig", "mig": {"profiles": ["3g.40gb", "2g.20gb", "2g.20gb"]}},
}


def build(run_component: Callable[..., Plan], cloud: str, pool: dict[str, Any], **kw: Any) -> dict[str, Any]:
    """Plan one service and return its InferenceService inputs."""
    args = {
        "pool": pool,
        "cloud": cloud,
        "model_format": "huggingface",
        "storage_uri": "hf://org/model",
        **kw,
    }

    def program() -> None:
        # Callables become Outputs inside the program, on the plan's own event loop.
        built = {k: (v() if callable(v) else v) for k, v in args.items()}
        GpuInferenceService("svc", built)

    plan = run_component(program)
    return plan.one(ISVC).inputs


def predictor(inputs: dict[str, Any]) -> dict[str, Any]:
    return inputs["spec"]["predictor"]


@pytest.mark.parametrize(
    ("cloud", "pool", "extra", "resource", "units"),
    [
        ("gke", {"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 1}, {}, "nvidia.com/gpu", 1),
        (
            "gke",
            {"name": "l4x4", "machine_type": "g2-standard-48", "max_nodes": 1},
            {"gpus": 4},
            "nvidia.com/gpu",
            4,
        ),
        ("gke", L4_TIME_SLICED, {}, "nvidia.com/gpu", 1),
        (
            "eks",
            {
                "name": "l4s",
                "machine_type": "g6.xlarge",
                "max_nodes": 1,
                "sharing": {"mode": "time-slicing", "replicas": 4, "rename_by_default": True},
            },
            {},
            "nvidia.com/gpu.shared",
            1,
        ),
        ("existing", H100_MIG_MIXED, {"mig_profile": "3g.40gb"}, "nvidia.com/mig-3g.40gb", 1),
        ("existing", H100_MIG_MIXED, {"mig_profile": "2g.20gb", "gpus": 2.0}, "nvidia.com/mig-2g.20gb", 2),
        (
            "eks",
            {
                "name": "p5",
                "machine_type": "p5.48xlarge",
                "max_nodes": 1,
                "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb"}},
            },
            {},
            "nvidia.com/mig-1g.10gb",
            1,
        ),
        (
            "eks",
            {
                "name": "p5s",
                "machine_type": "p5.48xlarge",
                "max_nodes": 1,
                "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb", "strategy": "single"}},
            },
            {},
            "nvidia.com/gpu",
            1,
        ),
    ],
    ids=[
        "plain",
        "plain-4",
        "time-sliced",
        "time-sliced-renamed",
        "mig-mixed-3g",
        "mig-mixed-2x2g",
        "mig-mixed-one-profile",
        "mig-single",
    ],
)
def test_requestswhole_units_of_the_advertised_resource(
    run_component: Callable[..., Plan], cloud: str, pool: dict, extra: dict, resource: str, units: int
) -> None:
    resources = predictor(build(run_component, cloud, pool, **extra))["model"]["resources"]
    expected = {resource: units, "cpu": "2", "memory": "8Gi"}
    assert resources == {"limits": expected, "requests": expected}
    assert isinstance(resources["limits"][resource], int)


def test_placement_on_the_pool_and_deployment_mode(run_component: Callable[..., Plan]) -> None:
    inputs = build(run_component, "gke", L4_TIME_SLICED, namespace="ml", args=["--max-model-len=4096"])
    p = predictor(inputs)
    assert p["nodeSelector"] == {"gpu-platform.io/pool": "l4", "gpu-platform.io/gpu": "l4"}
    assert p["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert (p["minReplicas"], p["maxReplicas"]) == (1, 1)
    assert p["model"]["modelFormat"] == {"name": "huggingface"}
    assert p["model"]["storageUri"] == "hf://org/model"
    # A 4-way time-sliced GPU: vLLM's memory fraction first, so four servers fit (test_gpu_memory.py).
    assert p["model"]["args"] == ["--gpu-memory-utilization=0.22", "--max-model-len=4096"]
    assert "runtime" not in p["model"]
    assert inputs["metadata"]["name"] == "svc" and inputs["metadata"]["namespace"] == "ml"
    assert inputs["metadata"]["annotations"] == {"serving.kserve.io/deploymentMode": "Standard"}
    assert "labels" not in inputs["metadata"]


def test_aks_spot_pool_tolerates_the_gpu_taint_the_users_and_the_spot_taint(
    run_component: Callable[..., Plan],
) -> None:
    pool = {
        "name": "a100spot",
        "machine_type": "Standard_NC24ads_A100_v4",
        "max_nodes": 2,
        "spot": True,
        "taints": [{"key": "team", "value": "ml", "effect": "NoSchedule"}],
    }
    tolerations = predictor(build(run_component, "aks", pool))["tolerations"]
    assert tolerations == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "team", "operator": "Equal", "value": "ml", "effect": "NoSchedule"},
        {
            "key": "kubernetes.azure.com/scalesetpriority",
            "operator": "Equal",
            "value": "spot",
            "effect": "NoSchedule",
        },
    ]


def test_kueue_queue_and_priority_labels(run_component: Callable[..., Plan]) -> None:
    inputs = build(
        run_component,
        "gke",
        L4_TIME_SLICED,
        queue="default",
        priority_class="inference-high",
        min_replicas=2,
        max_replicas=4,
        cpu="4",
        memory="16Gi",
        runtime="kserve-huggingfaceserver",
        deployment_mode="Knative",
    )
    assert inputs["metadata"]["labels"] == {
        "kueue.x-k8s.io/queue-name": "default",
        "kueue.x-k8s.io/priority-class": "inference-high",
    }
    assert inputs["metadata"]["annotations"] == {"serving.kserve.io/deploymentMode": "Knative"}
    p = predictor(inputs)
    assert (p["minReplicas"], p["maxReplicas"]) == (2, 4)
    assert p["model"]["runtime"] == "kserve-huggingfaceserver"
    assert p["model"]["args"] == ["--gpu-memory-utilization=0.22"]
    assert p["model"]["resources"]["requests"] == {"nvidia.com/gpu": 1, "cpu": "4", "memory": "16Gi"}


def refused(run_component: Callable[..., Plan], cloud: str, pool: dict, **kw: Any) -> ArgumentsError:
    with pytest.raises(ArgumentsError) as exc:
        build(run_component, cloud, pool, **kw)
    return exc.value


@pytest.mark.parametrize("gpus", [0.5, 0, 1.5, -1])
def test_fractional_or_zero_gpus_are_refused_naming_the_argument(
    run_component: Callable[..., Plan], gpus: float
) -> None:
    err = refused(run_component, "gke", L4_TIME_SLICED, gpus=gpus)
    assert [p for p, _ in err.problems] == ["gpus"]
    assert "whole number" in str(err) and str(gpus) in str(err)


def test_refusals_name_the_argument(run_component: Callable[..., Plan]) -> None:
    err = refused(run_component, "existing", H100_MIG_MIXED)
    assert err.problems[0][0] == "mig_profile" and "2g.20gb, 3g.40gb" in err.problems[0][1]
    err = refused(run_component, "existing", H100_MIG_MIXED, mig_profile="1g.10gb")
    assert err.problems[0][0] == "mig_profile" and "nvidia.com/mig-1g.10gb" in err.problems[0][1]
    err = refused(run_component, "gke", L4_TIME_SLICED, gpus=5)
    assert err.problems == [("gpus", "5 x nvidia.com/gpu do not fit on one node of 'l4' (4 per node)")]
    strict = {
        **L4_TIME_SLICED,
        "sharing": {**L4_TIME_SLICED["sharing"], "fail_requests_greater_than_one": True},
    }
    err = refused(run_component, "gke", strict, gpus=2)
    assert err.problems[0][0] == "gpus" and "fail_requests_greater_than_one" in err.problems[0][1]
    mps = {**L4_TIME_SLICED, "machine_type": "g2-standard-48", "sharing": {"mode": "mps", "replicas": 2}}
    err = refused(run_component, "gke", mps, gpus=2)
    assert err.problems[0][0] == "gpus" and "MPS" in err.problems[0][1]
    gke_shared = {**L4_TIME_SLICED, "sharing": {**L4_TIME_SLICED["sharing"], "managed_by": "cloud"}}
    err = refused(run_component, "gke", gke_shared, gpus=2)
    assert err.problems[0][0] == "gpus" and "GKE" in err.problems[0][1]
    # Plain operator time-slicing still lets a pod take 2 replicas (it only gets a shared GPU).
    limits = predictor(build(run_component, "gke", L4_TIME_SLICED, gpus=2))["model"]["resources"]["limits"]
    assert limits["nvidia.com/gpu"] == 2
    err = refused(
        run_component,
        "gke",
        L4_TIME_SLICED,
        min_replicas=3,
        max_replicas=2,
        cpu="two",
        deployment_mode="Serverless",
    )
    assert {p for p, _ in err.problems} == {"max_replicas", "cpu", "deployment_mode"}
    err = refused(run_component, "gke", {**L4_TIME_SLICED, "machine_type": "g2-huge"})
    assert err.problems[0][0] == "pool.machine_type" and "'g2-huge'" in err.problems[0][1]


def test_gpus_must_be_known_at_plan_time(run_component: Callable[..., Plan]) -> None:
    # The request decides what the predictor asks for and where it fits: an Output is refused up front
    # (nothing registered) instead of being checked later inside an apply.
    err = refused(run_component, "gke", L4_TIME_SLICED, gpus=lambda: pulumi.Output.from_input(2))
    assert [p for p, _ in err.problems] == ["gpus"]
    assert "plan time" in err.problems[0][1] and "Output" in err.problems[0][1]
    # A whole number written as a float is accepted and requested as an integer.
    plan = gpu_inference_service_plan(
        "svc", {"pool": L4_TIME_SLICED, "cloud": "gke", "model_format": "huggingface", "gpus": 3.0}
    )
    assert (plan.request.resource, plan.request.units) == ("nvidia.com/gpu", 3)
    assert isinstance(plan.request.units, int)
    assert plan.spec["predictor"]["model"]["resources"]["limits"]["nvidia.com/gpu"] == 3


def test_nothing_is_registered_when_refused() -> None:
    monitor = start_mock_runtime("test", "test", {}, [])

    def program() -> None:
        GpuInferenceService(
            "bad", {"pool": L4_TIME_SLICED, "cloud": "gke", "model_format": "huggingface", "gpus": 0.5}
        )

    with pytest.raises(ArgumentsError):
        run_under_mocks(program)
    assert monitor.registrations == []


def stack(gpus: Any) -> dict[str, Any]:
    return {
        "cloud": "gke",
        "cluster": {"name": "c", "project": "p", "region": "us-central1"},
        "gpuPools": [
            {
                "name": "l4",
                "machineType": "g2-standard-8",
                "maxNodes": 2,
                "sharing": {"mode": "time-slicing", "replicas": 4},
            }
        ],
        "kserve": {
            "enabled": True,
            "services": [{"name": "m", "pool": "l4", "modelFormat": "huggingface", "gpus": gpus}],
        },
    }


@pytest.mark.parametrize("gpus", [0.5, 0])
def test_stack_config_refuses_fractional_or_zero_gpus_naming_the_key(gpus: float) -> None:
    with pytest.raises(ConfigError) as exc:
        load_platform(stack(gpus))
    paths = [p for p, _ in exc.value.problems]
    assert "gpu-platform:kserve.services[0].gpus" in paths
    assert f"gpu-platform:kserve.services[0].gpus: {gpus:g} is not a whole number" in str(exc.value)


def test_stack_config_accepts_one_replica() -> None:
    spec = load_platform(stack(1))
    assert spec.kserve is not None
    [(service, request)] = spec.kserve.services
    assert service["gpus"] == 1
    assert (request.pool.name, request.resource, request.units) == ("l4", "nvidia.com/gpu", 1)


CRD_CASES: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "time-sliced-l4": ("gke", L4_TIME_SLICED, {}),
    "mig-mixed-h100": ("existing", H100_MIG_MIXED, {"mig_profile": "3g.40gb"}),
    "aks-spot-a100": (
        "aks",
        {"name": "a100", "machine_type": "Standard_NC24ads_A100_v4", "max_nodes": 1, "spot": True},
        {"queue": "default", "priority_class": "inference-high"},
    ),
    "eks-renamed": (
        "eks",
        {
            "name": "l4s",
            "machine_type": "g6.xlarge",
            "max_nodes": 1,
            "sharing": {"mode": "time-slicing", "replicas": 2, "rename_by_default": True},
        },
        {
            "runtime": "kserve-huggingfaceserver",
            "args": ["--gpu-memory-utilization=0.45"],
            "min_replicas": 0,
            "max_replicas": 3,
            "deployment_mode": "Knative",
        },
    ),
}


@pytest.mark.parametrize("case", sorted(CRD_CASES))
def test_generated_inference_services_validate(run_component: Callable[..., Plan], case: str) -> None:
    cloud, pool, extra = CRD_CASES[case]
    obj = build(run_component, cloud, pool, **extra)
    assert (obj["apiVersion"], obj["kind"]) == ("serving.kserve.io/v1beta1", "InferenceService")
    assert problems_of(obj) == []


def test_the_schema_check_can_fail(run_component: Callable[..., Plan]) -> None:
    obj = build(run_component, "gke", L4_TIME_SLICED)
    obj["spec"]["predictor"]["minReplicas"] = "1"
    assert any("'1' is not of type 'integer'" in p for p in problems_of(obj))
    obj["spec"]["predictor"]["minReplicas"] = 1
    obj["spec"]["predictor"]["tolerations"] = {"key": "nvidia.com/gpu"}
    assert any("is not of type 'array'" in p for p in problems_of(obj))


def test_serving_runtime_schema_is_loadable() -> None:
    """The ServingRuntime validator works (the library relies on upstream ClusterServingRuntimes)."""
    runtime = {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ServingRuntime",
        "metadata": {"name": "vllm"},
        "spec": {
            "supportedModelFormats": [{"name": "huggingface", "autoSelect": True}],
            "containers": [{"name": "kserve-container", "image": "vllm/vllm-openai:v0.11.0"}],
        },
    }
    assert problems_of(runtime) == []
    bad = {**runtime, "metadata": {"name": "x"}, "spec": {"containers": "not-a-list"}}
    assert any("is not of type 'array'" in p for p in problems_of(bad))
