"""One run reports every independent problem, and advice never contradicts another rule; component
arguments follow the stack file's rules and their errors name the component."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from gpu_platform.cli import main
from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import run_program

EKS_DRA = """\
config:
  gpu-platform:cloud: eks
  gpu-platform:cluster:
    name: invalid
    region: us-east-1
    kubernetesVersion: "1.34"
{cluster}
{cuda}
  gpu-platform:gpuOperator:
    driver: {{hostVersion: "550.54.15"}}
  gpu-platform:dra:
    enabled: true
  gpu-platform:gpuPools:
    - name: h100
      machineType: p5.48xlarge
      minNodes: 1
      maxNodes: 2
      allocation: dra
"""


def _errors(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: every-problem\nruntime: python\nmain: __main__.py\n")
    (project / "__main__.py").write_text("from gpu_platform.stack import main\n\nmain()\n")
    (project / "Pulumi.t.yaml").write_text(text)
    rc = main(["plan", "--project", str(project), "--stack", "t", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert rc == 2, err
    shutil.rmtree(project)
    return [line for line in err.splitlines() if line.startswith("gpu-platform:")]


def test_a_cuda_error_does_not_hide_the_dra_drivers_version_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = EKS_DRA.format(cluster="", cuda='  gpu-platform:cudaVersion: "13.0"')
    errors = _errors(tmp_path, text, capsys)
    assert [e.split(":")[1] for e in errors] == ["cudaVersion", "gpuOperator.driver.hostVersion"]
    assert "CUDA 13.0 needs driver >= 580" in errors[0]
    assert "the NVIDIA DRA driver needs NVIDIA driver >= 565" in errors[1]


def test_karpenter_reports_min_nodes_and_dra_together_without_contradicting_dra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster = "    autoscaler: karpenter\n    systemPool: {machineType: m6i.large, minNodes: 2, maxNodes: 3}"
    text = EKS_DRA.format(cluster=cluster, cuda="").replace("550.54.15", "580.95.05")  # a driver DRA accepts
    errors = _errors(tmp_path, text, capsys)
    keys = [e.split(":")[1] for e in errors]
    assert keys == ["gpuPools[0].minNodes", "gpuPools[0].allocation"]
    # "use 0" would be refused next (a DRA pool cannot start from zero): the advice is the managed pool.
    assert "use 0" not in errors[0] and "managed node pool" in errors[0]


# --- component arguments --------------------------------------------------------------------------------

EKS_POOL = {"name": "a", "machine_type": "g5.xlarge", "max_nodes": 2}
EKS_ARGS = {
    "cluster_name": "c",
    "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
    "subnet_ids": ["subnet-0123456789abcdef0"],
    "pool": EKS_POOL,
}


def _refused(build: Any) -> ArgumentsError:
    errors: list[ArgumentsError] = []

    def program() -> None:
        with pytest.raises(ArgumentsError) as err:
            build()
        errors.append(err.value)

    assert run_program(program).resources == []
    return errors[0]


@pytest.mark.parametrize(
    ("override", "path", "reason"),
    [
        ({"subnet_ids": "subnet-0123456789abcdef0"}, "subnet_ids", "not one string"),
        ({"subnet_ids": []}, "subnet_ids", "at least one subnet ID"),
        ({"subnet_ids": ["10.0.1.0/24"]}, "subnet_ids[0]", "is a CIDR"),
        ({"subnet_ids": ["subnet-0123456789abcdef0"] * 2}, "subnet_ids[1]", "listed twice"),
        ({"node_role_arn": "nodes"}, "node_role_arn", "not an IAM role ARN"),
    ],
)
def test_eks_node_pool_arguments_are_checked_like_the_stack_file(
    override: dict[str, Any], path: str, reason: str
) -> None:
    from gpu_platform.clouds.eks.node_pool import EksGpuNodePool

    err = _refused(lambda: EksGpuNodePool("h100", {**EKS_ARGS, **override}))  # type: ignore[arg-type]
    assert [p for p, _ in err.problems] == [path]
    assert reason in err.problems[0][1]
    assert err.component == "EksGpuNodePool 'h100'"
    assert str(err) == f"EksGpuNodePool 'h100': {path}: {err.problems[0][1]}"


def test_gke_cluster_name_is_checked_like_the_stack_file() -> None:
    from gpu_platform.clouds.gke.cluster import GkeCluster

    err = _refused(
        lambda: GkeCluster("gke", {"cluster_name": "Bad_Name", "location": "us-central1", "project": "p"})
    )
    assert [p for p, _ in err.problems] == ["cluster_name"]
    assert err.component == "GkeCluster 'gke'"


def test_the_cli_names_the_component(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: component\nruntime: python\nmain: __main__.py\n")
    (project / "Pulumi.t.yaml").write_text("config: {}\n")
    (project / "__main__.py").write_text(
        "from gpu_platform.clouds.eks.node_pool import EksGpuNodePool\n"
        "EksGpuNodePool('h100', {'cluster_name': 'c', 'node_role_arn': 'arn:aws:iam::123456789012:role/n',\n"
        "    'subnet_ids': ['10.0.1.0/24'], 'pool': {'name': 'a', 'machine_type': 'g5.xlarge', 'max_nodes': 2}})\n"
    )
    rc = main(["plan", "--project", str(project), "--stack", "t", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.splitlines()
    assert rc == 2
    assert err[0] == "error: invalid arguments for EksGpuNodePool 'h100':"
    assert err[1].startswith("  subnet_ids[0]: '10.0.1.0/24' is a CIDR")
    assert not any("Traceback" in line for line in err)
