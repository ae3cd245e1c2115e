"""The serving plan against the vendored charts and CRDs: the LLMInferenceService controller renders beside
kserve-resources without the shared resources, the presets release holds only the LLMInferenceServiceConfigs,
every service validates against KServe v0.20.0's CRD, the start-up deadline follows its formula, and the
section's checks refuse what cannot run."""

from __future__ import annotations

from collections import Counter
from typing import Any, cast

import pytest
import yaml

from gpu_platform.addons.serving import plan as serving
from gpu_platform.addons.serving.checks import resolve_serving_args
from gpu_platform.addons.serving.component import LlmServing
from gpu_platform.addons.serving.plan import serving_plan
from gpu_platform.addons.serving.settings import LlmServingArgs
from gpu_platform.errors import ArgumentsError
from gpu_platform.releases import KSERVE_LLMISVC_CRD, KSERVE_LLMISVC_RESOURCES
from tests.conftest import UPSTREAM
from tests.support.crds import problems_of
from tests.support.helm import CHARTS, render_chart

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


def args(*models: dict[str, Any], **extra: Any) -> LlmServingArgs:
    return cast("LlmServingArgs", {"cloud": "existing", "pools": POOLS, "models": list(models), **extra})


def test_controller_values_render_without_the_shared_resources() -> None:
    plan = serving_plan(
        resolve_serving_args(args({"name": "m", "model": "llama-3.1-8b", "context_length": 8192}))
    )
    objs = render_chart(
        "kserve-llmisvc-resources-v0.20.0",
        plan.controller_values,
        KSERVE_LLMISVC_RESOURCES.release_name,
        "kserve",
    )
    kinds = Counter(o["kind"] for o in objs)
    # kserve-resources holds inferenceservice-config, the storage containers and the issuer: not rendered twice.
    assert not {"ConfigMap", "ClusterStorageContainer", "Issuer"} & set(kinds)
    (deployment,) = [o for o in objs if o["kind"] == "Deployment"]
    images = [c["image"] for c in deployment["spec"]["template"]["spec"]["containers"]]
    assert images == ["kserve/llmisvc-controller:v0.20.0"]
    crds = {o["metadata"]["name"] for o in objs if o["kind"] == "CustomResourceDefinition"}
    assert "inferencepools.inference.networking.k8s.io" in crds  # the chart's GIE CRDs, unless told otherwise
    off = render_chart(
        "kserve-llmisvc-resources-v0.20.0",
        serving.controller_values(install_gie_crds=False),
        KSERVE_LLMISVC_RESOURCES.release_name,
        "kserve",
    )
    assert not [o for o in off if o["kind"] == "CustomResourceDefinition"]


def test_the_presets_release_holds_only_the_llm_presets_in_kserves_namespace() -> None:
    objs = render_chart(
        "kserve-runtime-configs-v0.20.0", serving.PRESET_VALUES, serving.PRESETS_RELEASE, "kserve"
    )
    assert {o["kind"] for o in objs} == {"LLMInferenceServiceConfig"}  # no ClusterServingRuntime twice
    names = {o["metadata"]["name"] for o in objs}
    assert {
        "kserve-config-llm-template",
        "kserve-config-llm-scheduler",
        "kserve-config-llm-router-route",
    } <= names
    assert {o["metadata"]["namespace"] for o in objs} == {serving.CONTROLLER_NAMESPACE}
    # The vLLM template's own start-up budget, which the plan's probe replaces: 60 x 10 s whatever the model.
    (template,) = [o for o in objs if o["metadata"]["name"] == "kserve-config-llm-template"]
    (main,) = template["spec"]["template"]["containers"]
    assert main["name"] == "main"
    assert (main["startupProbe"]["failureThreshold"], main["startupProbe"]["periodSeconds"]) == (60, 10)


def test_the_crd_release_ships_the_crd_services_are_checked_against() -> None:
    objs = render_chart("kserve-llmisvc-crd-v0.20.0", {}, KSERVE_LLMISVC_CRD.release_name, "kserve")
    by_name = {o["metadata"]["name"]: o for o in objs}
    vendored = yaml.safe_load(
        (UPSTREAM / "kserve" / "crds" / "serving.kserve.io_llminferenceservices.yaml").read_text()
    )
    crd = by_name["llminferenceservices.serving.kserve.io"]["spec"]
    assert crd["versions"] == vendored["spec"]["versions"]
    # Its conversion webhook is the controller's, in KServe's namespace: the controller goes there.
    service = crd["conversion"]["webhook"]["clientConfig"]["service"]
    assert service["namespace"] == serving.CONTROLLER_NAMESPACE
    # kserve-crd owns ClusterStorageContainer too: the chart renders it only when no other release does.
    text = (
        CHARTS
        / "kserve-llmisvc-crd-v0.20.0"
        / "templates"
        / "serving.kserve.io_clusterstoragecontainers.yaml"
    )
    assert "ne $owner .Release.Name" in text.read_text()


def test_start_up_deadline_follows_the_weights() -> None:
    """The probe and Pulumi's create timeout of each service come from its weights (model_cache.deadlines)."""
    spec = resolve_serving_args(
        args(
            {"name": "small", "model": "llama-3.1-8b", "context_length": 8192},
            {"name": "big", "model": "llama-3.1-70b", "context_length": 8192, "pools": ["h100"]},
        )
    )
    small, big = serving_plan(spec).models
    assert small.cache.kind == big.cache.kind == "download"  # hf://: KServe's storage initializer
    # 16.06 GB: 300 s + 17 s from local disk, twice over; 141.2 GB: 300 s + 142 s, twice over.
    assert small.service["spec"]["template"]["containers"][0]["startupProbe"]["failureThreshold"] == 64
    assert big.service["spec"]["template"]["containers"][0]["startupProbe"]["failureThreshold"] == 89
    assert (small.cache.deadlines.create_timeout, big.cache.deadlines.create_timeout) == ("26m", "72m")


def test_every_service_validates_and_uses_its_shape() -> None:
    spec = resolve_serving_args(
        args(
            {"name": "small", "model": "llama-3.1-8b", "context_length": 8192, "concurrent_sequences": 4},
            {
                "name": "big",
                "model": "llama-3.1-70b",
                "context_length": 8192,
                "concurrent_sequences": 16,
                "pools": ["h100"],
                "namespace": "team-a",
                "uri": "s3://models/llama-70b",
            },
        )
    )
    plan = serving_plan(spec)
    for obj in plan.services:
        assert problems_of(obj) == [], obj["metadata"]["name"]
    small, big = plan.services
    assert small["spec"]["template"]["containers"][0]["resources"]["limits"] == {"nvidia.com/mig-3g.40gb": 1}
    assert big["spec"]["parallelism"] == {"tensor": 4}
    assert big["spec"]["model"]["uri"] == "s3://models/llama-70b"
    assert big["metadata"]["namespace"] == "team-a"
    assert plan.namespaces == ("llm", "team-a")
    assert serving_plan(spec, existing_namespaces=frozenset({"team-a"})).namespaces == ("llm",)
    summary = plan.summary()
    assert summary["team-a/big"]["vllmArgs"] == [
        "--tensor-parallel-size=4",
        "--pipeline-parallel-size=1",
        "--max-model-len=8192",
        "--gpu-memory-utilization=0.9",
    ]
    assert summary["llm/small"]["device"] == "MIG 3g.40gb of H100 80GB"


def test_a_model_outside_the_catalog_is_sized_from_its_numbers() -> None:
    arch = {
        "params_b": 8.03,
        "layers": 32,
        "attention_heads": 32,
        "kv_heads": 8,
        "head_dim": 128,
        "max_context": 8192,
    }
    spec = resolve_serving_args(args({"name": "mine", "model": "acme/my-model", "architecture": arch}))
    (model,) = spec.models
    assert model.uri == "hf://acme/my-model"
    assert model.sizing.request.max_model_len == 8192
    assert model.pool.name == "mig"


@pytest.mark.parametrize(
    ("model", "key", "phrase"),
    [
        (
            {"name": "x", "model": "llama-3.1-8b", "pools": ["a100"]},
            "models[0].pools",
            "'a100' is not a GPU pool",
        ),
        ({"name": "x", "model": "nope/model"}, "models[0].model", "not in the model catalog"),
        (
            {
                "name": "x",
                "model": "llama-3.1-405b",
                "context_length": 8192,
                "concurrent_sequences": 8,
                "max_replicas": 2,
            },
            "models[0].max_replicas",
            "2 replicas of llama-3.1-405b (2 nodes each: pipeline parallelism 2 x tensor parallelism 8) need 4 "
            "nodes of pool 'h100', which has max_nodes 2",
        ),
        ({"name": "x", "model": "qwen2.5-7b", "context_length": 65536}, "models[0].context_length", "32768"),
        ({"name": "Bad_Name", "model": "llama-3.1-8b"}, "models[0].name", "DNS-1035"),
        (
            {"name": "x", "model": "llama-3.1-8b", "min_replicas": 3, "max_replicas": 2},
            "models[0].max_replicas",
            "less than minReplicas",
        ),
    ],
)
def test_the_component_refuses_what_cannot_run(model: dict[str, Any], key: str, phrase: str) -> None:
    with pytest.raises(ArgumentsError) as err:
        resolve_serving_args(args(model))
    ((where, reason),) = err.value.problems
    assert where == key
    assert phrase in reason


def test_the_component_creates_the_releases_then_the_services(run_component: Any) -> None:
    plan = run_component(
        lambda: LlmServing("llm", args({"name": "small", "model": "llama-3.1-8b", "context_length": 8192}))
    )
    releases = {r.name: r for r in plan.by_type("kubernetes:helm.sh/v3:Release")}
    # An existing cluster without a GatewayClass of its own: Envoy Gateway and Envoy AI Gateway, CRDs first.
    assert set(releases) == {
        "llm-crd",
        "llm-controller",
        "llm-presets",
        "llm-eg-crds",
        "llm-eg",
        "llm-aieg-crd",
        "llm-aieg",
    }
    assert releases["llm-eg-crds"].urn in releases["llm-eg"].depends_on
    assert releases["llm-crd"].urn in releases["llm-controller"].depends_on
    (svc,) = plan.by_type("kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService")
    assert releases["llm-presets"].urn in svc.depends_on
    assert svc.inputs["spec"]["template"]["containers"][0]["startupProbe"]["failureThreshold"] == 64
    gateway = plan.one("kubernetes:gateway.networking.k8s.io/v1:Gateway", "llm-gateway")
    assert gateway.urn in svc.depends_on
