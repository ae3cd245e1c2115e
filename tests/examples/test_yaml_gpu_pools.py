"""examples/yaml-gpu-pools: a Pulumi YAML program using the package (not plannable by the Python planner).

Checked instead against the schema ``pulumi package add`` gets: every gpu-platform type and property it
uses exists, with the right kind, enum value and required inputs; outputs it reads exist; and the provider
builds both components from exactly these inputs (sent as the engine sends them) under mocks.
"""

import re
from functools import cache
from pathlib import Path
from typing import Any

import pulumi
import yaml

from gpu_platform.offline import run_program
from gpu_platform.provider import PACKAGE, component_provider
from tests.conftest import REPO
from tests.support.provider import KINDS, SchemaChecker, on_the_wire, ours, served

EXAMPLE = REPO / "examples" / "yaml-gpu-pools"
REF = re.compile(r"^\$\{([^}]+)\}$")


@cache
def program() -> dict[str, Any]:
    return yaml.safe_load((EXAMPLE / "Pulumi.yaml").read_text())


class Checker(SchemaChecker):
    """Walks a YAML value against a schema property, collecting ``path: problem`` lines."""

    def __init__(self) -> None:
        super().__init__()
        self.doc = program()

    def resolve(self, value: Any) -> Any:
        """``${variable}`` becomes the variable's value; other references stay strings."""
        while (
            isinstance(value, str) and (m := REF.match(value)) and m.group(1) in self.doc.get("variables", {})
        ):
            value = self.doc["variables"][m.group(1)]
        return value

    def reference_kind(self, name: str) -> str | None:
        """The kind of ``${name}``: a config value's declared type, or a resource output's schema type."""
        config = self.doc.get("config", {})
        if name in config:
            return str(config[name]["type"])
        resource_name, _, prop = name.partition(".")
        resource = self.doc["resources"].get(resource_name)
        if resource is None:
            self.problems.append(f"${{{name}}}: no such config, variable or resource")
            return None
        if not ours(resource):
            return None
        outputs = served()["resources"][resource["type"]].get("properties", {})
        if prop not in outputs:
            self.problems.append(f"${{{name}}}: {resource['type']} has no output {prop!r}")
            return None
        return outputs[prop].get("type")

    def check(self, value: Any, prop: dict[str, Any], path: str) -> None:
        value = self.resolve(value)
        if isinstance(value, str) and (m := REF.match(value)):
            kind = self.reference_kind(m.group(1))
            wanted = prop.get("type", "object" if "$ref" in prop else None)
            if kind is not None and wanted is not None and kind != wanted:
                self.problems.append(f"{path}: {value} is a {kind}, the property is a {wanted}")
            return
        if "$ref" in prop:
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
            return
        if kind == "array":
            for i, item in enumerate(value):
                self.check(item, prop["items"], f"{path}[{i}]")


def test_example_is_a_yaml_project_using_this_repository_as_a_package() -> None:
    doc = program()
    assert doc["runtime"] == "yaml"
    source = EXAMPLE / doc["packages"][PACKAGE]
    assert (source / "PulumiPlugin.yaml").is_file() and source.resolve() == REPO
    types = {r["type"] for r in doc["resources"].values()}
    assert {f"{PACKAGE}:index:GkeGpuNodePool", f"{PACKAGE}:index:GpuOperator"} <= types


def test_every_gpu_platform_resource_and_property_exists_in_the_schema() -> None:
    checker = Checker()
    resources = served()["resources"]
    for name, resource in program()["resources"].items():
        if not ours(resource):
            continue
        assert resource["type"] in resources, f"{name}: {resource['type']} is not in the package"
        definition = resources[resource["type"]]
        checker.check_object(
            resource.get("properties", {}), definition["inputProperties"], definition["requiredInputs"], name
        )
        assert set(resource.get("options", {})) <= {"providers", "dependsOn", "protect", "parent"}
    for name, value in program().get("outputs", {}).items():
        checker.check(value, {}, f"outputs.{name}")
    assert checker.problems == []


def test_the_checker_catches_what_it_is_for() -> None:
    """A misspelt key, a wrong kind, a bad enum value and a missing required input are all reported."""
    checker = Checker()
    definition = served()["resources"][f"{PACKAGE}:index:GkeGpuNodePool"]
    bad = {
        "cluster": "c",
        "pool": {
            "name": "p",
            "maxNodes": "3",
            "machine_type": "g2-standard-8",
            "sharing": {"mode": "slicing"},
        },
    }
    checker.check_object(bad, definition["inputProperties"], definition["requiredInputs"], "bad")
    assert sorted(checker.problems) == sorted(
        [
            "bad.location: required, missing",
            "bad.pool.maxNodes: '3' is not of type integer",
            "bad.pool.machine_type: no such property (has "
            + str(sorted(served()["types"][f"{PACKAGE}:index:GpuPoolArgs"]["properties"]))
            + ")",
            "bad.pool.sharing.mode: 'slicing' is not one of ['none', 'time-slicing', 'mps', 'mig', 'isolated']",
        ]
    )
    checker.check("${l4-spot.nodeCount}", {"type": "string"}, "x")
    assert (
        checker.problems[-1]
        == "${l4-spot.nodeCount}: gpu-platform:index:GkeGpuNodePool has no output 'nodeCount'"
    )


def _inputs(properties: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    checker = Checker()

    def concrete(value: Any) -> Any:
        value = checker.resolve(value)
        if isinstance(value, str) and (m := REF.match(value)):
            return config[m.group(1)]
        if isinstance(value, dict):
            return {k: concrete(v) for k, v in value.items()}
        if isinstance(value, list):
            return [concrete(v) for v in value]
        return value

    return on_the_wire(concrete(properties))


def test_the_provider_builds_the_example_from_its_yaml_inputs(tmp_path: Path) -> None:
    stack = yaml.safe_load((EXAMPLE / "Pulumi.example.yaml").read_text())["config"]
    config = {k.split(":", 1)[1]: v for k, v in stack.items()}
    assert set(config) | {"kubeconfig"} == set(program()["config"])

    def build() -> None:
        provider = component_provider()
        for name, resource in program()["resources"].items():
            if ours(resource):
                inputs = _inputs(resource.get("properties", {}), config)
                provider.construct(name, resource["type"], inputs, pulumi.ResourceOptions())

    plan = run_program(build)
    pool = plan.one("gcp:container/nodePool:NodePool", "l4-spot-nodepool")
    node_config = pool.inputs["nodeConfig"]
    assert {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"} in node_config["taints"]
    assert node_config["spot"] is True and pool.inputs["autoscaling"]["totalMaxNodeCount"] == 3
    assert pool.inputs["cluster"] == "gpu-demo" and pool.inputs["project"] == "my-gpu-project"
    release = plan.one("kubernetes:helm.sh/v3:Release")
    assert release.inputs["chart"] == "gpu-operator"
    # The operator's device-plugin config time-slices the pool 4 ways, as the pool says.
    data = plan.one("kubernetes:core/v1:ConfigMap", "gpu-operator-device-plugin-config").inputs["data"]
    sharing = yaml.safe_load(data["l4-spot-time-slicing-4"])["sharing"]["timeSlicing"]
    assert sharing["resources"] == [{"name": "nvidia.com/gpu", "replicas": 4}]
    # GKE with driver owner "auto": Google's installer DaemonSet, not the operator's driver containers.
    assert plan.one("kubernetes:apps/v1:DaemonSet", "gpu-operator-gke-driver-installer")
