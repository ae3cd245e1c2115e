"""The serving examples (GKE, EKS, AKS, an existing cluster) plan offline: three models each, on a MIG slice, a
whole GPU and one 8 x H100 node, every LLMInferenceService valid against KServe v0.20.0's CRD and the serving
releases rendered against their vendored charts."""

from __future__ import annotations

import pytest

from gpu_platform.offline import Plan, run_plan
from tests.conftest import REPO
from tests.support.crds import problems_of
from tests.support.helm import render_chart
from tests.support.mirror import rendered_objects

LLMISVC = "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService"
RELEASE = "kubernetes:helm.sh/v3:Release"
CHARTS = {
    "serving-crd": "kserve-llmisvc-crd-v0.20.0",
    "serving-controller": "kserve-llmisvc-resources-v0.20.0",
    "serving-presets": "kserve-runtime-configs-v0.20.0",
}
EXAMPLES = {"serving-gke": "l4", "serving-eks": "l4", "serving-aks": "a100", "serving-existing": "l4"}


@pytest.fixture(scope="module", params=sorted(EXAMPLES))
def example(request: pytest.FixtureRequest) -> tuple[str, Plan]:
    return request.param, run_plan(REPO / "examples" / request.param, "example")


def test_three_models_on_a_slice_a_gpu_and_a_node(example: tuple[str, Plan]) -> None:
    name, plan = example
    isvcs = {r.inputs["metadata"]["name"]: r.inputs for r in plan.by_type(LLMISVC)}
    assert set(isvcs) == {"llama-8b", "qwen-7b", "llama-405b"}
    shape = {}
    for model, obj in isvcs.items():
        assert (
            problems_of({"apiVersion": "serving.kserve.io/v1alpha2", "kind": "LLMInferenceService", **obj})
            == []
        )
        (main,) = obj["spec"]["template"]["containers"]
        shape[model] = (
            obj["spec"]["template"]["nodeSelector"]["gpu-platform.io/pool"],
            main["resources"]["limits"],
            obj["spec"].get("parallelism"),
        )
    mig = "a100-mig" if name == "serving-aks" else "h100-mig"
    assert shape == {
        "llama-8b": (mig, {"nvidia.com/mig-3g.40gb": 1}, None),
        "qwen-7b": (EXAMPLES[name], {"nvidia.com/gpu": 1}, None),
        "llama-405b": ("h100", {"nvidia.com/gpu": 8}, {"tensor": 8}),
    }
    assert isvcs["llama-405b"]["spec"]["model"]["uri"] == "hf://meta-llama/Llama-3.1-405B-Instruct-FP8"


def test_serving_releases_render_against_their_charts(example: tuple[str, Plan]) -> None:
    _, plan = example
    for resource, chart in CHARTS.items():
        r = plan.one(RELEASE, resource)
        objs = render_chart(chart, r.inputs.get("values") or {}, r.inputs["name"], r.inputs["namespace"])
        assert objs, resource


def test_every_release_renders_with_its_planned_values(example: tuple[str, Plan]) -> None:
    """The gateway's releases too: their values are read by the real templates (a missing key fails)."""
    name, plan = example
    deployments = {
        r.inputs["name"]: [o["metadata"]["name"] for o in rendered_objects(r) if o["kind"] == "Deployment"]
        for r in plan.by_type(RELEASE)
    }
    assert deployments["kserve-llmisvc-resources"] == ["llmisvc-controller-manager"]
    if name == "serving-gke":
        assert "eg" not in deployments  # GKE's managed Gateway, no chart
    else:
        assert deployments["eg"] == ["envoy-gateway"]
        assert deployments["aieg"] == ["ai-gateway-controller"]
