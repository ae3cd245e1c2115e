"""The multi-language package: the schema ``pulumi package add`` gets has every public component with its
typed inputs, outputs and docstrings, and the provider builds components from engine-shaped inputs.

Everything runs in-process: ``component_provider()`` builds the same ``ComponentProvider`` that
``component_provider_host`` serves (Pulumi's analyzer + schema generation), without starting it.
"""

import ast
import enum
import inspect
import re
from functools import cache
from typing import Any, get_origin

import pulumi
import pulumi.provider.experimental.component as component_module
import pulumi.provider.experimental.host as host_module
import pytest
import yaml

import gpu_platform
from gpu_platform.descriptions import markdown
from gpu_platform.offline import run_program
from gpu_platform.provider import (
    PACKAGE,
    DocumentedAnalyzer,
    GpuPlatformProvider,
    component_provider,
    components,
)
from gpu_platform.provider import version as provider_version
from gpu_platform.semver import semver
from tests.conftest import REPO
from tests.support.provider import camel, served

TOKEN = f"{PACKAGE}:index:"


@cache
def type_definitions() -> dict[str, Any]:
    """Schema type name -> the analyzer's TypeDefinition (which knows the Python type)."""
    return DocumentedAnalyzer(PACKAGE).analyze(components())["type_definitions"]


def args_type(component: type) -> Any:
    return inspect.get_annotations(component.__init__)["args"]


def output_names(component: type) -> set[str]:
    """Public ``pulumi.Output`` and resource (the Kubernetes provider) attributes annotated on the component
    class or its bases."""
    names = set()
    for klass in component.__mro__:
        for name, annotation in inspect.get_annotations(klass).items():
            resource = isinstance(annotation, type) and issubclass(annotation, pulumi.Resource)
            if not name.startswith("_") and (get_origin(annotation) is pulumi.Output or resource):
                names.add(name)
    return names


def ref(prop: dict[str, Any]) -> str:
    return prop["$ref"].removeprefix("#/types/")


SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
    r"(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)
"""semver.org's suggested regular expression (Pulumi requires a package schema's version to be semver)."""


def test_the_schema_version_is_semver_even_between_releases(monkeypatch: pytest.MonkeyPatch) -> None:
    assert SEMVER.match(served()["version"])
    for pep440, expected in [
        ("0.2.1.dev0", "0.2.1-dev.0"),
        ("0.3.0", "0.3.0"),
        ("1.0.0rc2", "1.0.0-rc.2"),
        ("1.0.0b1.dev4", "1.0.0-beta.1.dev.4"),
        ("0.2.1.dev0+g5c7dab3", "0.2.1-dev.0"),
    ]:
        assert semver(pep440) == expected and SEMVER.match(expected)
    monkeypatch.setattr(gpu_platform, "__version__", "0.2.1.dev0")
    assert provider_version() == "0.2.1-dev.0"


def test_schema_has_every_public_component_and_nothing_else() -> None:
    doc = served()
    assert doc["name"] == "gpu-platform" and doc["version"] == semver(gpu_platform.__version__)
    assert sorted(doc["resources"]) == sorted(TOKEN + name for name in gpu_platform._COMPONENTS)
    assert all(r["isComponent"] for r in doc["resources"].values())
    for name in gpu_platform._COMPONENTS:
        component = getattr(gpu_platform, name)
        assert component._type_token == TOKEN + name
        assert doc["resources"][TOKEN + name]["description"] == markdown(
            inspect.cleandoc(component.__doc__), component_provider().python_names()
        )


@pytest.mark.parametrize("name", list(gpu_platform._COMPONENTS))
def test_inputs_are_the_args_typeddict_with_required_and_optional_keys(name: str) -> None:
    component = getattr(gpu_platform, name)
    args = args_type(component)
    resource = served()["resources"][TOKEN + name]
    assert set(resource["inputProperties"]) == {camel(k) for k in args.__annotations__}
    assert set(resource["requiredInputs"]) == {camel(k) for k in args.__required_keys__}


@pytest.mark.parametrize("name", list(gpu_platform._COMPONENTS))
def test_outputs_are_the_annotated_outputs(name: str) -> None:
    component = getattr(gpu_platform, name)
    resource = served()["resources"][TOKEN + name]
    assert set(resource.get("properties", {})) == {camel(k) for k in output_names(component)}
    assert set(resource.get("required", [])) <= set(resource.get("properties", {}))


def test_every_nested_type_and_enum_matches_its_python_definition() -> None:
    types = served()["types"]
    definitions = type_definitions()
    assert sorted(types) == sorted(TOKEN + name for name in definitions)
    enums = objects = 0
    for name, definition in definitions.items():
        schema_type = types[TOKEN + name]
        python_type = definition.python_type
        if isinstance(python_type, type) and issubclass(python_type, enum.Enum):
            assert [e["value"] for e in schema_type["enum"]] == [m.value for m in python_type]
            enums += 1
        else:
            assert set(schema_type["properties"]) == {camel(k) for k in python_type.__annotations__}
            assert set(schema_type.get("required", [])) == {camel(k) for k in python_type.__required_keys__}
            objects += 1
    assert enums >= 10 and objects >= 10


def test_nested_types_are_referenced_where_the_args_use_them() -> None:
    doc = served()
    res, types = doc["resources"], doc["types"]
    pool = res[TOKEN + "GkeGpuNodePool"]["inputProperties"]["pool"]
    assert ref(pool) == TOKEN + "GpuPoolArgs"
    operator = res[TOKEN + "GpuOperator"]["inputProperties"]
    assert operator["pools"]["type"] == "array" and ref(operator["pools"]["items"]) == TOKEN + "GpuPoolArgs"
    assert ref(operator["driver"]) == TOKEN + "DriverArgs"
    assert ref(types[TOKEN + "DriverArgs"]["properties"]["owner"]) == TOKEN + "DriverOwner"
    gpu_pool = types[TOKEN + "GpuPoolArgs"]["properties"]
    assert ref(gpu_pool["sharing"]) == TOKEN + "SharingArgs"
    assert ref(gpu_pool["taints"]["items"]) == TOKEN + "TaintArgs"
    assert ref(types[TOKEN + "SharingArgs"]["properties"]["mode"]) == TOKEN + "SharingMode"
    assert [e["value"] for e in types[TOKEN + "SharingMode"]["enum"]] == [
        "none",
        "time-slicing",
        "mps",
        "mig",
        "isolated",
    ]
    assert gpu_pool["maxNodes"]["type"] == "integer" and gpu_pool["spot"]["type"] == "boolean"
    assert sorted(types[TOKEN + "GpuPoolArgs"]["required"]) == ["maxNodes", "name"]


def _descriptions(doc: dict[str, Any]) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for token, resource in doc["resources"].items():
        for kind in ("inputProperties", "properties"):
            found += [
                (f"{token}.{kind}.{k}", p.get("description")) for k, p in resource.get(kind, {}).items()
            ]
    for token, t in doc["types"].items():
        found.append((token, t.get("description")))
        found += [(f"{token}.{k}", p.get("description")) for k, p in t.get("properties", {}).items()]
        found += [(f"{token}.{e['value']}", e.get("description")) for e in t.get("enum", [])]
    return found


def test_every_input_output_type_and_choice_has_its_docstring_as_description() -> None:
    descriptions = _descriptions(served())
    assert [where for where, text in descriptions if not text or not text.strip()] == []
    # Dedented: an indented continuation line would be a code block in the generated SDK docs.
    assert [where for where, text in descriptions if "\n " in text] == []


def test_inherited_arguments_and_outputs_keep_the_docstring_of_the_class_declaring_them() -> None:
    """Pulumi's analyzer reads docstrings only from the analyzed class; DocumentedAnalyzer follows bases."""
    res = served()["resources"]
    for cloud in ("Gke", "Eks", "Aks"):
        pool = res[f"{TOKEN}{cloud}GpuNodePool"]
        assert pool["inputProperties"]["pool"]["description"] == (
            "The pool, exactly as a `gpuPools` entry of the stack file (its keys snake_case in Python)."
        )
        assert (
            pool["properties"]["labels"]["description"]
            == "Labels every node carries (what workloads select on)."
        )
    gke = res[TOKEN + "GkeGpuNodePool"]["inputProperties"]
    assert gke["cluster"]["description"].startswith("Cluster name, or its ID")


def test_the_host_builds_the_schema_with_the_documented_analyzer() -> None:
    original = component_module.Analyzer
    provider = component_provider()
    assert isinstance(provider, GpuPlatformProvider)
    assert isinstance(provider.analyzer, DocumentedAnalyzer)
    assert component_module.Analyzer is original  # patched only while the provider is built


def test_the_sdk_still_builds_the_provider_the_way_the_adjustments_assume() -> None:
    """component_provider_host builds a ComponentProvider by its module-global name, which builds an
    Analyzer by its module-global name: gpu_platform.provider swaps both names while hosting."""
    assert host_module.ComponentProvider is component_module.ComponentProvider
    assert "ComponentProvider" in host_module.component_provider_host.__code__.co_names
    assert "Analyzer" in component_module.ComponentProvider.__init__.__code__.co_names
    assert "map_input_properties" in component_module.ComponentProvider.map_inputs.__code__.co_names


def test_integer_inputs_reach_the_component_as_int() -> None:
    provider = component_provider()
    definition = provider._component_defs["GkeGpuNodePool"]
    mapped = provider.map_inputs(
        {
            "cluster": "c",
            "location": "l",
            "pool": {"name": "p", "maxNodes": 3.0, "sharing": {"replicas": 4.0}},
        },
        definition,
    )
    assert mapped["pool"]["max_nodes"] == 3 and type(mapped["pool"]["max_nodes"]) is int
    assert type(mapped["pool"]["sharing"]["replicas"]) is int


def test_plugin_manifest_runs_the_provider_with_every_cloud_sdk() -> None:
    manifest = yaml.safe_load((REPO / "PulumiPlugin.yaml").read_text())
    assert manifest["runtime"]["name"] == "python"
    assert manifest["runtime"]["options"]["virtualenv"] == ".venv"
    assert "-e .[all]" in (REPO / "requirements.txt").read_text().splitlines()
    tree = ast.parse((REPO / "__main__.py").read_text())
    source = ast.unparse(tree)
    assert "from gpu_platform.provider import main" in source
    assert "if __name__ == '__main__':\n    main()" in source


def test_the_provider_builds_a_component_from_engine_shaped_inputs() -> None:
    """What a YAML or TypeScript program sends: camelCase keys, enum strings, numbers as floats."""
    inputs = {
        "cluster": "gpu-cluster",
        "location": "us-central1",
        "pool": {
            "name": "l4-spot",
            "machineType": "g2-standard-8",
            "maxNodes": 3.0,
            "spot": True,
            "sharing": {"mode": "time-slicing", "replicas": 4.0},
        },
        "driver": {"owner": "auto"},
    }
    state: dict[str, Any] = {}

    def program() -> None:
        result = component_provider().construct(
            "l4-spot", TOKEN + "GkeGpuNodePool", inputs, pulumi.ResourceOptions()
        )
        state.update(result.state)

    plan = run_program(program)
    node_pool = plan.one("gcp:container/nodePool:NodePool", "l4-spot-nodepool")
    config = node_pool.inputs["nodeConfig"]
    assert {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"} in config["taints"]
    assert config["machineType"] == "g2-standard-8" and config["spot"] is True
    assert node_pool.inputs["autoscaling"]["totalMaxNodeCount"] == 3
    assert set(state) == {"nodePoolName", "labels", "taints", "tolerations"}


def test_refused_arguments_reach_another_language_as_invalid_properties_in_schema_names() -> None:
    """A TypeScript or YAML program gets each problem at its camelCase input, with no traceback: Pulumi's
    provider would wrap the component's error as a failure inside its constructor and print the stack."""
    inputs = {
        "cluster": "gpu-cluster",
        "location": "us-central1",
        "pool": {"name": "l4", "machineType": "g2-standard-8", "maxNodes": 3.0, "minNodes": 5.0},
        "driver": {"owner": "auto"},
    }
    caught: list[BaseException] = []

    def program() -> None:
        try:
            component_provider().construct("l4", TOKEN + "GkeGpuNodePool", inputs, pulumi.ResourceOptions())
        except BaseException as exc:  # the test inspects what the engine would get
            caught.append(exc)

    assert run_program(program).resources == []
    [error] = caught
    assert type(error) is pulumi.InputPropertiesError
    paths = [e["property_path"] for e in error.errors]
    assert paths and all("_" not in path for path in paths), paths
    assert any(path.startswith("pool.") and "Nodes" in path for path in paths), paths
    assert error.message.startswith("invalid arguments for GkeGpuNodePool 'l4':")
    assert "5 is more than maxNodes 3" in error.message  # the reason names fields as the schema does too
    assert "Traceback" not in error.message and 'File "' not in error.message
