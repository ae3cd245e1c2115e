"""Kueue against the plan: each ClusterQueue exists, is Active and has the planned quota per flavor and resource;
each ResourceFlavor selects the planned node labels (and some node carries them); each LocalQueue points at its
ClusterQueue."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from gpu_platform.policy_model.kube import parse_quantity
from gpu_platform.verify.expected import Expected, ExpectedFlavor, ExpectedQueue, quotas_of
from gpu_platform.verify.finding import KUEUE, Finding, error, warning
from gpu_platform.verify.node_checks import labels_of, name_of
from gpu_platform.verify.snapshot import Snapshot


def _by_name(objects: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {name_of(o): o for o in objects}


def _active(queue: Mapping[str, Any]) -> tuple[bool, str]:
    """Kueue's ``Active`` condition (``status.conditions``): whether it is ``True``, and what it says."""
    for c in (queue.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Active":
            said = f"Active={c.get('status')} ({c.get('reason', '')}: {c.get('message', '')})"
            return c.get("status") == "True", said
    return False, "no Active condition"


def _same(planned: Any, live: Any) -> bool:
    a, b = parse_quantity(planned), parse_quantity(live)
    return a == b if a is not None and b is not None else str(planned) == str(live)


def queue_findings(queue: ExpectedQueue, live: Mapping[str, Any] | None) -> Iterator[Finding]:
    subject = f"ClusterQueue {queue.name}"
    if live is None:
        yield error(KUEUE, subject, subject, "the ClusterQueue exists", "not found")
        return
    active, said = _active(live)
    if not active:
        yield error(KUEUE, subject, subject, "Active=True", said)
    have = quotas_of(live.get("spec") or {})
    for (flavor, resource), quota in queue.quotas.items():
        if (flavor, resource) not in have:
            yield error(KUEUE, subject, subject, f"{flavor} {resource} nominalQuota {quota}", "not covered")
        elif not _same(quota, have[(flavor, resource)]):
            found = f"{flavor} {resource} nominalQuota {have[(flavor, resource)]}"
            yield error(KUEUE, subject, subject, f"{flavor} {resource} nominalQuota {quota}", found)


def _matches(selector: Mapping[str, str], node: Mapping[str, Any]) -> bool:
    labels = labels_of(node)
    return all(labels.get(k) == v for k, v in selector.items())


def flavor_findings(
    flavor: ExpectedFlavor, live: Mapping[str, Any] | None, nodes: Sequence[Mapping[str, Any]]
) -> Iterator[Finding]:
    subject = f"ResourceFlavor {flavor.name}"
    if live is None:
        yield error(KUEUE, subject, subject, "the ResourceFlavor exists", "not found")
        return
    labels = dict((live.get("spec") or {}).get("nodeLabels") or {})
    if labels != dict(flavor.node_labels):
        yield error(KUEUE, subject, subject, f"nodeLabels {flavor.node_labels}", f"nodeLabels {labels}")
    elif flavor.node_labels and not any(_matches(flavor.node_labels, n) for n in nodes):
        yield warning(
            KUEUE, subject, subject, "a node with its nodeLabels", "none (fine while its pool is at zero)"
        )


def kueue_findings(expected: Expected, snapshot: Snapshot) -> list[Finding]:
    queues = _by_name(snapshot.get("clusterQueues", []))
    flavors = _by_name(snapshot.get("resourceFlavors", []))
    nodes = snapshot.get("nodes", [])
    local = {
        ((q.get("metadata") or {}).get("namespace", ""), name_of(q)): (q.get("spec") or {}).get(
            "clusterQueue"
        )
        for q in snapshot.get("localQueues", [])
    }
    out = [f for q in expected.cluster_queues for f in queue_findings(q, queues.get(q.name))]
    out += [f for fl in expected.flavors for f in flavor_findings(fl, flavors.get(fl.name), nodes)]
    for lq in expected.local_queues:
        subject = f"LocalQueue {lq.namespace}/{lq.name}"
        target = local.get((lq.namespace, lq.name))
        if target != lq.cluster_queue:
            found = "not found" if (lq.namespace, lq.name) not in local else f"clusterQueue {target}"
            out.append(error(KUEUE, subject, subject, f"clusterQueue {lq.cluster_queue}", found))
    return out
