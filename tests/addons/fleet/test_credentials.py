"""The manager's access to a worker: only what Kueue's MultiKueue setup script grants, for the kinds the fleet's
queues admit, and a kubeconfig with the ServiceAccount's token, no exec plugin."""

from __future__ import annotations

from typing import Any

import yaml

from gpu_platform.addons.fleet.credentials import (
    access_objects,
    cluster_role_rules,
    server_of,
    token_kubeconfig,
)
from tests.addons.fleet.fleet_args import KUBECONFIG


def _grants(rules: list[dict[str, Any]]) -> dict[tuple[str, str], list[str]]:
    return {(r["apiGroups"][0], r["resources"][0]): r["verbs"] for r in rules}


def test_batch_jobs_and_kueue_objects_only_without_frameworks() -> None:
    grants = _grants(cluster_role_rules([]))
    assert grants == {
        ("batch", "jobs"): ["create", "delete", "get", "list", "watch"],
        ("batch", "jobs/status"): ["get"],
        ("kueue.x-k8s.io", "workloads"): ["create", "delete", "get", "list", "watch", "update", "patch"],
        ("kueue.x-k8s.io", "clusterqueues"): ["get", "list", "watch"],
        ("kueue.x-k8s.io", "workloads/status"): ["get", "patch", "update"],
    }
    assert not any("*" in v for verbs in grants.values() for v in verbs)


def test_each_admitted_framework_adds_its_kind() -> None:
    grants = _grants(cluster_role_rules(["jobset.x-k8s.io/jobset", "ray.io/raycluster", "deployment"]))
    assert grants[("jobset.x-k8s.io", "jobsets")] == ["create", "delete", "get", "list", "watch"]
    assert grants[("ray.io", "rayclusters")] == [
        "create",
        "delete",
        "get",
        "list",
        "watch",
        "update",
        "patch",
    ]
    assert ("ray.io", "rayjobs") not in grants and ("apps", "deployments") not in grants


def test_the_token_secret_belongs_to_the_service_account() -> None:
    sa, role, binding, secret = access_objects("kueue-system", [])
    assert secret["type"] == "kubernetes.io/service-account-token"
    assert secret["metadata"]["annotations"] == {"kubernetes.io/service-account.name": sa["metadata"]["name"]}
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "multikueue-sa", "namespace": "kueue-system"}
    ]
    assert binding["roleRef"]["name"] == role["metadata"]["name"]


def test_the_kubeconfig_holds_the_token_and_the_workers_server() -> None:
    assert server_of(KUBECONFIG) == "https://203.0.113.10"
    assert server_of("offline-placeholder-kubeconfig") == server_of("a: [") == ""
    doc = yaml.safe_load(token_kubeconfig("eks-l4", server_of(KUBECONFIG), "Q0E=", "t0ken"))
    (cluster,) = doc["clusters"]
    assert cluster["cluster"] == {"certificate-authority-data": "Q0E=", "server": "https://203.0.113.10"}
    (user,) = doc["users"]
    assert user["user"] == {"token": "t0ken"}  # no exec plugin: MultiKueue refuses one
    assert doc["current-context"] == doc["contexts"][0]["name"]
