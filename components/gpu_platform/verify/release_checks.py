"""Helm releases against their pins: each planned release deployed, from the planned chart, at its version; and the
GPU Operator's validator and DCGM exporter running on every GPU node of the plan's pools."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from gpu_platform.verify.expected import Expected, ExpectedOperands, ExpectedRelease
from gpu_platform.verify.finding import OPERATOR, RELEASES, Finding, error
from gpu_platform.verify.node_checks import labels_of, name_of, pool_nodes
from gpu_platform.verify.snapshot import HelmRelease, Snapshot


def _version(text: str) -> str:
    """Chart versions compared without a leading ``v`` (``v26.7.0`` and ``26.7.0`` are one pin)."""
    return text[1:] if text.startswith("v") else text


def release_findings(release: ExpectedRelease, live: HelmRelease | None) -> Iterator[Finding]:
    subject = f"release {release.namespace}/{release.name}"
    want = f"{release.chart} {release.version} deployed"
    if live is None:
        yield error(RELEASES, subject, subject, want, "not installed")
        return
    found = f"{live['chart']} {live['version']} {live['status']} (revision {live['revision']})"
    if (
        live["status"] != "deployed"
        or live["chart"] != release.chart
        or _version(live["version"]) != _version(release.version)
    ):
        yield error(RELEASES, subject, subject, want, found)


def _running(pod: Mapping[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") == "Running"


def operand_findings(
    operands: ExpectedOperands,
    pool: str,
    nodes: Sequence[Mapping[str, Any]],
    pods: Sequence[Mapping[str, Any]],
) -> Iterator[Finding]:
    """Each operand (by its ``app`` label) has a running pod on each of the pool's nodes."""
    for node in nodes:
        node_name = name_of(node)
        here = [p for p in pods if (p.get("spec") or {}).get("nodeName") == node_name]
        for app in operands.apps:
            mine = [p for p in here if labels_of(p).get("app") == app]
            if not any(_running(p) for p in mine):
                phases = ", ".join(f"{name_of(p)} {(p.get('status') or {}).get('phase')}" for p in mine)
                yield error(
                    OPERATOR,
                    f"operands on pool {pool}",
                    f"node {node_name}",
                    f"a running {app} pod in {operands.namespace}",
                    phases or "no pod",
                )


def releases_findings(expected: Expected, snapshot: Snapshot) -> list[Finding]:
    live = {(r["namespace"], r["name"]): r for r in snapshot.get("helmReleases", [])}
    out = [f for r in expected.releases for f in release_findings(r, live.get((r.namespace, r.name)))]
    if expected.operands is not None:
        pods = [
            p
            for p in snapshot.get("pods", [])
            if (p.get("metadata") or {}).get("namespace") == expected.operands.namespace
        ]
        for pool in expected.pools:
            mine = pool_nodes(pool.name, snapshot.get("nodes", []))
            out += operand_findings(expected.operands, pool.name, mine, pods)
    return out
