"""Generated InferenceServices validate against KServe v0.20.0's own CRD schema (v1beta1)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gpu_platform.addons.kserve.service import GpuInferenceService
from gpu_platform.offline import Plan
from tests.support.crds import problems_of

ISVC = "kubernetes:serving.kserve.io/v1beta1:InferenceService"


POOLS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "time-sliced-l4": (
        "gke",
        {
            "name": "l4",
            "machine_type": "g2-standard-8",
            "max_nodes": 2,
            "sharing": {"mode": "time-slicing", "replicas": 4},
        },
        {},
    ),
    "mig-mixed-h100": (
        "existing",
        {
            "name": "h100",
            "gpu": "h100-80gb",
            "gpus_per_node": 1,
            "max_nodes": 1,
            "sharing": {"mode": "mig", "mig": {"profiles": ["3g.40gb", "2g.20gb", "2g.20gb"]}},
        },
        {"mig_profile": "3g.40gb"},
    ),
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


@pytest.mark.parametrize("case", sorted(POOLS))
def test_generated_inference_services_validate(run_component: Callable[..., Plan], case: str) -> None:
    cloud, pool, extra = POOLS[case]
    args = {
        "pool": pool,
        "cloud": cloud,
        "model_format": "huggingface",
        "storage_uri": "hf://org/model",
        **extra,
    }
    plan = run_component(lambda: GpuInferenceService("svc", args))
    obj = plan.one(ISVC).inputs
    assert (obj["apiVersion"], obj["kind"]) == ("serving.kserve.io/v1beta1", "InferenceService")
    assert problems_of(obj) == []


def test_the_schema_check_can_fail(run_component: Callable[..., Plan]) -> None:
    cloud, pool, extra = POOLS["time-sliced-l4"]
    args = {"pool": pool, "cloud": cloud, "model_format": "huggingface", **extra}
    obj = run_component(lambda: GpuInferenceService("svc", args)).one(ISVC).inputs
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
