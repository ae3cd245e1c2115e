"""The package schema has ``GpuPlatform`` (the stack file's keys as inputs) and a ``kubernetesProvider``
output, typed as the kubernetes package's provider, on every cluster component and on ``GpuPlatform``;
and the package metadata (license, keywords, publisher) a registry shows."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from gpu_platform.args.validate import hints
from gpu_platform.provider import KEYWORDS
from gpu_platform.stack.sections import StackConfigArgs
from tests.support.provider import camel, kubernetes_version, served

TOKEN = "gpu-platform:index:"
PROVIDER_REF = "/kubernetes/v{version}/schema.json#/resources/pulumi:providers:kubernetes"


def test_gpu_platform_takes_every_stack_file_key() -> None:
    platform = served()["resources"][f"{TOKEN}GpuPlatform"]
    assert platform["isComponent"] is True
    assert set(platform["inputProperties"]) == {camel(k) for k in hints(StackConfigArgs)}
    assert sorted(platform["requiredInputs"]) == ["cloud", "cluster", "gpuPools"]
    cloud = platform["inputProperties"]["cloud"]
    enum = served()["types"][cloud["$ref"].removeprefix("#/types/")]
    assert [e["value"] for e in enum["enum"]] == ["gke", "eks", "aks", "existing", "openshift", "yandex"]
    pools = platform["inputProperties"]["gpuPools"]
    assert pools["type"] == "array" and pools["items"]["$ref"] == f"#/types/{TOKEN}GpuPoolArgs"
    assert {"clusterName", "kubeconfig", "gpuPools", "clusterQueues", "kubernetesProvider"} <= set(
        platform["properties"]
    )


@pytest.mark.parametrize("component", ["GkeCluster", "EksCluster", "AksCluster", "GpuPlatform"])
def test_cluster_components_output_a_kubernetes_provider(component: str) -> None:
    outputs = served()["resources"][f"{TOKEN}{component}"]["properties"]
    prop = outputs["kubernetesProvider"]
    assert prop["$ref"] == PROVIDER_REF.format(version=kubernetes_version())
    assert "server-side apply" in prop["description"] or "add-on" in prop["description"]


def test_the_kubernetes_package_is_a_declared_dependency() -> None:
    assert kubernetes_version().startswith("4.")


def test_schema_metadata() -> None:
    doc = served()
    assert doc["license"] == "Apache-2.0"
    assert doc["keywords"] == list(KEYWORDS) and "kind/component" in doc["keywords"]
    assert doc["publisher"] and doc["displayName"] == "gpu-platform"
    assert "GPU" in doc["description"]


def test_another_language_gets_the_provider_resource_itself() -> None:
    """What ``construct`` hands the engine for a TypeScript or YAML program's ``cluster.kubernetesProvider``: the
    cluster's provider resource (sent as a resource reference), not an Output the program cannot use."""
    import pulumi
    import pulumi_kubernetes as k8s

    from gpu_platform.offline import run_program
    from gpu_platform.provider import component_provider

    inputs = {"location": "us-central1", "project": "proj"}
    state: dict[str, Any] = {}

    def program() -> None:
        result = component_provider().construct("gpu", f"{TOKEN}GkeCluster", inputs, pulumi.ResourceOptions())
        state.update(result.state)
        state["urn"] = asyncio.ensure_future(state["kubernetesProvider"].urn.future())

    plan = run_program(program)
    assert isinstance(state["kubernetesProvider"], k8s.Provider)
    assert state["urn"].result() == plan.one("pulumi:providers:kubernetes").urn
    assert {"kubeconfig", "kubernetesProvider", "clusterName"} <= set(state)
