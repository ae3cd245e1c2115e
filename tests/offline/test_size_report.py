"""``gpu-platform size``: the sizing step's answer for one model over command-line pools or a stack file's pools;
bad input exits 2 with one line naming what is wrong."""

from __future__ import annotations

import json

import pytest

from gpu_platform.cli import main
from tests.conftest import REPO


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["size", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_prints_the_shape_and_the_vllm_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        [
            "llama-3.1-70b",
            "--context",
            "8192",
            "--concurrency",
            "16",
            "--pool",
            "l4:1:3",
            "--pool",
            "h100-80gb:8",
        ],
        capsys,
    )
    assert code == 0
    assert out.splitlines()[0] == (
        "llama-3.1-70b (bf16, 8192 tokens x 16 sequences) -> pool 'h100-80gb-8': 4 x H100 80GB"
    )
    assert "  weights_gb: 141.2" in out
    assert "  kv_cache_per_token_kib: 320.0" in out
    assert (
        "  vllm_args: --tensor-parallel-size=4 --pipeline-parallel-size=1 --max-model-len=8192 "
        "--gpu-memory-utilization=0.9"
    ) in out


def test_json_from_a_stack_files_pools(capsys: pytest.CaptureFixture[str]) -> None:
    # The prod stack's h100-inference pool is MIG-partitioned: an 8B model at 8192 x 4 takes a 3g.40gb slice.
    code, out, _ = run(
        [
            "llama-3.1-8b",
            "--context",
            "8192",
            "--concurrency",
            "4",
            "--stack",
            "prod",
            "--project",
            str(REPO),
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0
    facts = json.loads(out)
    assert (facts["pool"], facts["mig_profile"], facts["gpus"]) == ("h100-inference", "3g.40gb", 1)


def test_a_model_outside_the_catalog_from_its_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    numbers = ["--params", "8.03", "--layers", "32", "--heads", "32", "--kv-heads", "8", "--head-dim", "128"]
    code, out, _ = run(
        ["org/my-8b", *numbers, "--max-context", "8192", "--pool", "l4:1", "--format", "json"], capsys
    )
    assert code == 0
    assert json.loads(out)["kv_cache_per_token_kib"] == 128.0


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (
            ["llama-3.1-70b", "--context", "8192", "--concurrency", "16", "--pool", "l4:1:3"],
            "error: llama-3.1-70b (bf16, 8192 tokens x 16 sequences) fits none of the declared pools; nearest: "
            "pool 'l4-1-3' (1 x L4 24GB on each of 3 nodes) needs 68.7 GB per GPU of 21.6 GB; it would fit "
            "2 x H200 141GB (or lower the context, the concurrency or the precision)",
        ),
        (["org/unknown", "--pool", "l4:1", "--layers", "32"], "(missing: --params, --heads, --kv-heads"),
        (["qwen2.5-7b", "--pool", "l4"], "--pool 'l4': expected GPU:GPUS_PER_NODE[:MAX_NODES]"),
        (["qwen2.5-7b", "--pool", "nope:1"], "--pool[0].gpu: 'nope' is not a GPU model"),
    ],
)
def test_bad_input_exits_2_with_the_reason(
    argv: list[str], error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert error in err
    assert "Traceback" not in err
