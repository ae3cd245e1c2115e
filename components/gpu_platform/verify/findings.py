"""The comparison: ``findings(expected, snapshot)``, a pure function of the plan's expectation and a cluster
snapshot (plain dicts), and ``subjects``, everything it checks (a JUnit test case each)."""

from __future__ import annotations

from gpu_platform.verify.expected import Expected
from gpu_platform.verify.finding import KUEUE, NODES, OPERATOR, RELEASES, SMOKE, Finding
from gpu_platform.verify.kueue_checks import kueue_findings
from gpu_platform.verify.node_checks import OUTSIDE, node_findings
from gpu_platform.verify.release_checks import releases_findings
from gpu_platform.verify.snapshot import Snapshot


def findings(expected: Expected, snapshot: Snapshot) -> list[Finding]:
    """Every difference between what the plan says and what the cluster holds; ``[]`` when they agree."""
    return (
        node_findings(expected, snapshot.get("nodes", []))
        + kueue_findings(expected, snapshot)
        + releases_findings(expected, snapshot)
    )


def subjects(expected: Expected, smoke: bool = False) -> list[tuple[str, str]]:
    """``(check, subject)`` of everything compared, in report order; each finding's pair is among them."""
    out = [(NODES, f"pool {p.name}") for p in expected.pools] + [(NODES, OUTSIDE)]
    out += [(KUEUE, f"ClusterQueue {q.name}") for q in expected.cluster_queues]
    out += [(KUEUE, f"ResourceFlavor {f.name}") for f in expected.flavors]
    out += [(KUEUE, f"LocalQueue {q.namespace}/{q.name}") for q in expected.local_queues]
    out += [(RELEASES, f"release {r.namespace}/{r.name}") for r in expected.releases]
    if expected.operands is not None:
        out += [(OPERATOR, f"operands on pool {p.name}") for p in expected.pools]
    if smoke:
        out += [(SMOKE, f"smoke on pool {p.name}") for p in expected.pools]
        out += [(SMOKE, f"nccl on pool {p.name}") for p in expected.pools]
    return out
