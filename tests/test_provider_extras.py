"""One component provider per cloud: ``providers/<extra>/`` installs the library with that cloud's SDK only
(``providers/kubernetes/`` with none), so a TypeScript program for GKE does not install the AWS and Azure SDKs.

Each provider serves the root's schema (the same SDK whichever a program adds), builds its own cloud's
components with only its SDK importable, and refuses another cloud's with the extra it needs. A missing SDK
is simulated in a fresh interpreter by ``sys.modules[name] = None`` before anything is imported, which Python
treats exactly as a package that is not installed.
"""

from __future__ import annotations

import ast
import hashlib
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from gpu_platform.cloud_facts import CLOUD_EXTRAS
from gpu_platform.provider import schema
from tests.conftest import REPO

PROVIDERS = REPO / "providers"
NO_CLOUD = "kubernetes"
"""The provider without a cloud SDK: existing clusters, OpenShift and Yandex need only Kubernetes'."""
SDK_MODULES = sorted(extra.module for extra in CLOUD_EXTRAS.values())

POOL = {"name": "l4", "machineType": "g2-standard-8", "maxNodes": 2.0}
CONSTRUCT = {
    "gke": ("GkeGpuNodePool", {"cluster": "c", "location": "us-central1", "pool": POOL}),
    "eks": (
        "EksGpuNodePool",
        {
            "clusterName": "c",
            "nodeRoleArn": "arn:aws:iam::123456789012:role/nodes",
            "subnetIds": ["subnet-0123456789abcdef0"],
            "pool": {**POOL, "machineType": "g6.xlarge"},
        },
    ),
    "aks": (
        "AksGpuNodePool",
        {
            "resourceGroupName": "rg",
            "clusterName": "c",
            "pool": {**POOL, "machineType": "Standard_NC4as_T4_v3"},
        },
    ),
    NO_CLOUD: (
        "GpuOperator",
        {
            "cloud": "existing",
            "driver": {"owner": "operator"},
            "pools": [{"name": "l4", "maxNodes": 2.0, "gpu": "l4", "gpusPerNode": 1.0}],
        },
    ),
}
"""For each provider, a component of its own cloud as the engine sends it (camelCase, numbers as floats)."""

PROBE = """
import hashlib, json, sys
blocked = json.loads(sys.argv[1])
for name in blocked:
    sys.modules[name] = None
import pulumi
from gpu_platform.offline import run_program
from gpu_platform.provider import component_provider, schema

def build(component, inputs):
    provider = component_provider()
    return lambda: provider.construct("p", "gpu-platform:index:" + component, inputs, pulumi.ResourceOptions())

own, other = json.loads(sys.argv[2]), json.loads(sys.argv[3])
out = {"schema": hashlib.sha256(json.dumps(schema(), sort_keys=True).encode()).hexdigest()}
out["types"] = sorted({r.type for r in run_program(build(*own)).resources})
try:
    run_program(build(*other))
    out["other"] = None
except Exception as err:  # the provider reports a component's failure as a ComponentInitError
    out["other"] = str(err)
    out["cause"] = type(err.__context__).__name__
out["loaded"] = sorted(m for m in blocked if sys.modules.get(m) is not None)
print(json.dumps(out))
"""


def provider_names() -> list[str]:
    return sorted(p.name for p in PROVIDERS.iterdir() if (p / "PulumiPlugin.yaml").is_file())


def requirements(directory: Path) -> list[str]:
    lines = (directory / "requirements.txt").read_text().splitlines()
    return [line for line in lines if line.strip() and not line.startswith("#")]


def extras() -> dict[str, list[str]]:
    doc = tomllib.loads((REPO / "pyproject.toml").read_text())
    table: dict[str, list[str]] = doc["project"]["optional-dependencies"]
    return table


def test_one_provider_per_cloud_extra_and_one_without_a_cloud() -> None:
    assert provider_names() == sorted([*CLOUD_EXTRAS, NO_CLOUD])


@pytest.mark.parametrize("name", sorted([*CLOUD_EXTRAS, NO_CLOUD]))
def test_each_provider_installs_the_library_with_its_clouds_sdk_only(name: str) -> None:
    directory = PROVIDERS / name
    manifest = yaml.safe_load((directory / "PulumiPlugin.yaml").read_text())
    assert manifest["runtime"] == yaml.safe_load((REPO / "PulumiPlugin.yaml").read_text())["runtime"]
    [line] = requirements(directory)
    flag, target = line.split(" ", 1)
    path, _, extra = target.partition("[")
    assert flag == "-e" and (directory / path).resolve() == REPO
    if name == NO_CLOUD:
        assert extra == ""
    else:
        assert extra == f"{name}]"
        [sdk] = [canonicalize_name(Requirement(r).name) for r in extras()[name]]
        assert sdk == CLOUD_EXTRAS[name].distribution
    root_main = ast.dump(ast.parse((REPO / "__main__.py").read_text()).body[1])
    assert ast.dump(ast.parse((directory / "__main__.py").read_text()).body[1]) == root_main


@pytest.fixture(scope="module")
def full_schema_digest() -> str:
    return hashlib.sha256(json.dumps(schema(), sort_keys=True).encode()).hexdigest()


@pytest.mark.parametrize("name", sorted([*CLOUD_EXTRAS, NO_CLOUD]))
def test_with_only_its_sdk_a_provider_serves_the_whole_schema_and_builds_its_clouds_components(
    name: str, full_schema_digest: str
) -> None:
    own_module = CLOUD_EXTRAS[name].module if name in CLOUD_EXTRAS else None
    blocked = [m for m in SDK_MODULES if m != own_module]
    other_cloud = next(c for c in CLOUD_EXTRAS if c != name)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            PROBE,
            json.dumps(blocked),
            json.dumps(CONSTRUCT[name]),
            json.dumps(CONSTRUCT[other_cloud]),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": f"{REPO / 'components'}:{REPO}", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.splitlines()[-1])
    assert out["schema"] == full_schema_digest
    assert out["loaded"] == []
    own_type = {
        "gke": "gcp:container/nodePool:NodePool",
        "eks": "aws:eks/nodeGroup:NodeGroup",
        "aks": "azure-native:containerservice:AgentPool",
        NO_CLOUD: "kubernetes:helm.sh/v3:Release",
    }[name]
    assert own_type in out["types"]
    component = CONSTRUCT[other_cloud][0]
    assert out["other"] is not None and out["other"].startswith(f"{component} needs ")
    assert out["cause"] == "MissingExtraError"
    assert out["other"].endswith(f"pip install 'gpu-platform[{other_cloud}]'")
