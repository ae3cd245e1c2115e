"""Read a cluster snapshot through the Kubernetes API with the official client (the ``[verify]`` extra).

Everything is read as the API serves it (raw JSON, no client models), so the snapshot is what ``kubectl get -o
json`` shows and the comparison never depends on the client's version. Every request is bounded.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gpu_platform.sdk import Extra, require
from gpu_platform.verify.expected import Expected
from gpu_platform.verify.snapshot import HelmRelease, Snapshot, decode_helm_secret, latest_releases

KUBERNETES = Extra("verify", "kubernetes", "kubernetes", "the Kubernetes Python client")
KUEUE_GROUP = "kueue.x-k8s.io"
KUEUE_VERSIONS = ("v1beta2", "v1beta1")
"""Served by Kueue 0.19 (both); the first one the cluster serves is read."""
TIMEOUT_SECONDS = 30


class ClusterError(Exception):
    """The cluster could not be read (unreachable, forbidden); ``str`` is one line."""


class KubeconfigError(ValueError):
    """The kubeconfig (or its context) cannot be used; ``str`` is one line naming it."""


def api_client(kubeconfig: str | None, context: str | None) -> Any:
    """A client for the kubeconfig's context (default: ``$KUBECONFIG`` / ``~/.kube/config``, its current context)."""
    kubernetes = require(KUBERNETES, "gpu-platform verify")
    try:
        return kubernetes.config.new_client_from_config(config_file=kubeconfig, context=context)
    except (kubernetes.config.ConfigException, OSError, ValueError, TypeError) as exc:
        where = kubeconfig or "the default kubeconfig"
        raise KubeconfigError(f"--kubeconfig {where}: {' '.join(str(exc).split())}") from None


@contextmanager
def cluster_errors() -> Iterator[None]:
    """API and connection errors as ``ClusterError``: one line, no traceback."""
    from kubernetes.client.exceptions import ApiException
    from urllib3.exceptions import HTTPError

    try:
        yield
    except ApiException as exc:
        raise ClusterError(f"the API server answered {exc.status} {exc.reason}") from None
    except HTTPError as exc:
        raise ClusterError(f"cannot reach the API server: {' '.join(str(exc).split())}") from None


def _raw(call: Any, *args: Any, **kwargs: Any) -> Any:
    response = call(*args, _preload_content=False, _request_timeout=TIMEOUT_SECONDS, **kwargs)
    return json.loads(response.data)


def _kueue(custom: Any, plural: str) -> list[dict[str, Any]]:
    """Kueue objects of one kind at the first served version; ``[]`` when Kueue is not installed."""
    from kubernetes.client.exceptions import ApiException

    for version in KUEUE_VERSIONS:
        try:
            return list(_raw(custom.list_cluster_custom_object, KUEUE_GROUP, version, plural)["items"])
        except ApiException as exc:
            if exc.status != 404:
                raise
    return []


def _helm_releases(core: Any) -> list[HelmRelease]:
    secrets = _raw(core.list_secret_for_all_namespaces, label_selector="owner=helm")["items"]
    decoded = [decode_helm_secret(s) for s in secrets]
    return latest_releases(r for r in decoded if r is not None)


def read_snapshot(client: Any, expected: Expected) -> Snapshot:
    """Nodes, Kueue's queues and flavors, the GPU Operator's operand pods and every Helm release."""
    from kubernetes import client as k8s

    core, custom = k8s.CoreV1Api(client), k8s.CustomObjectsApi(client)
    with cluster_errors():
        snapshot = Snapshot(
            nodes=_raw(core.list_node)["items"],
            clusterQueues=_kueue(custom, "clusterqueues"),
            localQueues=_kueue(custom, "localqueues"),
            resourceFlavors=_kueue(custom, "resourceflavors"),
            helmReleases=_helm_releases(core),
            pods=[],
        )
        if expected.operands is not None:
            selector = f"app in ({','.join(expected.operands.apps)})"
            pods = _raw(core.list_namespaced_pod, expected.operands.namespace, label_selector=selector)
            snapshot["pods"] = pods["items"]
    return snapshot
