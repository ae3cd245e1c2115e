"""The manager's access to a worker: a ServiceAccount bound to a ClusterRole with only what MultiKueue does there,
and a kubeconfig holding its token.

The rules are those of Kueue's ``site/static/examples/multikueue/create-multikueue-kubeconfig.sh``
(kubernetes-sigs/kueue v0.19.2): create, delete, get, list and watch of the job kinds (get of their status),
Workloads (plus update and patch, and their status), and get/list/watch of ClusterQueues and LocalQueues; only for
the kinds the fleet's queues admit. Trainer v2's TrainJob, which the script does not list, gets the same verbs
as every other job kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import yaml

from gpu_platform.addons.fleet.settings import MULTIKUEUE_SERVICE_ACCOUNT

_JOB_VERBS = ["create", "delete", "get", "list", "watch"]
FRAMEWORK_RESOURCES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "batch/job": ("batch", "jobs", ()),
    "pod": ("", "pods", ()),
    "statefulset": ("apps", "statefulsets", ()),
    "jobset.x-k8s.io/jobset": ("jobset.x-k8s.io", "jobsets", ()),
    "leaderworkerset.x-k8s.io/leaderworkerset": ("leaderworkerset.x-k8s.io", "leaderworkersets", ()),
    "trainer.kubeflow.org/trainjob": ("trainer.kubeflow.org", "trainjobs", ()),
    "ray.io/rayjob": ("ray.io", "rayjobs", ()),
    "ray.io/raycluster": ("ray.io", "rayclusters", ("update", "patch")),
    "ray.io/rayservice": ("ray.io", "rayservices", ()),
}
"""A Kueue framework -> (API group, resource, verbs beyond the job verbs), as the script grants them."""
_KUEUE_RULES: list[dict[str, Any]] = [
    {
        "apiGroups": ["kueue.x-k8s.io"],
        "resources": ["workloads"],
        "verbs": [*_JOB_VERBS, "update", "patch"],
    },
    {
        "apiGroups": ["kueue.x-k8s.io"],
        "resources": ["clusterqueues", "localqueues"],
        "verbs": ["get", "list", "watch"],
    },
    {"apiGroups": ["kueue.x-k8s.io"], "resources": ["workloads/status"], "verbs": ["get", "patch", "update"]},
]


def cluster_role_rules(frameworks: Sequence[str]) -> list[dict[str, Any]]:
    """Batch Jobs always, and each framework in ``frameworks`` the script knows; then Kueue's own kinds."""
    rules = []
    for framework in dict.fromkeys(["batch/job", *frameworks]):
        if framework not in FRAMEWORK_RESOURCES:
            continue  # a kind MultiKueue does not copy (a Deployment runs on the manager)
        group, resource, extra = FRAMEWORK_RESOURCES[framework]
        rules.append({"apiGroups": [group], "resources": [resource], "verbs": [*_JOB_VERBS, *extra]})
        rules.append({"apiGroups": [group], "resources": [f"{resource}/status"], "verbs": ["get"]})
    return [*rules, *_KUEUE_RULES]


def access_objects(namespace: str, frameworks: Sequence[str]) -> list[dict[str, Any]]:
    """The ServiceAccount, its ClusterRole and binding, and the Secret Kubernetes fills with its token."""
    sa = MULTIKUEUE_SERVICE_ACCOUNT
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": sa, "namespace": namespace}},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": f"{sa}-role"},
            "rules": cluster_role_rules(frameworks),
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": f"{sa}-crb"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": f"{sa}-role"},
            "subjects": [{"kind": "ServiceAccount", "name": sa, "namespace": namespace}],
        },
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "type": "kubernetes.io/service-account-token",
            "metadata": {
                "name": sa,
                "namespace": namespace,
                "annotations": {"kubernetes.io/service-account.name": sa},
            },
        },
    ]


def server_of(kubeconfig: str) -> str:
    """The API server URL of the kubeconfig's current context (what the script reads with ``kubectl config``)."""
    try:
        doc = yaml.safe_load(kubeconfig)
    except yaml.YAMLError:
        return ""
    if not isinstance(doc, dict):  # not a kubeconfig (an offline plan's placeholder)
        return ""
    contexts = {c["name"]: c["context"] for c in doc.get("contexts") or []}
    clusters = {c["name"]: c["cluster"] for c in doc.get("clusters") or []}
    context = contexts.get(doc.get("current-context", ""))
    cluster = clusters.get(context["cluster"]) if context else None
    if cluster is None and len(clusters) == 1:
        cluster = next(iter(clusters.values()))
    return str(cluster["server"]) if cluster else ""


def token_kubeconfig(worker: str, server: str, ca_data: str, token: str) -> str:
    """A kubeconfig with the ServiceAccount's token (``ca_data``: base64 as in the token Secret's ``ca.crt``). No
    exec plugin: MultiKueue refuses one from a Secret ("exec plugins are not allowed",
    ``pkg/controller/admissionchecks/multikueue/multikueuecluster.go``, v0.19.2)."""
    user = f"{worker}-{MULTIKUEUE_SERVICE_ACCOUNT}"
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": worker, "cluster": {"certificate-authority-data": ca_data, "server": server}}],
        "contexts": [{"name": worker, "context": {"cluster": worker, "user": user}}],
        "current-context": worker,
        "users": [{"name": user, "user": {"token": token}}],
        "preferences": {},
    }
    return yaml.safe_dump(doc, sort_keys=False)
