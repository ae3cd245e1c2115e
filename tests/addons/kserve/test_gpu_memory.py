"""Model servers sharing one GPU take memory fractions that fit in it together, or the plan is refused.

vLLM takes ``--gpu-memory-utilization`` x the GPU's memory (0.9 by default) and will not start with less free;
time-slicing shares no memory and MPS caps each client at the card / replicas (k8s-device-plugin v0.20.0
``cmd/mps-control-daemon/mps/daemon.go``). The tests read the container arguments the plan gives KServe.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pulumi
import pytest

from gpu_platform.addons.kserve.service import GpuInferenceService
from gpu_platform.addons.kserve.service_plan import inference_service_plan
from gpu_platform.addons.kserve.wiring import deploy_kserve
from gpu_platform.errors import ArgumentsError, ConfigError
from gpu_platform.offline import Plan
from gpu_platform.stack import load_platform
from tests.conftest import planned_stack

ISVC = "kubernetes:serving.kserve.io/v1beta1:InferenceService"


def pool(
    mode: str | None = "time-slicing", replicas: int = 4, machine: str = "g2-standard-8"
) -> dict[str, Any]:
    sharing = {} if mode is None else {"sharing": {"mode": mode, "replicas": replicas}}
    return {"name": "l4", "machine_type": machine, "max_nodes": 2, **sharing}


def model(run_component: Callable[..., Plan], gpu_pool: dict[str, Any], **kw: Any) -> dict[str, Any]:
    """The planned predictor's model of one ``GpuInferenceService``."""
    args: Any = {
        "pool": gpu_pool,
        "cloud": "gke",
        "model_format": "huggingface",
        "storage_uri": "hf://org/m",
        **kw,
    }
    plan = run_component(lambda: GpuInferenceService("svc", args))
    inputs: dict[str, Any] = plan.one(ISVC).inputs["spec"]["predictor"]["model"]
    return inputs


def refused(run_component: Callable[..., Plan], gpu_pool: dict[str, Any], **kw: Any) -> list[tuple[str, str]]:
    with pytest.raises(ArgumentsError) as exc:
        model(run_component, gpu_pool, **kw)
    return exc.value.problems


@pytest.mark.parametrize(
    ("gpu_pool", "kw", "args"),
    [
        (pool(), {}, ["--gpu-memory-utilization=0.22"]),
        (
            pool(replicas=2),
            {"args": ["--max-model-len=4096"]},
            ["--gpu-memory-utilization=0.45", "--max-model-len=4096"],
        ),
        (pool("mps", 3), {}, ["--gpu-memory-utilization=0.3"]),
        (pool(), {"model_format": "vLLM"}, ["--gpu-memory-utilization=0.22"]),
        (pool(), {"runtime": "kserve-vllmserver", "model_format": "llm"}, ["--gpu-memory-utilization=0.22"]),
        (
            pool(),
            {"runtime": "kserve-tensorflow-serving", "model_format": "tensorflow"},
            ["--per_process_gpu_memory_fraction=0.22"],
        ),
        (pool(), {"gpu_memory_utilization": 0.2}, ["--gpu-memory-utilization=0.2"]),
    ],
    ids=[
        "time-sliced-4",
        "time-sliced-2-own-args",
        "mps-3",
        "vllm-format",
        "vllm-runtime",
        "tf-serving",
        "own",
    ],
)
def test_servers_on_a_shared_pool_get_a_fraction_that_fits(
    run_component: Callable[..., Plan], gpu_pool: dict[str, Any], kw: dict[str, Any], args: list[str]
) -> None:
    assert model(run_component, gpu_pool, **kw)["args"] == args


def test_whole_gpus_and_mig_slices_keep_the_servers_default(run_component: Callable[..., Plan]) -> None:
    assert "args" not in model(run_component, pool(None))
    mig = {"name": "h100", "gpu": "h100-80gb", "gpus_per_node": 1, "max_nodes": 1}
    mig["sharing"] = {"mode": "mig", "mig": {"layout": "all-3g.40gb"}}
    args: Any = {"pool": mig, "cloud": "existing", "model_format": "huggingface"}
    plan = run_component(lambda: GpuInferenceService("svc", args))
    assert "args" not in plan.one(ISVC).inputs["spec"]["predictor"]["model"]
    # Set explicitly, the fraction is passed wherever the server runs.
    assert model(run_component, pool(None), gpu_memory_utilization=0.5)["args"] == [
        "--gpu-memory-utilization=0.5"
    ]


def test_a_fraction_the_user_wrote_in_args_is_kept_once(run_component: Callable[..., Plan]) -> None:
    for given in (["--gpu-memory-utilization=0.3"], ["--gpu-memory-utilization", "0.3"]):
        assert model(run_component, pool(replicas=3), args=given)["args"] == given


def test_fractions_that_cannot_share_a_gpu_are_refused(run_component: Callable[..., Plan]) -> None:
    # Four pods of any services fit on one GPU of a 4-way pool: 4 x 0.3 is past 0.9.
    [(key, reason)] = refused(run_component, pool(), gpu_memory_utilization=0.3)
    assert key == "gpu_memory_utilization"
    assert "0.3 + 0.3 + 0.3 + 0.3 = 1.20" in reason and "0.22 each always fits" in reason
    [(key, reason)] = refused(run_component, pool(replicas=2), args=["--gpu-memory-utilization=0.9"])
    assert key == "args" and "0.9 + 0.9 = 1.80" in reason
    # Under MPS too: each client is capped at the card / replicas whatever it asks.
    [(key, _)] = refused(run_component, pool("mps", 2), gpu_memory_utilization=0.5)
    assert key == "gpu_memory_utilization"


def test_bad_or_unusable_fractions_are_refused_naming_the_setting(run_component: Callable[..., Plan]) -> None:
    for value in (0, 1.5, -0.1):
        [(key, reason)] = refused(run_component, pool(None), gpu_memory_utilization=value)
        assert key == "gpu_memory_utilization" and "not a fraction" in reason
    [(key, reason)] = refused(run_component, pool(None), args=["--gpu-memory-utilization=most"])
    assert key == "args" and "'most'" in reason
    problems = refused(
        run_component, pool(), gpu_memory_utilization=0.2, args=["--gpu-memory-utilization=0.2"]
    )
    assert (
        "gpu_memory_utilization",
        "also given as --gpu-memory-utilization in args: set it once",
    ) in problems
    [(key, reason)] = refused(run_component, pool(), model_format="onnx", gpu_memory_utilization=0.2)
    assert key == "gpu_memory_utilization" and "kserve-vllmserver" in reason and "runtime" in reason


def test_a_server_the_library_cannot_cap_on_a_shared_pool_is_warned_about(
    run_component: Callable[..., Plan], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        assert "args" not in model(run_component, pool(), model_format="onnx")
    assert any(
        "shares each GPU 4 ways" in r.getMessage() and "svc:" in r.getMessage() for r in caplog.records
    )
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        model(run_component, pool())
    assert not [r for r in caplog.records if "shares each GPU" in r.getMessage()]


def stack(*services: dict[str, Any], replicas: int = 4) -> dict[str, Any]:
    return {
        "cloud": "gke",
        "cluster": {"name": "c", "project": "p", "region": "us-central1"},
        "gpuPools": [
            {
                "name": "l4",
                "machineType": "g2-standard-8",
                "maxNodes": 2,
                "sharing": {"mode": "time-slicing", "replicas": replicas},
            },
            {"name": "whole", "machineType": "g2-standard-8", "maxNodes": 2},
        ],
        "kserve": {
            "enabled": True,
            "services": [{"pool": "l4", "modelFormat": "huggingface", **s} for s in services],
        },
    }


def planned_args(raw: dict[str, Any]) -> dict[str, Any]:
    spec = load_platform(raw)
    assert spec.kserve is not None
    return {
        r.name: inference_service_plan(r, svc).spec["predictor"]["model"].get("args")
        for svc, r in spec.kserve.services
    }


def test_two_vllm_models_on_one_time_sliced_gpu_each_take_a_fitting_fraction() -> None:
    args = planned_args(stack({"name": "a"}, {"name": "b", "args": ["--max-model-len=4096"]}))
    assert args == {
        "a": ["--gpu-memory-utilization=0.22"],
        "b": ["--gpu-memory-utilization=0.22", "--max-model-len=4096"],
    }


def test_the_stack_counts_the_pods_that_can_share_a_gpu() -> None:
    # One replica and its rollout surge: two pods of 0.4 fit in 0.9 of a 4-way GPU.
    assert planned_args(stack({"name": "big", "gpuMemoryUtilization": 0.4})) == {
        "big": ["--gpu-memory-utilization=0.4"]
    }
    # Beside another model (two more pods at 0.22), four pods take 1.24: refused, naming the set fraction.
    with pytest.raises(ConfigError) as exc:
        planned_args(stack({"name": "big", "gpuMemoryUtilization": 0.4}, {"name": "small"}))
    [(path, reason)] = exc.value.problems
    assert path == "gpu-platform:kserve.services[0].gpuMemoryUtilization"
    assert "0.4 + 0.4 + 0.22 + 0.22 = 1.24" in reason and "(big, small)" in reason
    # Two replicas of one model: two pods plus one surge, three at 0.3 = 0.9 fit; at 0.31 they do not.
    assert planned_args(stack({"name": "m", "maxReplicas": 2, "args": ["--gpu-memory-utilization=0.3"]}))
    with pytest.raises(ConfigError) as exc:
        planned_args(stack({"name": "m", "maxReplicas": 2, "args": ["--gpu-memory-utilization=0.31"]}))
    assert [p for p, _ in exc.value.problems] == ["gpu-platform:kserve.services[0].args"]


def test_services_on_other_pools_do_not_count() -> None:
    args = planned_args(
        stack({"name": "a", "gpuMemoryUtilization": 0.45}, {"name": "b", "pool": "whole"}, replicas=2)
    )
    assert args == {"a": ["--gpu-memory-utilization=0.45"], "b": None}


def test_the_stack_outputs_show_each_servers_fraction(run_component: Callable[..., Plan]) -> None:
    spec = load_platform(stack({"name": "a"}, {"name": "b", "pool": "whole"}))
    outputs: dict[str, Any] = {}
    run_component(lambda: outputs.update(deploy_kserve(spec, pulumi.ResourceOptions(), [])))
    services = outputs["inferenceServices"]
    assert services["default/a"] == {
        "pool": "l4",
        "resource": "nvidia.com/gpu",
        "units": 1,
        "gpuMemoryUtilization": 0.22,
    }
    assert services["default/b"] == {"pool": "whole", "resource": "nvidia.com/gpu", "units": 1}


def test_the_dev_stacks_model_on_its_time_sliced_l4_takes_a_quarter_share() -> None:
    [isvc] = planned_stack("dev").by_type(ISVC)
    assert isvc.inputs["spec"]["predictor"]["model"]["args"] == ["--gpu-memory-utilization=0.22"]
