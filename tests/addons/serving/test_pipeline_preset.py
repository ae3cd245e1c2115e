"""The library's ``kserve-config-llm-worker-pipeline-parallel``: the preset KServe v0.20.0's controller asks for a
replica spanning nodes and no chart ships, valid against the vendored LLMInferenceServiceConfig CRD, running vLLM's
Ray-less multi-node launch with the rest of the pod as the upstream data-parallel worker preset has it; planned only
when a model spans nodes, and created before the services."""

from __future__ import annotations

from typing import Any, cast

from gpu_platform.addons.serving.checks import resolve_serving_args
from gpu_platform.addons.serving.pipeline_preset import PIPELINE_PRESET, pipeline_parallel_preset
from gpu_platform.addons.serving.plan import serving_plan
from gpu_platform.addons.serving.settings import LlmServingArgs
from tests.conftest import UPSTREAM, load_yaml_docs
from tests.support.crds import problems_of

PRESETS = (
    UPSTREAM / "charts" / "kserve-runtime-configs-v0.20.0" / "files" / "llmisvcconfigs" / "resources.yaml"
)
POOLS = [{"name": "h100", "gpu": "h100-80gb", "gpus_per_node": 8, "max_nodes": 2}]


def upstream_preset(name: str) -> dict[str, Any]:
    return next(d for d in load_yaml_docs(PRESETS) if d["metadata"]["name"] == name)


def script(pod: dict[str, Any]) -> str:
    (container,) = pod["containers"]
    assert container["name"] == "main"
    assert container["command"][:2] == ["/bin/bash", "-c"] and container["command"][3] == "--"
    return cast(str, container["command"][2])


def test_the_preset_has_the_name_the_controller_asks_for_and_fits_the_crd() -> None:
    preset = pipeline_parallel_preset("kserve")
    assert problems_of(preset) == []
    assert preset["metadata"] == {"name": "kserve-config-llm-worker-pipeline-parallel", "namespace": "kserve"}
    assert PIPELINE_PRESET == "kserve-config-llm-worker-pipeline-parallel"
    # No KServe chart at v0.20.0 ships it: only the data-parallel worker presets.
    names = {d["metadata"]["name"] for d in load_yaml_docs(PRESETS)}
    assert PIPELINE_PRESET not in names
    assert "kserve-config-llm-worker-data-parallel" in names


def test_every_stage_joins_one_vllm_over_the_group_and_only_the_leader_serves() -> None:
    spec = pipeline_parallel_preset("kserve")["spec"]
    leader, worker = script(spec["template"]), script(spec["worker"])
    for text in (leader, worker):
        assert "--tensor-parallel-size {{ .Spec.Parallelism.Tensor }}" in text
        assert "--pipeline-parallel-size {{ .Spec.Parallelism.Pipeline }}" in text
        assert "--nnodes {{ .Spec.Parallelism.Pipeline }}" in text
        assert "--node-rank ${LWS_WORKER_INDEX:-0}" in text
        assert "--master-addr ${MASTER_ADDR} --master-port 29500" in text
        assert "--distributed-executor-backend mp" in text
        assert "getent hosts ${LWS_LEADER_ADDRESS}" in text
        assert "${VLLM_ADDITIONAL_ARGS}" in text
    assert "--headless" in worker and "--headless" not in leader
    assert "--port 8000" in leader and "--served-model-name" in leader
    (lead,) = spec["template"]["containers"]
    (work,) = spec["worker"]["containers"]
    assert lead["readinessProbe"]["httpGet"]["path"] == "/health"
    assert lead["startupProbe"]["failureThreshold"] * lead["startupProbe"]["periodSeconds"] == 600
    assert not {"readinessProbe", "livenessProbe", "startupProbe", "ports"} & set(work)


def test_the_pod_is_the_upstream_data_parallel_worker_s() -> None:
    ours = pipeline_parallel_preset("kserve")["spec"]
    theirs = upstream_preset("kserve-config-llm-worker-data-parallel")["spec"]
    assert ours["annotations"] == theirs["annotations"]
    for part in ("template", "worker"):
        (mine,) = ours[part]["containers"]
        (upstream,) = theirs[part]["containers"]
        for key in ("image", "env", "securityContext", "volumeMounts", "lifecycle", "name"):
            assert mine[key] == upstream[key], (part, key)
        assert ours[part]["volumes"] == theirs[part]["volumes"]
        assert ours[part]["terminationGracePeriodSeconds"] == theirs[part]["terminationGracePeriodSeconds"]
    (leader,) = ours["template"]["containers"]
    (upstream_leader,) = theirs["template"]["containers"]
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        assert leader[probe] == upstream_leader[probe]


def test_the_plan_holds_the_preset_only_when_a_model_spans_nodes() -> None:
    def plan(precision: str) -> Any:
        model = {
            "name": "l405",
            "model": "llama-3.1-405b",
            "precision": precision,
            "context_length": 8192,
            "concurrent_sequences": 8,
        }
        return serving_plan(
            resolve_serving_args(
                cast("LlmServingArgs", {"cloud": "existing", "pools": POOLS, "models": [model]})
            )
        )

    spanning = plan("bf16")
    assert spanning.presets == (pipeline_parallel_preset("kserve"),)
    assert spanning.presets[0]["metadata"]["namespace"] == spanning.controller_namespace
    (service,) = spanning.services
    assert service["spec"]["parallelism"] == {"tensor": 8, "pipeline": 2}
    (leader,) = service["spec"]["template"]["containers"]
    (worker,) = service["spec"]["worker"]["containers"]
    assert "startupProbe" in leader and "startupProbe" not in worker  # the headless stages serve no /health
    assert problems_of(service) == []
    assert plan("fp8").presets == ()
