"""Every cluster component's ``kubernetes_provider`` is the cluster's ``pulumi_kubernetes.Provider`` itself: a
program's own Kubernetes object given it as ``opts.provider`` is created through it (an ``Output`` there is
silently dropped by Pulumi, and the object would go to the ambient kubeconfig's cluster). ``kubeconfig`` is a
secret output; ``k8s_provider`` is the deprecated old name of the same provider."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest

from gpu_platform.clouds.aks.cluster import AksCluster
from gpu_platform.clouds.eks.cluster import EksCluster
from gpu_platform.clouds.gke.cluster import GkeCluster
from gpu_platform.offline import Plan, run_program

CLUSTERS: dict[str, Callable[[], Any]] = {
    "GkeCluster": lambda: GkeCluster("gpu", {"location": "us-central1", "project": "proj"}),
    "EksCluster": lambda: EksCluster(
        "gpu", {"region": "us-east-1", "availability_zones": ["us-east-1a", "us-east-1b"]}
    ),
    "AksCluster": lambda: AksCluster("gpu", {"location": "westeurope", "admin_group_object_ids": ["g"]}),
}


def with_own_namespace(make: Callable[[], Any]) -> tuple[Plan, dict[str, Any]]:
    """A program that makes the cluster and a Namespace of its own on it, as an adopter writes it."""
    seen: dict[str, Any] = {}

    def program() -> None:
        cluster = make()
        seen["cluster"] = cluster
        k8s.core.v1.Namespace(
            "ml-research",
            metadata={"name": "ml-research"},
            opts=pulumi.ResourceOptions(provider=cluster.kubernetes_provider),
        )
        seen["secret"] = asyncio.ensure_future(cluster.kubeconfig.is_secret())

    return run_program(program), seen


@pytest.fixture(scope="module", params=sorted(CLUSTERS))
def planned(request: pytest.FixtureRequest) -> tuple[Plan, dict[str, Any]]:
    return with_own_namespace(CLUSTERS[request.param])


def test_a_namespace_given_the_provider_output_is_created_through_the_clusters_provider(
    planned: tuple[Plan, dict[str, Any]],
) -> None:
    plan, _ = planned
    [provider] = plan.by_type("pulumi:providers:kubernetes")
    namespace = plan.one("kubernetes:core/v1:Namespace", "ml-research")
    assert namespace.provider.rsplit("::", 1)[0] == provider.urn, namespace.provider
    assert provider.inputs["kubeconfig"] == "[secret]" and provider.inputs["enableServerSideApply"] == "true"


def test_the_provider_output_is_a_kubernetes_provider_and_the_kubeconfig_a_secret(
    planned: tuple[Plan, dict[str, Any]],
) -> None:
    _, seen = planned
    cluster = seen["cluster"]
    assert isinstance(cluster.kubernetes_provider, k8s.Provider)
    assert seen["secret"].result() is True


def test_k8s_provider_is_the_same_provider_with_a_deprecation_warning(
    planned: tuple[Plan, dict[str, Any]],
) -> None:
    cluster = planned[1]["cluster"]
    with pytest.warns(DeprecationWarning, match="kubernetes_provider"):
        old = cluster.k8s_provider
    assert old is cluster.kubernetes_provider
