"""A ``secure:`` value in the stack file: where it is a credential, an ARN, an ID, an SSH key, a host or a storage
URI it plans and stays secret in ``plan.json``, the values files and the manifests (the offline stand-in appears
nowhere, neither in clear nor as a plain-text leak); where it would become a label, a taint or a name, or decide
what the plan creates, it is refused naming the key, in one line."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_platform.cli import main
from gpu_platform.offline.output import PLAIN_TEXT_SECRET
from gpu_platform.offline.stack_file import SECURE_PLACEHOLDER
from tests.support import ssh_keys
from tests.support.stacks import declared_h100_and_l4

SECRET = {"secure": "AAABAKx1c2VjcmV0"}

EKS_ATTACH: dict[str, Any] = {
    "aws:region": "us-east-1",
    "gpu-platform:cloud": "eks",
    "gpu-platform:cluster": {
        "name": "attached",
        "region": "us-east-1",
        "create": False,
        "kubeconfig": SECRET,
        "existingNodeRoleArn": "arn:aws:iam::123456789012:role/gpu-nodes",
        "existingSubnetIds": ["subnet-0a1b2c3d4e5f60718"],
    },
    "gpu-platform:gpuPools": [{"name": "l4", "machineType": "g6.2xlarge", "maxNodes": 2}],
}
h100, l4 = declared_h100_and_l4()
EXISTING: dict[str, Any] = {
    "gpu-platform:cloud": "existing",
    "gpu-platform:cluster": {"name": "onprem", "kubeconfig": SECRET},
    "gpu-platform:gpuPools": [
        h100,
        {**l4, "labels": {"team": "ml"}, "taints": [{"key": "team", "value": "ml", "effect": "NoSchedule"}]},
    ],
    "gpu-platform:gpuOperator": {"driver": {"owner": "operator"}},
    "gpu-platform:kueue": {"teams": [{"name": "ml", "clusterQueue": "gpu"}]},
    "gpu-platform:slurm": {
        "enabled": True,
        "pools": ["h100"],
        "login": {"rootSshAuthorizedKeys": ssh_keys.ED25519},
        "accounting": {
            "enabled": True,
            "database": {
                "host": "db.example.internal",
                "passwordSecret": {"name": "slurm-db", "key": "password"},
            },
        },
    },
    "gpu-platform:kserve": {
        "enabled": True,
        "services": [
            {
                "name": "llm",
                "pool": "l4",
                "gpus": 1,
                "modelFormat": "huggingface",
                "storageUri": "hf://org/model",
            }
        ],
    },
}


def _with(base: dict[str, Any], path: tuple[Any, ...], value: Any = SECRET) -> dict[str, Any]:
    config = copy.deepcopy(base)
    node: Any = config
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return config


def _plan(
    tmp_path: Path, config: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, Path]:
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: secrets\nruntime: python\nmain: __main__.py\n")
    (project / "__main__.py").write_text("from gpu_platform.stack import main\n\nmain()\n")
    (project / "Pulumi.test.yaml").write_text(yaml.safe_dump({"config": config}))
    out = tmp_path / "plan"
    code = main(["plan", "--project", str(project), "--stack", "test", "--out", str(out)])
    return code, capsys.readouterr().err, out


ACCEPTED = {
    "node role ARN": (EKS_ATTACH, ("gpu-platform:cluster", "existingNodeRoleArn")),
    "subnet ID": (EKS_ATTACH, ("gpu-platform:cluster", "existingSubnetIds", 0)),
    "authorized key": (EXISTING, ("gpu-platform:slurm", "login", "rootSshAuthorizedKeys")),
    "database host": (EXISTING, ("gpu-platform:slurm", "accounting", "database", "host")),
    "storage URI": (EXISTING, ("gpu-platform:kserve", "services", 0, "storageUri")),
}


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_a_secret_credential_or_id_plans_and_stays_secret_everywhere(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, path = ACCEPTED[case]
    code, err, out = _plan(tmp_path, _with(base, path), capsys)
    assert code == 0, err
    files = [f for f in out.rglob("*") if f.is_file()]
    assert any(f.parent.name == "manifests" for f in files) and any(f.parent.name == "values" for f in files)
    for f in files:
        text = f.read_text()
        assert SECURE_PLACEHOLDER not in text, f"{f.name} holds the secret in clear"
        assert PLAIN_TEXT_SECRET not in text, f"{f.name}: the secret reached an input that is not secret"


def test_the_secret_node_role_reaches_the_node_group_as_a_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err, out = _plan(
        tmp_path, _with(EKS_ATTACH, ("gpu-platform:cluster", "existingNodeRoleArn")), capsys
    )
    assert code == 0, err
    groups = [
        r
        for r in yaml.safe_load((out / "plan.json").read_text())["resources"]
        if r["type"] == "aws:eks/nodeGroup:NodeGroup"
    ]
    assert groups and all(g["inputs"]["nodeRoleArn"] == "[secret]" for g in groups)


REFUSED = {
    "node label value": (("gpu-platform:gpuPools", 1, "labels", "team"), "gpuPools[1].labels.team", "label"),
    "taint value": (
        ("gpu-platform:gpuPools", 1, "taints", 0, "value"),
        "gpuPools[1].taints[0].value",
        "taint",
    ),
    "pool name": (("gpu-platform:gpuPools", 1, "name"), "gpuPools[1].name", "names or decides"),
    "team name": (("gpu-platform:kueue", "teams", 0, "name"), "kueue.teams[0].name", "names or decides"),
    "sharing mode": (("gpu-platform:gpuPools", 0, "sharing"), "gpuPools[0].sharing.mode", "names or decides"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_secret_that_would_become_public_or_decide_the_plan_is_refused_in_one_line(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, key, why = REFUSED[case]
    value = {"mode": SECRET} if case == "sharing mode" else SECRET
    code, err, out = _plan(tmp_path, _with(EXISTING, path, value), capsys)
    errors = [line for line in err.splitlines() if line.startswith("gpu-platform:")]
    assert code == 2 and len(errors) == 1, err
    assert errors[0].startswith(f"gpu-platform:{key}: is a secret (secure:)") and why in errors[0]
    assert not (out / "plan.json").exists()
