"""examples/typescript-gke-gpu-pools: a TypeScript program using the package (no Pulumi CLI or npm here).

``node`` runs ``index.ts`` against stand-ins for ``@pulumi/pulumi``, ``@pulumi/kubernetes`` and the generated
``@pulumi/gpu-platform`` SDK (``tests/examples/nodejs_stubs/``; the SDK stand-in is generated from the package
schema, one class per resource). What the program constructs is then checked against the schema that
``pulumi package add`` gets: every type, input property, kind, enum value and required input it uses exists,
no plain (plan-time) input is given an Output, and every output it reads exists. Finally the provider builds
the component from exactly those inputs, sent as the engine sends them, under mocks.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pulumi
import pytest
import yaml

from gpu_platform.offline import run_program
from gpu_platform.provider import PACKAGE, component_provider
from tests.conftest import REPO
from tests.support.provider import KINDS, SchemaChecker, on_the_wire, ours, served

EXAMPLE = REPO / "examples" / "typescript-gke-gpu-pools"
STUBS = Path(__file__).parent / "nodejs_stubs"
NODE = shutil.which("node")
EXACT_VERSION = re.compile(r"^\d+\.\d+\.\d+$")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


def project() -> dict[str, Any]:
    return yaml.safe_load((EXAMPLE / "Pulumi.yaml").read_text())


def stack_config() -> dict[str, Any]:
    return yaml.safe_load((EXAMPLE / "Pulumi.example.yaml").read_text())["config"]


def sdk_stub() -> str:
    """``@pulumi/gpu-platform`` as the program sees it: one class per resource of the schema, with its outputs."""
    lines = ['import { resourceClass } from "@gpu-platform-test/record";']
    for token, resource in sorted(served()["resources"].items()):
        outputs = json.dumps(sorted(resource.get("properties", {})))
        lines.append(
            f"export const {token.rsplit(':', 1)[1]} = resourceClass({json.dumps(token)}, {outputs});"
        )
    return "\n".join(lines) + "\n"


def _module(root: Path, name: str, source: str) -> None:
    directory = root / "node_modules" / name
    directory.mkdir(parents=True)
    (directory / "package.json").write_text(
        json.dumps({"name": name, "type": "module", "exports": "./index.mjs"})
    )
    (directory / "index.mjs").write_text(source)


def run_node(root: Path, program_text: str) -> dict[str, Any]:
    """Run ``program_text`` (the example's source) with node against the stand-ins; what it recorded."""
    assert NODE is not None
    _module(root, "@gpu-platform-test/record", (STUBS / "record.mjs").read_text())
    _module(root, "@pulumi/pulumi", (STUBS / "pulumi.mjs").read_text())
    _module(root, "@pulumi/kubernetes", (STUBS / "kubernetes.mjs").read_text())
    _module(root, "@pulumi/gpu-platform", sdk_stub())
    shutil.copy(STUBS / "run.mjs", root / "run.mjs")
    # The program is plain TypeScript without type annotations, which node runs as an ES module.
    (root / "index.mjs").write_text(program_text)
    env = {
        "PATH": "/usr/bin:/bin",
        "PULUMI_TEST_PROJECT": project()["name"],
        "PULUMI_TEST_CONFIG": json.dumps(stack_config()),
    }
    done = subprocess.run(
        [NODE, "run.mjs", "index.mjs", "out.json"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads((root / "out.json").read_text())
    return result


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if NODE is None:
        pytest.skip("node is not installed")
    return run_node(tmp_path_factory.mktemp("ts"), (EXAMPLE / "index.ts").read_text())


def output_ref(value: Any) -> str | None:
    return value["__output"] if isinstance(value, dict) and set(value) == {"__output"} else None


class Checker(SchemaChecker):
    """Walks a recorded argument against a schema property, collecting ``path: problem`` lines."""

    def __init__(self, calls: list[dict[str, Any]]) -> None:
        super().__init__()
        self.names = {c["name"]: c for c in calls}

    def output_kind(self, ref: str) -> str | None:
        name, _, prop = ref.partition(".")
        call = self.names[name]
        if not ours(call):
            return None
        output = served()["resources"][call["type"]]["properties"][prop]
        return output.get("type", "object" if "$ref" in output else None)

    def check(self, value: Any, prop: dict[str, Any], path: str) -> None:
        ref = output_ref(value)
        if ref is not None:
            if prop.get("plain"):
                self.problems.append(f"{path}: an Output ({ref}); the property must be known at plan time")
            kind, wanted = self.output_kind(ref), prop.get("type", "object" if "$ref" in prop else None)
            if kind is not None and wanted is not None and kind != wanted:
                self.problems.append(f"{path}: {ref} is a {kind}, the property is a {wanted}")
            return
        if "$ref" in prop:
            if not prop["$ref"].startswith("#/types/"):
                return  # another package's type (a Kubernetes object): that package checks it
            definition = self.types[prop["$ref"].removeprefix("#/types/")]
            if "enum" in definition:
                allowed = [e["value"] for e in definition["enum"]]
                if value not in allowed:
                    self.problems.append(f"{path}: {value!r} is not one of {allowed}")
                return
            self.check_object(value, definition.get("properties", {}), definition.get("required", []), path)
            return
        kind = prop.get("type")
        if kind not in KINDS or not isinstance(value, KINDS[kind]) or (kind != "boolean" and value is True):
            self.problems.append(f"{path}: {value!r} is not of type {kind}")
        elif isinstance(value, list):
            for i, item in enumerate(value):
                self.check(item, prop["items"], f"{path}[{i}]")
        elif isinstance(value, dict) and "additionalProperties" in prop:
            for key, entry in value.items():
                self.check(entry, prop["additionalProperties"], f"{path}.{key}")

    def check_call(self, call: dict[str, Any]) -> None:
        resources = served()["resources"]
        if call["type"] not in resources:
            self.problems.append(f"{call['name']}: {call['type']} is not in the package")
            return
        definition = resources[call["type"]]
        self.check_object(
            call["args"], definition["inputProperties"], definition.get("requiredInputs", []), call["name"]
        )


def test_example_is_a_typescript_project_using_this_repository_as_a_package() -> None:
    doc = project()
    assert doc["runtime"]["name"] == "nodejs" and doc["runtime"]["options"]["typescript"] is True
    source = EXAMPLE / doc["packages"][PACKAGE]
    # The GKE provider: the library with the Google Cloud SDK only (tests/test_provider_extras.py).
    assert (source / "PulumiPlugin.yaml").is_file() and source.resolve() == REPO / "providers" / "gke"
    manifest = json.loads((EXAMPLE / "package.json").read_text())
    assert manifest["main"] == "index.ts"
    deps = manifest["dependencies"]
    # `pulumi package add` writes the SDK to sdks/<package> and links it as @pulumi/<package>.
    assert deps[f"@pulumi/{PACKAGE}"] == f"file:sdks/{PACKAGE}"
    assert EXACT_VERSION.match(deps["@pulumi/pulumi"]), deps["@pulumi/pulumi"]
    [kubernetes] = [d for d in served()["dependencies"] if d["name"] == "kubernetes"]
    assert deps["@pulumi/kubernetes"] == kubernetes["version"]  # the provider the schema's outputs reference
    tsconfig = json.loads((EXAMPLE / "tsconfig.json").read_text())
    assert tsconfig["files"] == ["index.ts"] and tsconfig["compilerOptions"]["strict"] is True
    assert {"node_modules/", "sdks/"} <= set((EXAMPLE / ".gitignore").read_text().split())


@needs_node
def test_every_gpu_platform_type_property_and_output_the_program_uses_exists(
    recorded: dict[str, Any],
) -> None:
    calls = recorded["calls"]
    assert {c["type"] for c in calls if ours(c)} == {f"{PACKAGE}:index:GpuPlatform"}
    checker = Checker(calls)
    for call in calls:
        if ours(call):
            checker.check_call(call)
    assert checker.problems == [] and recorded["problems"] == []
    assert recorded["exports"] == {
        "clusterName": {"__output": "platform.clusterName"},
        "kubeconfig": {"__output": "platform.kubeconfig"},
        "gpuModels": {"__output": "platform.gpuPools"},
        "clusterQueues": {"__output": "platform.clusterQueues"},
    }


@needs_node
def test_the_programs_kubernetes_resources_use_the_new_clusters_kubeconfig(recorded: dict[str, Any]) -> None:
    provider = next(c for c in recorded["calls"] if c["type"] == "pulumi:providers:kubernetes")
    assert provider["args"] == {
        "kubeconfig": {"__output": "platform.kubeconfig"},
        "enableServerSideApply": True,
    }
    namespace = next(c for c in recorded["calls"] if c["type"] == "kubernetes:core/v1:Namespace")
    assert namespace["opts"]["provider"] == {"__resource": "pulumi:providers:kubernetes::gpu-cluster"}
    assert namespace["opts"]["dependsOn"] == [{"__resource": f"{PACKAGE}:index:GpuPlatform::platform"}]


@needs_node
def test_the_checks_catch_what_they_are_for(tmp_path: Path) -> None:
    """A misspelt input, an unknown output, a bad enum value, a wrong kind, a missing required input and an
    Output given to a plan-time input are all reported, from a program run the same way."""
    program = """
import * as gpu from "@pulumi/gpu-platform";
const cluster = new gpu.GkeCluster("c", { location: "us-central1", systemPool: { machineType: "e2-standard-4" } });
new gpu.GkeGpuNodePool("p", {
    cluster: cluster.clusterName,
    pool: { name: cluster.clusterName, maxNodes: "3", machine_type: "g2-standard-8", sharing: { mode: "slicing" } },
});
export const size = cluster.nodeCount;
"""
    recorded = run_node(tmp_path, program)
    assert recorded["problems"] == ["c: gpu-platform:index:GkeCluster has no output 'nodeCount'"]
    checker = Checker(recorded["calls"])
    checker.check_call(recorded["calls"][1])
    pool_properties = sorted(served()["types"][f"{PACKAGE}:index:GpuPoolArgs"]["properties"])
    assert sorted(checker.problems) == sorted(
        [
            "p.location: required, missing",
            "p.pool.name: an Output (c.clusterName); the property must be known at plan time",
            "p.pool.maxNodes: '3' is not of type integer",
            f"p.pool.machine_type: no such property (has {pool_properties})",
            "p.pool.sharing.mode: 'slicing' is not one of ['none', 'time-slicing', 'mps', 'mig', 'isolated']",
        ]
    )


@needs_node
def test_the_provider_builds_the_platform_from_the_programs_inputs(recorded: dict[str, Any]) -> None:
    [call] = [c for c in recorded["calls"] if ours(c)]
    config = stack_config()

    def build() -> None:
        component_provider().construct(
            call["name"], call["type"], on_the_wire(call["args"]), pulumi.ResourceOptions()
        )

    plan = run_program(build, config={"gcp:project": config["gcp:project"]})
    cluster = plan.one("gcp:container/cluster:Cluster")
    assert cluster.inputs["project"] == "my-gpu-project" and cluster.inputs["location"] == "us-central1"
    assert cluster.inputs["name"] == "gpu-demo"  # from the stack's config, read by the program
    l4 = plan.one("gcp:container/nodePool:NodePool", "l4-spot-nodepool").inputs
    taint = {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}
    assert taint in l4["nodeConfig"]["taints"] and l4["nodeConfig"]["spot"] is True
    assert l4["autoscaling"]["totalMaxNodeCount"] == 4
    assert l4["nodeConfig"]["labels"]["nvidia.com/device-plugin.config"] == "l4-spot-time-slicing-4"
    a100 = plan.one("gcp:container/nodePool:NodePool", "a100-mig-nodepool").inputs
    assert a100["nodeConfig"]["guestAccelerators"][0]["gpuPartitionSize"] == "1g.5gb"
    data = plan.one("kubernetes:core/v1:ConfigMap", "gpu-operator-device-plugin-config").inputs["data"]
    sharing = yaml.safe_load(data["l4-spot-time-slicing-4"])["sharing"]["timeSlicing"]
    assert sharing["resources"] == [{"name": "nvidia.com/gpu", "replicas": 4}]
    queue = plan.one("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue", "kueue-cq-research")
    flavors = {f["name"] for g in queue.inputs["spec"]["resourceGroups"] for f in g["flavors"]}
    assert {"l4-spot", "a100-mig"} <= flavors
