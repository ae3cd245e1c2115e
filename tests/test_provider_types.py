"""The package schema speaks to other languages: Kubernetes objects typed as the kubernetes package's types,
and descriptions in Markdown with camelCase names and values where the docstrings name Python constants."""

from __future__ import annotations

import inspect
import re
from functools import cache
from typing import Any

import pulumi
import pulumi_kubernetes
import pytest
from pulumi_kubernetes.core.v1 import TaintArgsDict, TolerationArgsDict
from pulumi_kubernetes.helm.v3.outputs import ReleaseStatus

import gpu_platform
from gpu_platform import versions
from gpu_platform.clouds.node_pool_component import GpuNodePoolComponent
from gpu_platform.descriptions import markdown
from gpu_platform.provider import KUBERNETES_TYPES, component_provider, kubernetes_type_ref
from gpu_platform.stack.schema import with_values
from tests.support.provider import kubernetes_version, served

TOKEN = "gpu-platform:index:"
KUBERNETES_NAMES = {"tolerations", "taints", "affinity", "resources", "nodeAffinity", "status"}
"""Property names that are Kubernetes objects wherever they are not the library's own stack-file types."""


@cache
def python_names() -> frozenset[str]:
    return frozenset(component_provider().python_names())


def ref_of(token: str) -> str:
    return f"/kubernetes/v{kubernetes_version()}/schema.json#/types/{token.replace('/', '%2F')}"


POOL_COMPONENTS = [
    "GkeGpuNodePool",
    "EksGpuNodePool",
    "AksGpuNodePool",
    "EksKarpenterGpuNodePool",
    "AksNapGpuNodePool",
]


@pytest.mark.parametrize("component", POOL_COMPONENTS)
def test_pool_tolerations_and_taints_are_the_kubernetes_types(component: str) -> None:
    outputs = served()["resources"][TOKEN + component]["properties"]
    assert outputs["tolerations"]["type"] == "array"
    assert outputs["tolerations"]["items"]["$ref"] == ref_of("kubernetes:core/v1:Toleration")
    assert outputs["taints"]["items"]["$ref"] == ref_of("kubernetes:core/v1:Taint")
    assert "additionalProperties" not in outputs["tolerations"]["items"]


@pytest.mark.parametrize("component", ["GkeGpuComputeClass", "OpenShiftGpuMachineSet"])
def test_auto_provisioned_nodes_tolerations_are_the_kubernetes_type(component: str) -> None:
    tolerations = served()["resources"][TOKEN + component]["properties"]["tolerations"]
    assert tolerations["items"]["$ref"] == ref_of("kubernetes:core/v1:Toleration")


def test_every_helm_release_status_is_the_kubernetes_release_status() -> None:
    statuses = {
        token.removeprefix(TOKEN): r["properties"]["status"]
        for token, r in served()["resources"].items()
        if "status" in r.get("properties", {})
    }
    assert len(statuses) >= 14
    assert {name: p.get("$ref") for name, p in statuses.items()} == {
        name: ref_of("kubernetes:helm.sh/v3:ReleaseStatus") for name in statuses
    }


def _properties(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    found: list[tuple[str, str, dict[str, Any]]] = []
    for token, resource in doc["resources"].items():
        for kind in ("inputProperties", "properties"):
            found += [(token, k, p) for k, p in resource.get(kind, {}).items()]
    for token, t in doc["types"].items():
        found += [(token, k, p) for k, p in t.get("properties", {}).items()]
    return found


def test_no_kubernetes_object_is_a_map_of_strings_or_any() -> None:
    """Wherever a property named like a Kubernetes object is not one of the library's own types, it
    references the kubernetes package, never a map of strings or ``Any``."""
    loose = []
    for token, name, prop in _properties(served()):
        if name not in KUBERNETES_NAMES:
            continue
        item = prop.get("items", prop)
        ref = item.get("$ref", "")
        if not (ref.startswith("#/types/gpu-platform:") or ref.startswith("/kubernetes/")):
            loose.append(f"{token}.{name}")
    assert loose == []


def test_python_types_are_the_kubernetes_sdks_so_python_programs_get_them_typed_too() -> None:
    hints = inspect.get_annotations(GpuNodePoolComponent, eval_str=True)
    assert hints["tolerations"] == pulumi.Output[list[TolerationArgsDict]]
    assert hints["taints"] == pulumi.Output[list[TaintArgsDict]]
    operator = inspect.get_annotations(gpu_platform.GpuOperator, eval_str=True)
    assert operator["status"] == pulumi.Output[ReleaseStatus]


@pytest.mark.parametrize("python_type", list(KUBERNETES_TYPES), ids=lambda t: t.__name__)
def test_each_kubernetes_type_is_the_sdk_class_of_its_token(python_type: type) -> None:
    """``kubernetes:<group>/<version>:<Kind>`` is the SDK's ``pulumi_kubernetes.<group>.<version>`` class
    ``<Kind>`` (or ``<Kind>ArgsDict``), so a typo in a token or a wrong class fails here."""
    token = KUBERNETES_TYPES[python_type]
    package, group_version, kind = token.split(":")
    group, version = group_version.split("/")
    assert package == "kubernetes"
    assert python_type.__module__.split(".")[:3] == ["pulumi_kubernetes", group.split(".")[0], version]
    assert python_type.__name__.removesuffix("ArgsDict") == kind
    assert kubernetes_type_ref(token) == ref_of(token)


def test_the_referenced_kubernetes_package_is_the_installed_sdk() -> None:
    import json
    from importlib.resources import files

    plugin = json.loads(files(pulumi_kubernetes).joinpath("pulumi-plugin.json").read_text())
    assert kubernetes_version() == plugin["version"]


def _descriptions(doc: Any) -> list[str]:
    if isinstance(doc, dict):
        own = [doc["description"]] if isinstance(doc.get("description"), str) else []
        return own + [d for k, v in doc.items() if k != "description" for d in _descriptions(v)]
    if isinstance(doc, list):
        return [d for v in doc for d in _descriptions(v)]
    return []


def test_descriptions_are_markdown_without_rest_literals() -> None:
    descriptions = _descriptions(served())
    assert len(descriptions) > 500
    assert [d for d in descriptions if "``" in d] == []
    assert [d for d in descriptions if re.search(r":(class|func|data|attr|meth):`", d)] == []


def test_descriptions_name_arguments_camelcase() -> None:
    snake = {n for n in python_names() if "_" in n}
    spans = [s for d in _descriptions(served()) for s in re.findall(r"`([^`]+)`", d)]
    named = [s for s in spans if snake & set(re.findall(r"\b[a-z][a-z0-9_]*\b", s))]
    assert named == []
    gke = served()["resources"][TOKEN + "GkeGpuNodePool"]["inputProperties"]
    assert "`GkeCluster.nodeServiceAccountEmail`" in gke["serviceAccount"]["description"]


def test_descriptions_show_values_not_python_constant_names() -> None:
    from gpu_platform.stack.schema import _constants

    constants = set(_constants()) | {n for n in vars(versions) if n.isupper()}
    spans = [s for d in _descriptions(served()) for s in re.findall(r"`([^`]+)`", d)]
    cited = [
        s for s in spans if s.removeprefix("versions.").split(".")[0] in constants and s not in _values()
    ]
    assert cited == []
    gke = served()["resources"][TOKEN + "GkeGpuNodePool"]["inputProperties"]
    assert gke["operatorVersion"]["description"] == (
        f"GPU Operator chart version (default `{versions.GPU_OPERATOR.version}`), for the driver it installs."
    )
    operator = served()["resources"][TOKEN + "GpuOperator"]["inputProperties"]
    assert f"`{versions.GPU_OPERATOR.namespace}`" in operator["namespace"]["description"]


def _values() -> set[str]:
    """Constants whose value is their own name (an upstream API's spelling, such as ``ON_DEMAND``)."""
    from gpu_platform.stack.schema import _constants

    return {name for name, value in _constants().items() if str(getattr(value, "value", value)) == name}


def test_markdown_rewrites_only_what_it_knows() -> None:
    names = {"max_nodes", "node_service_account_email", "cuda_version"}
    assert markdown("At most ``max_nodes``; see ``GkeCluster.node_service_account_email``.", names) == (
        "At most `maxNodes`; see `GkeCluster.nodeServiceAccountEmail`."
    )
    # Not an argument of the package: a file path, a device name, an upstream field keep their spelling.
    text = "``controllers/object_controls.go``, ``rdma/shared_ib``, GKE ``gpu_sharing_config``"
    assert markdown(text, names) == text.replace("``", "`")
    assert markdown("default ``None``; ``True`` or ``False``", names) == "default `null`; `true` or `false`"
    assert markdown("default ``versions.KUEUE.namespace``", names) == f"default `{versions.KUEUE.namespace}`"
    assert markdown("chart ``versions.KUEUE``", names) == f"chart `{versions.KUEUE.version}`"
    assert markdown("``versions.NO_SUCH_PIN``", names) == "`versions.NO_SUCH_PIN`"
    waited = with_values("``DEFAULT_WAIT_TIMEOUT``")
    assert "DEFAULT_WAIT_TIMEOUT" not in waited
    assert markdown("default ``DEFAULT_WAIT_TIMEOUT``", names) == f"default {waited.replace('``', '`')}"


def test_volcano_placements_are_pod_spec_fragments_with_kubernetes_tolerations() -> None:
    placements = served()["resources"][TOKEN + "Volcano"]["properties"]["placements"]
    assert placements["additionalProperties"]["$ref"] == f"#/types/{TOKEN}PodPlacement"
    placement = served()["types"][TOKEN + "PodPlacement"]
    assert sorted(placement["required"]) == ["nodeSelector", "tolerations"]
    assert placement["properties"]["nodeSelector"]["additionalProperties"]["type"] == "string"
    assert placement["properties"]["tolerations"]["items"]["$ref"] == ref_of("kubernetes:core/v1:Toleration")
