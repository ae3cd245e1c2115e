"""The ``serving`` section planned on every cloud: three models (one on a MIG slice, one on a whole GPU, one over
the 8 GPUs of an H100 node) become ``LLMInferenceService``s with the sizing's vLLM arguments, on their pools,
valid against KServe v0.20.0's CRD, after the LLMInferenceService controller's pinned releases; a model too big for
its pools is refused with the nearest fit."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform import versions
from gpu_platform.offline import Plan, run_plan
from gpu_platform.stack import load_platform
from tests.addons.serving.stacks import MIG_POOL, WHOLE_POOL, serving_raw, serving_stack
from tests.conftest import REPO
from tests.support.crds import problems_of
from tests.support.refusals import config_problems

LLMISVC = "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService"
RELEASE = "kubernetes:helm.sh/v3:Release"
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
CLOUDS = ["gke", "eks", "aks", "existing"]


@pytest.fixture(scope="module", params=CLOUDS)
def planned(request: pytest.FixtureRequest) -> tuple[str, Plan]:
    cloud = request.param
    return cloud, run_plan(REPO, "test", config_override=serving_stack(cloud))


def services(plan: Plan) -> dict[str, Any]:
    return {r.inputs["metadata"]["name"]: r for r in plan.by_type(LLMISVC)}


def main_container(r: Any) -> dict[str, Any]:
    (container,) = r.inputs["spec"]["template"]["containers"]
    assert container["name"] == "main"  # merges into kserve-config-llm-template's vLLM container by name
    return container


def vllm_args(r: Any) -> str:
    (env,) = main_container(r)["env"]
    assert env["name"] == "VLLM_ADDITIONAL_ARGS"
    return env["value"]


def test_three_models_run_where_their_sizing_put_them(planned: tuple[str, Plan]) -> None:
    cloud, plan = planned
    isvcs = services(plan)
    assert set(isvcs) == {"llama-8b", "qwen-7b", "llama-405b"}
    placement = {
        n: r.inputs["spec"]["template"]["nodeSelector"]["gpu-platform.io/pool"] for n, r in isvcs.items()
    }
    assert placement == {"llama-8b": MIG_POOL[cloud], "qwen-7b": WHOLE_POOL[cloud], "llama-405b": "h100"}
    limits = {n: main_container(r)["resources"]["limits"] for n, r in isvcs.items()}
    assert limits == {
        "llama-8b": {
            "nvidia.com/mig-3g.40gb": 1
        },  # 23.4 GB of a 36 GB budget: the 2g.20gb slice is too small
        "qwen-7b": {"nvidia.com/gpu": 1},
        "llama-405b": {"nvidia.com/gpu": 8},
    }
    for name, r in isvcs.items():
        assert main_container(r)["resources"]["requests"] == limits[name]
        assert GPU_TOLERATION in r.inputs["spec"]["template"]["tolerations"], name
        assert r.inputs["metadata"]["namespace"] == "llm"
        # KServe makes the HTTPRoute on this Gateway, the InferencePool and its endpoint picker.
        assert r.inputs["spec"]["router"] == {
            "gateway": {"refs": [{"name": "kserve-ingress-gateway", "namespace": "kserve"}]},
            "route": {},
            "scheduler": {},
        }


def test_vllm_arguments_match_the_sizing(planned: tuple[str, Plan]) -> None:
    _, plan = planned
    isvcs = services(plan)
    for name in ("llama-8b", "qwen-7b"):
        assert vllm_args(isvcs[name]) == "--max-model-len=8192 --gpu-memory-utilization=0.9"
        assert "parallelism" not in isvcs[name].inputs["spec"]  # one device: no --tensor-parallel-size
    big = isvcs["llama-405b"]
    # kserve-config-llm-template turns spec.parallelism.tensor into --tensor-parallel-size 8.
    assert big.inputs["spec"]["parallelism"] == {"tensor": 8}
    assert vllm_args(big) == "--max-model-len=8192 --gpu-memory-utilization=0.9"
    assert big.inputs["spec"]["model"] == {
        "uri": "hf://meta-llama/Llama-3.1-405B-Instruct",
        "name": "meta-llama/Llama-3.1-405B-Instruct",
    }
    # KEDA owns the replicas of an autoscaled model: KServe keeps the Deployment's only without spec.replicas.
    assert "replicas" not in isvcs["qwen-7b"].inputs["spec"]
    assert isvcs["llama-8b"].inputs["spec"]["replicas"] == 1


def test_start_up_deadline_grows_with_the_weights(planned: tuple[str, Plan]) -> None:
    """Downloaded weights (hf://) are read from local disk at 1 GB/s after 300 s of engine start, twice over:
    405.9 GB of fp8 weights give 2 x 706 s, 8B's 16.06 GB 2 x 317 s; Pulumi waits for the download (100 MB/s) too."""
    _, plan = planned
    isvcs = services(plan)
    probes = {n: main_container(r)["startupProbe"]["failureThreshold"] for n, r in isvcs.items()}
    assert probes == {"llama-405b": 142, "llama-8b": 64, "qwen-7b": 64}
    assert main_container(isvcs["llama-405b"])["startupProbe"]["periodSeconds"] == 10


def test_services_validate_against_the_crd(planned: tuple[str, Plan]) -> None:
    _, plan = planned
    for r in plan.by_type(LLMISVC):
        obj = {"apiVersion": "serving.kserve.io/v1alpha2", "kind": "LLMInferenceService", **r.inputs}
        assert problems_of(obj) == [], r.name


def test_the_controller_is_pinned_beside_kserve_and_services_wait_for_it(planned: tuple[str, Plan]) -> None:
    _, plan = planned
    crd = plan.one(RELEASE, "serving-crd")
    controller = plan.one(RELEASE, "serving-controller")
    presets = plan.one(RELEASE, "serving-presets")
    assert (crd.inputs["chart"], crd.inputs["version"]) == (versions.KSERVE_LLMISVC_CRD.chart, "v0.20.0")
    assert (controller.inputs["chart"], controller.inputs["version"]) == (
        versions.KSERVE_LLMISVC_RESOURCES.chart,
        versions.KSERVE_RESOURCES.version,
    )
    assert controller.inputs["values"] == {"kserve": {"createSharedResources": False}}
    assert presets.inputs["chart"] == versions.KSERVE_RUNTIME_CONFIGS.chart
    assert presets.inputs["name"] == "kserve-llmisvc-configs"
    assert presets.inputs["values"] == {"kserve": {"llmisvcConfigs": {"enabled": True}}}
    assert {r.inputs["namespace"] for r in (crd, controller, presets)} == {"kserve"}
    assert crd.urn in controller.depends_on and controller.urn in presets.depends_on
    kserve = plan.one(RELEASE, "kserve-helm")
    assert set(crd.depends_on) >= {kserve.urn}  # after KServe: its ConfigMap, issuer and namespace are shared
    namespace = plan.one("kubernetes:core/v1:Namespace", "serving-ns-llm")
    for r in plan.by_type(LLMISVC):
        assert {presets.urn, controller.urn, namespace.urn} <= set(r.depends_on), r.name
    # KServe's own runtimes release is untouched: no presets there.
    assert plan.one(RELEASE, "kserve-runtimes").inputs["values"] == {
        "kserve": {"servingruntime": {"enabled": True}}
    }


def test_the_gateway_and_the_autoscaler_are_in_the_plan(planned: tuple[str, Plan]) -> None:
    cloud, plan = planned
    gateway = plan.one("kubernetes:gateway.networking.k8s.io/v1:Gateway", "serving-gateway")
    assert (gateway.inputs["metadata"]["name"], gateway.inputs["metadata"]["namespace"]) == (
        "kserve-ingress-gateway",
        "kserve",
    )
    charts = {r.inputs["chart"] for r in plan.by_type(RELEASE)}
    envoy = {versions.ENVOY_GATEWAY.chart, versions.ENVOY_AI_GATEWAY.chart}
    assert (envoy <= charts) == (cloud != "gke")  # GKE's managed Gateway needs no chart
    assert versions.KEDA.chart in charts
    (scaled,) = plan.by_type("kubernetes:keda.sh/v1alpha1:ScaledObject")
    assert scaled.inputs["metadata"]["namespace"] == "llm"
    assert scaled.inputs["spec"]["scaleTargetRef"]["name"] == "qwen-7b-kserve"
    assert (scaled.inputs["spec"]["minReplicaCount"], scaled.inputs["spec"]["maxReplicaCount"]) == (2, 4)
    queries = " ".join(t["metadata"].get("query", "") for t in scaled.inputs["spec"]["triggers"])
    assert "vllm:num_requests_waiting" in queries
    # After the service: its scrape object, then the ScaledObject (KEDA's release and the scrape first).
    by_urn = {r.urn: r for r in plan.resources}
    (scrape,) = [by_urn[u] for u in scaled.depends_on]
    assert scrape.inputs["metadata"]["name"] == "qwen-7b-vllm"
    assert services(plan)["qwen-7b"].urn in scrape.depends_on
    assert plan.one(RELEASE, "serving-keda").urn in scrape.depends_on


def test_a_model_too_big_for_its_pools_is_refused_with_the_nearest_fit() -> None:
    raw = serving_raw("existing")
    raw["serving"]["models"].append(
        {
            "name": "llama-405b-bf16",
            "model": "llama-3.1-405b",
            "contextLength": 8192,
            "pools": ["l4", "h100-mig"],
        }
    )
    ((key, reason),) = config_problems(raw).items()
    assert key == "gpu-platform:serving.models[3].pools"
    assert reason.startswith(
        "llama-3.1-405b (bf16, 8192 tokens x 1 sequences) fits none of the declared pools"
    )
    # The closest of its declared shapes (the L4s over both nodes) and the smallest catalog shape that holds it.
    assert (
        "; nearest: pool 'l4' (1 x L4 24GB on each of 2 nodes) needs 449.8 GB per GPU of 21.6 GB;" in reason
    )
    assert "it would fit 8 x H200 141GB" in reason


def test_a_stack_without_serving_plans_no_controller() -> None:
    raw = serving_raw("existing")
    del raw["serving"]
    spec = load_platform(raw)
    assert spec.serving is None
