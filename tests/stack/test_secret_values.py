"""A ``secure:`` value inside any section's chart ``values`` reaches that section's Helm release as a
Pulumi secret (issue 21): the plan marks it secret from the Output the program registers, and the
placeholder the offline plan stands in for the decrypted value appears nowhere in plain text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_platform.cli import main
from gpu_platform.offline.output import PLAIN_TEXT_SECRET
from gpu_platform.offline.recorder import SECRET_PLACEHOLDER
from gpu_platform.offline.stack_file import SECURE_PLACEHOLDER

RELEASE = "kubernetes:helm.sh/v3:Release"
SECRET = {"secure": "AAABAKx1c2VjcmV0"}


def _stack(**sections: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "cloud": "existing",
        "cluster": {"name": "onprem", "kubeconfig": SECRET, "kubernetesVersion": "1.34.2"},
        "gpuPools": [
            {
                "name": "h100",
                "gpu": "h100-80gb",
                "gpusPerNode": 8,
                "cpusPerNode": 192,
                "memoryGibPerNode": 2048,
                "maxNodes": 2,
                "allocation": "dra",
            },
            {
                "name": "l40s",
                "gpu": "l40s",
                "gpusPerNode": 4,
                "cpusPerNode": 64,
                "memoryGibPerNode": 512,
                "maxNodes": 2,
            },
        ],
        "gpuOperator": {"driver": {"owner": "operator"}},
        "kueue": {
            "clusterQueues": [{"name": "gpu", "pools": ["h100"]}],
            "teams": [{"name": "ml", "clusterQueue": "gpu"}],
        },
        "dra": {"enabled": True, "claimNamespaces": ["ml"]},
    }
    return {**base, **sections}


def _values(section: str) -> dict[str, Any]:
    return {"token": SECRET, "nested": [{f"{section}Password": SECRET}]}


# section -> (its config with a secret in its values, the chart releases that must carry it secret)
CASES: dict[str, tuple[dict[str, Any], set[str]]] = {
    "gpuOperator": ({"driver": {"owner": "operator"}, "values": _values("gpuOperator")}, {"gpu-operator"}),
    "dra": (
        {"enabled": True, "claimNamespaces": ["ml"], "values": _values("dra")},
        {"dra-driver-nvidia-gpu"},
    ),
    "kueue": (
        {
            "clusterQueues": [{"name": "gpu", "pools": ["h100"]}],
            "teams": [{"name": "ml", "clusterQueue": "gpu"}],
            "values": _values("kueue"),
        },
        {"kueue"},
    ),
    "kserve": (
        {"enabled": True, "values": _values("kserve")},
        {"kserve-resources", "kserve-runtime-configs"},
    ),
    "workloads": ({"jobset": {"enabled": True, "values": _values("workloads")}}, {"jobset"}),
    "volcano": (
        {"enabled": True, "teams": [{"name": "batch", "pools": ["l40s"]}], "values": _values("volcano")},
        {"volcano"},
    ),
}


def _plan(tmp_path: Path, config: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> str:
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: secrets\nruntime: python\nmain: __main__.py\n")
    (project / "__main__.py").write_text("from gpu_platform.stack import main\n\nmain()\n")
    doc = {"config": {f"gpu-platform:{k}": v for k, v in config.items()}}
    (project / "Pulumi.test.yaml").write_text(yaml.safe_dump(doc))
    out = tmp_path / "plan"
    code = main(["plan", "--project", str(project), "--stack", "test", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    return (out / "plan.json").read_text()


@pytest.mark.parametrize("section", sorted(CASES))
def test_a_secret_in_a_sections_values_is_a_secret_release_input(
    section: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config, releases = CASES[section]
    text = _plan(tmp_path, _stack(**{section: config}), capsys)
    assert SECURE_PLACEHOLDER not in text
    assert PLAIN_TEXT_SECRET not in text, "a secret reached an input that is not secret"
    found = {
        r["inputs"]["name"]: r["inputs"].get("values")
        for r in json.loads(text)["resources"]
        if r["type"] == RELEASE
    }
    assert releases <= set(found), sorted(found)
    for release in releases:
        assert found[release] == SECRET_PLACEHOLDER, f"{release}: {found[release]!r}"
    for release, values in found.items():
        if release not in releases:
            assert values != SECRET_PLACEHOLDER, f"{release} is secret though its section holds no secret"
