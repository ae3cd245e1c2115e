"""Generated InferenceServices validate against KServe v0.20.0's own CRD schema (v1beta1)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jsonschema
import pytest
import yaml

from gpu_platform.inference import GpuInferenceService
from gpu_platform.offline import Plan
from tests.conftest import upstream

ISVC = "kubernetes:serving.kserve.io/v1beta1:InferenceService"


@functools.cache
def _crd_schema(filename: str, version: str) -> dict[str, Any]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    crd = yaml.load(upstream("kserve", "crds", filename).read_text(), Loader=loader)
    for v in crd["spec"]["versions"]:
        if v["name"] == version:
            return v["schema"]["openAPIV3Schema"]
    raise LookupError(f"{filename} serves no {version}")


@functools.cache
def _validator(filename: str, version: str) -> jsonschema.protocols.Validator:
    schema = _crd_schema(filename, version)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
    return cls(schema)


def validate_inference_service(obj: dict[str, Any]) -> None:
    """Raise ``jsonschema.ValidationError`` unless ``obj`` fits the InferenceService v1beta1 schema.

    The ~2 MB CRD is parsed once per test session (the function is cached).
    """
    assert obj["apiVersion"] == "serving.kserve.io/v1beta1" and obj["kind"] == "InferenceService"
    _validator("serving.kserve.io_inferenceservices.yaml", "v1beta1").validate(obj)


def inference_service_errors(obj: dict[str, Any]) -> list[str]:
    """Every schema violation of ``obj`` as ``path: message`` (empty when it fits the CRD)."""
    validator = _validator("serving.kserve.io_inferenceservices.yaml", "v1beta1")
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(obj)]


def validate_serving_runtime(obj: dict[str, Any]) -> None:
    """Same for ServingRuntime v1alpha1 (for any runtime an example adds)."""
    assert obj["apiVersion"] == "serving.kserve.io/v1alpha1" and obj["kind"] == "ServingRuntime"
    _validator("serving.kserve.io_servingruntimes.yaml", "v1alpha1").validate(obj)


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
    assert inference_service_errors(obj) == []


def test_the_schema_check_can_fail(run_component: Callable[..., Plan]) -> None:
    cloud, pool, extra = POOLS["time-sliced-l4"]
    args = {"pool": pool, "cloud": cloud, "model_format": "huggingface", **extra}
    obj = run_component(lambda: GpuInferenceService("svc", args)).one(ISVC).inputs
    obj["spec"]["predictor"]["minReplicas"] = "1"
    with pytest.raises(jsonschema.ValidationError):
        validate_inference_service(obj)
    obj["spec"]["predictor"]["minReplicas"] = 1
    obj["spec"]["predictor"]["tolerations"] = {"key": "nvidia.com/gpu"}
    with pytest.raises(jsonschema.ValidationError):
        validate_inference_service(obj)


def test_serving_runtime_schema_is_loadable() -> None:
    """The ServingRuntime validator works (the library relies on upstream ClusterServingRuntimes)."""
    validate_serving_runtime(
        {
            "apiVersion": "serving.kserve.io/v1alpha1",
            "kind": "ServingRuntime",
            "metadata": {"name": "vllm"},
            "spec": {
                "supportedModelFormats": [{"name": "huggingface", "autoSelect": True}],
                "containers": [{"name": "kserve-container", "image": "vllm/vllm-openai:v0.11.0"}],
            },
        }
    )
    with pytest.raises(jsonschema.ValidationError):
        validate_serving_runtime(
            {
                "apiVersion": "serving.kserve.io/v1alpha1",
                "kind": "ServingRuntime",
                "metadata": {"name": "x"},
                "spec": {"containers": "not-a-list"},
            }
        )
