"""Prefill/decode disaggregation (``prefill_decode``): the planned LLMInferenceService has KServe's ``spec.prefill``
with pods sized like the decode pods, valid against KServe v0.20.0's CRD, with the weights' start-up deadline on
each role's vLLM port, the Kueue queue on the service (KServe copies it to both Deployments), the presets' images
from a mirror; and what cannot work refused with the setting and what is valid."""

from __future__ import annotations

from typing import Any, cast

import pytest

from gpu_platform.addons.serving.checks import resolve_serving_args
from gpu_platform.addons.serving.plan import serving_plan
from gpu_platform.addons.serving.settings import LlmServingArgs
from gpu_platform.errors import ArgumentsError
from gpu_platform.mirror import Mirror
from tests.support.crds import problems_of

POOLS: list[dict[str, Any]] = [
    {"name": "h100", "gpu": "h100-80gb", "gpus_per_node": 8, "max_nodes": 2},
    {
        "name": "mig",
        "gpu": "h100-80gb",
        "gpus_per_node": 1,
        "max_nodes": 1,
        "sharing": {"mode": "mig", "mig": {"profiles": ["3g.40gb", "2g.20gb", "2g.20gb"]}},
    },
]
BIG = {
    "name": "big",
    "model": "llama-3.1-70b",
    "context_length": 8192,
    "concurrent_sequences": 16,
    "pools": ["h100"],
}


def args(*models: dict[str, Any], **extra: Any) -> LlmServingArgs:
    return cast("LlmServingArgs", {"cloud": "existing", "pools": POOLS, "models": list(models), **extra})


def main_of(template: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in template["containers"] if c["name"] == "main")


def test_a_disaggregated_model_plans_spec_prefill() -> None:
    spec = resolve_serving_args(
        args({**BIG, "prefill_decode": {"prefill_replicas": 2}, "min_replicas": 3, "queue": "team-a"})
    )
    (model,) = spec.models
    assert model.prefill_replicas == 2
    (service,) = serving_plan(spec).services
    assert problems_of(service) == []
    s = service["spec"]
    assert s["replicas"] == 3
    assert s["prefill"]["replicas"] == 2
    assert s["prefill"]["parallelism"] == s["parallelism"] == {"tensor": 4}
    prefill, decode = main_of(s["prefill"]["template"]), main_of(s["template"])
    assert (
        prefill["resources"]
        == decode["resources"]
        == {
            "limits": {"nvidia.com/gpu": 4},
            "requests": {"nvidia.com/gpu": 4},
        }
    )
    assert s["prefill"]["template"]["nodeSelector"] == s["template"]["nodeSelector"] != {}
    assert s["prefill"]["template"]["tolerations"] == s["template"]["tolerations"] != []
    # 141.2 GB of weights: the same deadline on both; the decode preset's vLLM is behind the sidecar on 8001.
    assert prefill["startupProbe"]["failureThreshold"] == decode["startupProbe"]["failureThreshold"] == 89
    assert prefill["startupProbe"]["httpGet"] == {"path": "/health", "port": 8000}
    assert decode["startupProbe"]["httpGet"] == {"path": "/health", "port": 8001}
    # Kueue's label on the service: KServe copies it to the decode and the prefill pod templates.
    assert service["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a"


def test_prefill_replicas_default_to_one() -> None:
    (service,) = serving_plan(resolve_serving_args(args({**BIG, "prefill_decode": {}}))).services
    assert service["spec"]["prefill"]["replicas"] == 1
    assert problems_of(service) == []


def test_a_plain_model_has_no_prefill_and_keeps_port_8000() -> None:
    (service,) = serving_plan(resolve_serving_args(args(BIG))).services
    assert "prefill" not in service["spec"]
    assert main_of(service["spec"]["template"])["startupProbe"]["httpGet"]["port"] == 8000


def test_a_mirror_names_the_prefill_server_and_the_routing_sidecar() -> None:
    spec = resolve_serving_args(
        args({**BIG, "prefill_decode": {"prefill_replicas": 1}}, mirror={"images": "registry.acme/mirror"})
    )
    (service,) = serving_plan(spec).services
    assert problems_of(service) == []
    s = service["spec"]
    assert main_of(s["prefill"]["template"])["image"] == "registry.acme/mirror/llm-d/llm-d-cuda:v0.8.0"
    assert s["template"]["initContainers"] == [
        {
            "name": "llm-d-routing-sidecar",
            "image": "registry.acme/mirror/llm-d/llm-d-router-disagg-sidecar:v0.9.0",
        }
    ]
    assert spec.mirror == Mirror(images="registry.acme/mirror")


@pytest.mark.parametrize(
    ("model", "key", "phrase"),
    [
        (
            {**BIG, "prefill_decode": {"prefill_replicas": 0}},
            "models[0].prefill_decode.prefill_replicas",
            "0 is less than 1: a disaggregated model needs at least one prefill replica",
        ),
        (
            {"name": "x", "model": "llama-3.1-8b", "context_length": 8192, "prefill_decode": {}},
            "models[0].prefill_decode",
            "is placed on pool 'mig' with sharing 'mig': prefill/decode disaggregation moves the KV cache between "
            "whole GPUs",
        ),
        (
            {
                "name": "x",
                "model": "llama-3.1-405b",
                "context_length": 8192,
                "concurrent_sequences": 8,
                "pools": ["h100"],
                "prefill_decode": {},
            },
            "models[0].prefill_decode",
            "needs 2 nodes per replica (pipeline parallelism), and KServe v0.20.0 has no prefill preset for a "
            "replica spanning nodes",
        ),
    ],
)
def test_what_cannot_work_is_refused(model: dict[str, Any], key: str, phrase: str) -> None:
    with pytest.raises(ArgumentsError) as err:
        resolve_serving_args(args(model))
    ((where, reason),) = err.value.problems
    assert where == key
    assert phrase in reason
