"""A snapshot of a live cluster: plain API objects (as ``kubectl get -o json`` prints them), and the Helm releases
decoded from their storage secrets. Plain data, so the comparison is tested with dicts and a snapshot can be saved."""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterable, Mapping
from typing import Any, TypedDict

HELM_SECRET_TYPE = "helm.sh/release.v1"
"""The ``type`` of the secrets Helm 3 stores a release revision in, named ``sh.helm.release.v1.<name>.v<N>``
(helm/helm v3 ``pkg/storage/driver/secrets.go``)."""


class HelmRelease(TypedDict):
    name: str
    namespace: str
    revision: int
    status: str
    """``deployed``, ``failed``, ``pending-upgrade`` ... (``info.status``)."""
    chart: str
    version: str


class Snapshot(TypedDict):
    nodes: list[dict[str, Any]]
    clusterQueues: list[dict[str, Any]]
    localQueues: list[dict[str, Any]]
    resourceFlavors: list[dict[str, Any]]
    pods: list[dict[str, Any]]
    """The GPU Operator's operand pods (validator, DCGM exporter)."""
    helmReleases: list[HelmRelease]


def decode_helm_secret(secret: Mapping[str, Any]) -> HelmRelease | None:
    """One release revision from its secret: ``data.release`` is base64 (the Secret's encoding) of base64 of the
    gzipped release JSON (helm/helm v3 ``pkg/storage/driver/util.go`` ``encodeRelease``); ``None`` if unreadable."""
    data = (secret.get("data") or {}).get("release")
    if not data:
        return None
    try:
        raw = base64.b64decode(base64.b64decode(data))
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        release = json.loads(raw)
    except (ValueError, OSError):
        return None
    metadata = (release.get("chart") or {}).get("metadata") or {}
    return HelmRelease(
        name=str(release.get("name", "")),
        namespace=str(release.get("namespace", "")),
        revision=int(release.get("version") or 0),
        status=str((release.get("info") or {}).get("status", "")),
        chart=str(metadata.get("name", "")),
        version=str(metadata.get("version", "")),
    )


def encode_helm_secret(release: HelmRelease) -> dict[str, Any]:
    """The storage secret Helm writes for ``release`` (tests and the local control plane use it)."""
    body = {
        "name": release["name"],
        "namespace": release["namespace"],
        "version": release["revision"],
        "info": {"status": release["status"]},
        "chart": {"metadata": {"name": release["chart"], "version": release["version"]}},
    }
    inner = base64.b64encode(gzip.compress(json.dumps(body).encode())).decode()
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": HELM_SECRET_TYPE,
        "metadata": {
            "name": f"sh.helm.release.v1.{release['name']}.v{release['revision']}",
            "namespace": release["namespace"],
            "labels": {
                "owner": "helm",
                "name": release["name"],
                "status": release["status"],
                "version": str(release["revision"]),
            },
        },
        "data": {"release": base64.b64encode(inner.encode()).decode()},
    }


def latest_releases(records: Iterable[HelmRelease]) -> list[HelmRelease]:
    """The newest revision of each release (what ``helm list`` shows)."""
    latest: dict[tuple[str, str], HelmRelease] = {}
    for r in records:
        key = (r["namespace"], r["name"])
        if key not in latest or r["revision"] > latest[key]["revision"]:
            latest[key] = r
    return sorted(latest.values(), key=lambda r: (r["namespace"], r["name"]))


def empty_snapshot() -> Snapshot:
    """A cluster with nothing the plan makes (and what a saved snapshot leaves out)."""
    return Snapshot(nodes=[], clusterQueues=[], localQueues=[], resourceFlavors=[], pods=[], helmReleases=[])
