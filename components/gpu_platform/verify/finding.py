"""One difference between the plan and the cluster, and the names the checks report under."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]
"""``error``: the cluster is not what the plan says (verify fails); ``warning``: worth a look, may be fine
(a flavor with no node while its pool is scaled to zero); ``info``: a measurement, not a difference (the bus
bandwidth a ``--smoke`` all-reduce reached)."""

NODES = "gpu-nodes"
KUEUE = "kueue"
RELEASES = "releases"
OPERATOR = "gpu-operator"
SMOKE = "smoke"
CHECKS = (NODES, KUEUE, RELEASES, OPERATOR, SMOKE)


@dataclass(frozen=True)
class Finding:
    severity: Severity
    check: str
    """One of ``CHECKS``: the group it is reported under (a JUnit test suite)."""
    subject: str
    """What the plan names: ``pool l4-spot``, ``ClusterQueue dev``, ``release gpu-operator/gpu-operator``
    (a JUnit test case)."""
    object: str
    """The live object it was found on: ``node gke-...``, or the subject itself."""
    expected: str
    found: str


def error(check: str, subject: str, obj: str, expected: str, found: str) -> Finding:
    return Finding("error", check, subject, obj, expected, found)


def warning(check: str, subject: str, obj: str, expected: str, found: str) -> Finding:
    return Finding("warning", check, subject, obj, expected, found)


def info(check: str, subject: str, obj: str, expected: str, found: str) -> Finding:
    return Finding("info", check, subject, obj, expected, found)
