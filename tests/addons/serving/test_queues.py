"""Served models are charged to a team's Kueue quota: on a pool a team's ClusterQueue owns, the model's
``LLMInferenceService`` carries its LocalQueue's ``kueue.x-k8s.io/queue-name`` label (KServe copies it onto the
Deployment and its pods, where Kueue gates and charges them); a queue that is no team's, or cannot reach the
model's pool, and a model on a team's pool outside every team namespace, are refused naming what is valid."""

from __future__ import annotations

import copy
from typing import Any

from gpu_platform.addons.serving.checks import resolve_serving_args
from gpu_platform.addons.serving.plan import serving_plan
from gpu_platform.offline import run_plan
from gpu_platform.stack import load_platform
from tests.addons.serving.stacks import serving_raw
from tests.addons.serving.test_plan import args
from tests.conftest import REPO
from tests.support.crds import problems_of
from tests.support.refusals import config_problems

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
"""Kueue v0.19.2's queue label, written out: the test does not read the library's constant."""
LLMISVC = "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService"


def with_teams(**kueue: Any) -> dict[str, Any]:
    """The existing-cluster serving stack (models in namespace ``llm`` on pools h100-mig, l4 and h100) with
    Kueue teams: ``ml`` in ``llm`` over h100 and h100-mig, ``research`` in ``research`` over l4."""
    raw = copy.deepcopy(serving_raw("existing"))
    for model in raw["serving"]["models"]:
        model.pop("maxReplicas", None)  # no observability here: fixed replicas
    raw["kueue"] = {
        "clusterQueues": [
            {"name": "ml", "pools": ["h100", "h100-mig"]},
            {"name": "research", "pools": ["l4"]},
        ],
        "teams": [
            {"name": "ml", "clusterQueue": "ml", "namespace": "llm", "queueName": "serving"},
            {"name": "research", "clusterQueue": "research"},
        ],
        **kueue,
    }
    return raw


def labels(raw: dict[str, Any]) -> dict[str, dict[str, str]]:
    spec = load_platform(raw).serving
    assert spec is not None
    return {s["metadata"]["name"]: s["metadata"]["labels"] for s in serving_plan(spec).services}


def test_a_model_on_a_team_pool_is_labelled_with_its_namespace_s_team_queue() -> None:
    raw = with_teams()
    raw["serving"]["models"][1]["namespace"] = "research"  # qwen-7b on l4, research's pool
    found = labels(raw)
    assert found["llama-8b"] == {"gpu-platform.io/pool": "h100-mig", QUEUE_LABEL: "serving"}
    assert found["llama-405b"] == {"gpu-platform.io/pool": "h100", QUEUE_LABEL: "serving"}
    assert found["qwen-7b"] == {"gpu-platform.io/pool": "l4", QUEUE_LABEL: "default"}


def test_a_model_on_a_team_pool_outside_every_team_namespace_is_refused() -> None:
    found = config_problems(
        with_teams()
    )  # qwen-7b in llm on l4: research's quota, no LocalQueue in llm reaches it
    assert set(found) == {"gpu-platform:serving.models[1].queue"}
    reason = found["gpu-platform:serving.models[1].queue"]
    assert "pool 'l4' is under the quota of ClusterQueue research" in reason
    assert "valid for pool 'l4' (namespace/queue): research/default" in reason


def test_a_queue_that_is_no_team_s_is_refused_naming_the_valid_ones() -> None:
    raw = with_teams()
    raw["serving"]["models"][1].update(namespace="research")
    raw["serving"]["models"][0]["queue"] = "gpu"
    found = config_problems(raw)
    assert set(found) == {"gpu-platform:serving.models[0].queue"}
    assert found["gpu-platform:serving.models[0].queue"] == (
        "no Kueue LocalQueue 'gpu' in namespace 'llm' (kueue.teams); valid for pool 'h100-mig' "
        "(namespace/queue): llm/serving"
    )


def test_a_queue_whose_cluster_queue_cannot_reach_the_pool_is_refused() -> None:
    raw = with_teams()
    model = raw["serving"]["models"][1]
    model.update(namespace="research", pools=["h100"], model="qwen2.5-7b")  # research owns l4 only
    model["queue"] = "default"
    found = config_problems(raw)
    assert set(found) == {"gpu-platform:serving.models[1].queue"}
    reason = found["gpu-platform:serving.models[1].queue"]
    assert "ClusterQueue 'research', which neither owns pool 'h100'" in reason
    assert "never admit the model's pods" in reason


def test_a_model_on_a_pool_no_team_owns_gets_no_label() -> None:
    raw = with_teams()
    # research only borrows, from batch, which owns l4 and feeds no team: no team's quota covers l4.
    raw["kueue"]["clusterQueues"][1].update(pools=[], cohort="shared")
    raw["kueue"]["clusterQueues"].append({"name": "batch", "pools": ["l4"], "cohort": "shared"})
    assert labels(raw)["qwen-7b"] == {"gpu-platform.io/pool": "l4"}


def test_a_queue_with_kueue_off_is_refused() -> None:
    raw = copy.deepcopy(serving_raw("existing"))
    raw["kueue"] = {"enabled": False}
    raw["serving"]["models"][0]["queue"] = "default"
    raw["serving"]["models"][1].pop("maxReplicas")
    found = config_problems(raw)
    assert set(found) == {"gpu-platform:serving.models[0].queue"}
    assert "kueue.enabled" in found["gpu-platform:serving.models[0].queue"]


def test_charged_models_need_kueue_s_deployment_and_pod_frameworks() -> None:
    raw = with_teams(integrations=["batch/job"])
    raw["serving"]["models"][1]["namespace"] = "research"
    found = config_problems(raw)
    assert set(found) == {"gpu-platform:serving.models"}
    assert "'deployment' and 'pod' to kueue.integrations" in found["gpu-platform:serving.models"]
    raw["kueue"]["integrations"] = ["batch/job", "pod", "deployment"]
    assert labels(raw)["qwen-7b"][QUEUE_LABEL] == "default"


def test_a_stack_without_teams_labels_no_model() -> None:
    raw = copy.deepcopy(serving_raw("existing"))
    for model in raw["serving"]["models"]:
        model.pop("maxReplicas", None)
    assert all(QUEUE_LABEL not in found for found in labels(raw).values())


def test_the_component_labels_a_model_with_the_queue_it_is_given() -> None:
    """``LlmServing`` sees no Kueue teams: the LocalQueue it is given is written as given."""
    spec = resolve_serving_args(
        args(
            {"name": "a", "model": "llama-3.1-8b", "context_length": 8192, "queue": "team-a"},
            {"name": "b", "model": "llama-3.1-8b", "context_length": 8192},
        )
    )
    a, b = serving_plan(spec).services
    assert a["metadata"]["labels"][QUEUE_LABEL] == "team-a"
    assert QUEUE_LABEL not in b["metadata"]["labels"]


def test_the_planned_service_carries_the_label_and_stays_valid() -> None:
    raw = with_teams()
    raw["serving"]["models"][1]["namespace"] = "research"
    raw["cluster"]["kubeconfig"] = {"secure": "v1:placeholder"}
    plan = run_plan(REPO, "test", config_override={f"gpu-platform:{k}": v for k, v in raw.items()})
    services = {r.inputs["metadata"]["name"]: r.inputs for r in plan.by_type(LLMISVC)}
    assert {n: s["metadata"]["labels"].get(QUEUE_LABEL) for n, s in services.items()} == {
        "llama-8b": "serving",
        "qwen-7b": "default",
        "llama-405b": "serving",
    }
    assert all(problems_of(s) == [] for s in services.values())
