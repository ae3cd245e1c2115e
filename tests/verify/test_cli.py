"""``gpu-platform verify``: exit 0 when the cluster holds the plan, 3 on drift (with the table and JUnit), 2 on bad
input (stack, snapshot file, kubeconfig, the [verify] extra missing), 1 when the cluster cannot be read."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gpu_platform.cli import main
from tests.support.verify import REPO, planned_snapshot, stack_expectation


def _verify(*args: str) -> int:
    return main(["verify", "--project", str(REPO), "--stack", "dev", *args])


def _snapshot_file(tmp_path: Path, drift: bool = False) -> Path:
    snapshot = planned_snapshot(stack_expectation("dev"))
    if drift:
        snapshot["nodes"][0]["spec"]["taints"] = []
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(snapshot))
    return path


def test_a_cluster_as_planned_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snapshot = _snapshot_file(tmp_path)
    assert _verify("--snapshot", str(snapshot), "--junit", str(tmp_path / "junit.xml")) == 0
    out, err = capsys.readouterr()
    assert out.strip() == "no drift: the cluster holds what the plan says"
    assert err.startswith("verify: passed, 0 errors and 0 warnings")
    root = ET.parse(tmp_path / "junit.xml").getroot()
    assert not list(root.iter("failure")) and len(list(root.iter("testcase"))) > 10


def test_drift_exits_3_with_the_table_and_junit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snapshot = _snapshot_file(tmp_path, drift=True)
    assert _verify("--snapshot", str(snapshot), "--junit", str(tmp_path / "junit.xml")) == 3
    out, err = capsys.readouterr()
    (row,) = out.splitlines()[1:]
    assert row.split()[:4] == ["error", "gpu-nodes", "node", "l4-spot-0"]
    assert "taint nvidia.com/gpu=present:NoSchedule" in row
    assert err.startswith("verify: drift found, 1 errors")
    (failure,) = ET.parse(tmp_path / "junit.xml").getroot().iter("failure")
    assert failure.get("message", "").startswith("node l4-spot-0: expected taint nvidia.com/gpu")


def test_save_snapshot_writes_what_was_read(tmp_path: Path) -> None:
    snapshot = _snapshot_file(tmp_path)
    assert _verify("--snapshot", str(snapshot), "--save-snapshot", str(tmp_path / "again.json")) == 0
    assert json.loads((tmp_path / "again.json").read_text()) == json.loads(snapshot.read_text())


def test_an_unknown_stack_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--project", str(REPO), "--stack", "nope"]) == 2
    assert "no stack config" in capsys.readouterr().err


def test_an_unreadable_snapshot_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bad.json").write_text('{"nodes": {}}')
    assert _verify("--snapshot", str(tmp_path / "bad.json")) == 2
    assert capsys.readouterr().err.startswith(
        f"error: --snapshot {tmp_path / 'bad.json'}: expected a JSON object"
    )


def test_a_bad_kubeconfig_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "kubeconfig").write_text("apiVersion: v1\nkind: Config\n")
    assert _verify("--kubeconfig", str(tmp_path / "kubeconfig")) == 2
    assert capsys.readouterr().err.startswith(f"error: --kubeconfig {tmp_path / 'kubeconfig'}: ")


def test_without_the_extra_one_line_names_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "kubernetes", None)
    assert _verify() == 2
    assert capsys.readouterr().err == (
        "error: gpu-platform verify needs the Kubernetes Python client (kubernetes): pip install 'gpu-platform[verify]'\n"
    )


def test_an_unreachable_cluster_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": "c", "cluster": {"server": "https://127.0.0.1:1", "insecure-skip-tls-verify": True}}
        ],
        "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "c",
    }
    (tmp_path / "kubeconfig").write_text(json.dumps(config))
    assert _verify("--kubeconfig", str(tmp_path / "kubeconfig")) == 1
    assert capsys.readouterr().err.startswith("error: cannot reach the API server: ")


def test_smoke_needs_a_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snapshot = _snapshot_file(tmp_path)
    assert _verify("--snapshot", str(snapshot), "--smoke") == 2
    assert (
        capsys.readouterr().err
        == "error: --smoke runs Jobs on a cluster: give --kubeconfig, not --snapshot\n"
    )


def test_nccl_image_replaces_the_all_reduce_image(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--nccl-image``: the all-reduce runs in the given image (one with the aws-ofi-nccl plugin on EFA pools)
    instead of the pinned NGC one; the CUDA sample keeps its image."""
    from gpu_platform.verify import source
    from gpu_platform.versions import CUDA_SAMPLE_IMAGE, NCCL_SMOKE_IMAGE

    seen = []
    monkeypatch.setattr(source, "smoke_findings", lambda expected, args: seen.append(expected) or [])
    snapshot = _snapshot_file(tmp_path)
    image = "registry.example/ml/pytorch-efa:25.01"
    assert _verify("--snapshot", str(snapshot), "--smoke", "--nccl-image", image) == 0
    assert [(e.nccl_image, e.smoke_image) for e in seen] == [(image, CUDA_SAMPLE_IMAGE)]
    assert _verify("--snapshot", str(snapshot), "--smoke") == 0
    assert seen[-1].nccl_image == NCCL_SMOKE_IMAGE
    capsys.readouterr()
