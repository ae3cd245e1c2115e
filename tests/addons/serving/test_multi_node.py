"""A model that fits no single node planned as a replica over several: Llama 3.1 405B in bf16 on 2 x 8 H100 becomes
an ``LLMInferenceService`` with pipeline parallelism 2 over the nodes and tensor parallelism 8 within each, a
``spec.worker`` like its leader (on EKS with the node's EFA devices), and the pipeline-parallel preset the controller
asks for, on EKS and GKE; it needs LeaderWorkerSet, and Kueue's ``leaderworkerset`` framework when it is charged to a
queue; replicas that would need more nodes than the pool has are refused."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpu_platform.offline import Plan, run_plan
from gpu_platform.stack import load_platform
from tests.addons.serving.stacks import serving_raw, serving_stack
from tests.conftest import REPO
from tests.support.crds import problems_of
from tests.support.refusals import config_problems

LLMISVC = "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService"
LLMISVC_CONFIG = "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceServiceConfig"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
LLAMA_405B_BF16 = {
    "name": "llama-405b",
    "model": "llama-3.1-405b",
    "contextLength": 8192,
    "concurrentSequences": 8,
    "pools": ["h100"],
}
"""810 GB of bf16 weights: more than one node's 8 x 80 GB."""


def of_type(plan: Plan, type_: str) -> list[Any]:
    """The registrations of exactly ``type_`` (``Plan.by_type`` matches a prefix: the service's type is the
    preset's)."""
    return [r for r in plan.resources if r.type == type_]


def multi_node_stack(cloud: str) -> dict[str, Any]:
    stack = serving_stack(cloud, models=[copy.deepcopy(LLAMA_405B_BF16)])
    stack["gpu-platform:workloads"] = {"leaderWorkerSet": {"enabled": True}}
    if cloud == "eks":  # the p5 pool with its 32 EFA devices attached
        stack["gpu-platform:gpuPools"][0]["efa"] = True
    return stack


@pytest.fixture(scope="module", params=["eks", "gke"])
def planned(request: pytest.FixtureRequest) -> tuple[str, Plan]:
    cloud = request.param
    return cloud, run_plan(REPO, "test", config_override=multi_node_stack(cloud))


def test_the_405b_model_spans_two_nodes_with_a_worker_like_its_leader(planned: tuple[str, Plan]) -> None:
    cloud, plan = planned
    (service,) = of_type(plan, LLMISVC)
    spec = service.inputs["spec"]
    assert problems_of(service.inputs) == []
    assert spec["parallelism"] == {"tensor": 8, "pipeline": 2}
    (leader,) = spec["template"]["containers"]
    (worker,) = spec["worker"]["containers"]
    assert spec["worker"]["nodeSelector"] == spec["template"]["nodeSelector"]
    assert spec["worker"]["nodeSelector"]["gpu-platform.io/pool"] == "h100"
    assert spec["worker"]["tolerations"] == spec["template"]["tolerations"]
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in spec["worker"][
        "tolerations"
    ]
    assert leader["resources"] == worker["resources"]
    assert worker["env"][0] == {
        "name": "VLLM_ADDITIONAL_ARGS",
        "value": "--max-model-len=8192 --gpu-memory-utilization=0.9",
    }
    limits = worker["resources"]["limits"]
    if cloud == "eks":
        assert limits == {"nvidia.com/gpu": 8, "vpc.amazonaws.com/efa": 32, "hugepages-2Mi": "5120Mi"}
        assert {"name": "FI_PROVIDER", "value": "efa"} in worker["env"]
    else:
        assert limits == {"nvidia.com/gpu": 8}
    assert "startupProbe" in leader and "startupProbe" not in worker


def test_the_pipeline_preset_is_created_in_kserve_before_the_service(planned: tuple[str, Plan]) -> None:
    _, plan = planned
    (preset,) = of_type(plan, LLMISVC_CONFIG)
    assert preset.inputs["metadata"] == {
        "name": "kserve-config-llm-worker-pipeline-parallel",
        "namespace": "kserve",
    }
    assert "--headless" in preset.inputs["spec"]["worker"]["containers"][0]["command"][2]
    (service,) = of_type(plan, LLMISVC)
    assert preset.urn in service.depends_on


def test_a_single_node_stack_plans_no_pipeline_preset() -> None:
    plan = run_plan(REPO, "test", config_override=serving_stack("eks"))
    assert of_type(plan, LLMISVC_CONFIG) == []


def test_a_model_spanning_nodes_needs_leader_worker_set() -> None:
    raw = serving_raw("eks")
    raw["serving"]["models"] = [copy.deepcopy(LLAMA_405B_BF16)]
    found = config_problems(raw)
    assert set(found) == {"gpu-platform:serving.models"}
    reason = found["gpu-platform:serving.models"]
    assert reason.startswith("llama-405b: a replica spanning nodes is a LeaderWorkerSet group")
    assert "workloads.leaderWorkerSet.enabled" in reason and "workloads.installedElsewhere" in reason
    raw["workloads"] = {"installedElsewhere": ["leaderWorkerSet"]}
    assert load_platform(raw).serving is not None


def test_a_queued_model_spanning_nodes_needs_kueue_s_leader_worker_set_framework() -> None:
    raw = serving_raw("existing")
    raw["serving"]["models"] = [copy.deepcopy(LLAMA_405B_BF16)]
    raw["workloads"] = {"leaderWorkerSet": {"enabled": True}}
    raw["kueue"] = {
        "clusterQueues": [{"name": "ml", "pools": ["h100"]}],
        "teams": [{"name": "ml", "clusterQueue": "ml", "namespace": "llm", "queueName": "serving"}],
        "integrations": ["batch/job", "pod", "deployment"],
    }
    found = config_problems(raw)
    assert set(found) == {"gpu-platform:serving.models"}
    assert (
        "'leaderworkerset.x-k8s.io/leaderworkerset' to kueue.integrations"
        in found["gpu-platform:serving.models"]
    )
    raw["kueue"]["integrations"] = [
        "batch/job",
        "pod",
        "deployment",
        "leaderworkerset.x-k8s.io/leaderworkerset",
    ]
    spec = load_platform(raw).serving
    assert spec is not None
    (model,) = spec.models
    assert model.queue == "serving"
    del raw["kueue"]["integrations"]  # the derived list has it: LeaderWorkerSet is installed
    assert load_platform(raw).serving is not None


def test_replicas_that_need_more_nodes_than_the_pool_has_are_refused() -> None:
    raw = serving_raw("eks")
    raw["workloads"] = {"leaderWorkerSet": {"enabled": True}}
    raw["serving"]["models"] = [{**copy.deepcopy(LLAMA_405B_BF16), "minReplicas": 2}]
    found = config_problems(raw)
    assert set(found) == {"gpu-platform:serving.models[0].minReplicas"}
    assert found["gpu-platform:serving.models[0].minReplicas"] == (
        "2 replicas of llama-3.1-405b (2 nodes each: pipeline parallelism 2 x tensor parallelism 8) need 4 nodes "
        "of pool 'h100', which has maxNodes 2; lower the replicas or raise the pool's maxNodes"
    )
