"""Verify's output: the table for people, JUnit XML for CI (a failure per error under its subject's case)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from gpu_platform.verify.finding import Finding
from gpu_platform.verify.report import junit, summary, table

TAINT = Finding("error", "gpu-nodes", "pool l4", "node n1", "taint nvidia.com/gpu=present:NoSchedule", "none")
FLAVOR = Finding(
    "warning", "kueue", "ResourceFlavor l4", "ResourceFlavor l4", "a node with its nodeLabels", "none"
)
SUBJECTS = [("gpu-nodes", "pool l4"), ("kueue", "ClusterQueue q"), ("kueue", "ResourceFlavor l4")]


def test_the_table_has_a_row_per_finding() -> None:
    lines = table([TAINT, FLAVOR]).splitlines()
    assert lines[0].split() == ["SEVERITY", "CHECK", "OBJECT", "EXPECTED", "FOUND"]
    assert lines[1].split()[:4] == ["error", "gpu-nodes", "node", "n1"]
    assert lines[1].endswith("none") and lines[2].startswith("warning")
    assert table([]) == "no drift: the cluster holds what the plan says"


def test_the_summary_counts_errors_and_warnings() -> None:
    assert summary([TAINT, FLAVOR], 3) == "verify: drift found, 1 errors and 1 warnings (3 objects compared)"
    assert summary([FLAVOR], 3).startswith("verify: passed with warnings")


def test_junit_has_a_case_per_subject_and_a_failure_per_error() -> None:
    root = ET.fromstring(junit([TAINT, FLAVOR], SUBJECTS, "gpu-platform verify dev"))
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {"gpu-nodes", "kueue"}
    assert (suites["gpu-nodes"].get("tests"), suites["gpu-nodes"].get("failures")) == ("1", "1")
    assert (suites["kueue"].get("tests"), suites["kueue"].get("failures")) == ("2", "0")
    (failure,) = root.iter("failure")
    assert failure.get("message") == "node n1: expected taint nvidia.com/gpu=present:NoSchedule, found none"
    flavor = next(c for c in root.iter("testcase") if c.get("name") == "ResourceFlavor l4")
    assert flavor.findtext("system-out", "").startswith("warning: ResourceFlavor l4")


def test_a_subject_with_several_errors_fails_once_listing_each() -> None:
    other = Finding(
        "error", "gpu-nodes", "pool l4", "node n2", "allocatable nvidia.com/gpu = 4", "nvidia.com/gpu = 0"
    )
    root = ET.fromstring(junit([TAINT, other], SUBJECTS, "verify"))
    (failure,) = root.iter("failure")
    assert failure.get("message", "").startswith("2 differences, first: node n1: expected taint")
    assert (failure.text or "").splitlines()[
        1
    ] == "node n2: expected allocatable nvidia.com/gpu = 4, found nvidia.com/gpu = 0"


def test_a_measurement_is_listed_but_is_no_drift() -> None:
    """An ``info`` finding (an all-reduce's bus bandwidth) is shown and kept in JUnit, never counted as drift."""
    measured = Finding(
        "info",
        "smoke",
        "nccl on pool h100",
        "Job ns/j",
        "an NCCL all-reduce across 2 nodes",
        "bus bandwidth 180 GB/s",
    )
    assert table([measured]).splitlines() == [
        "no drift: the cluster holds what the plan says",
        "Job ns/j: bus bandwidth 180 GB/s",
    ]
    assert table([FLAVOR, measured]).splitlines()[2].split()[:2] == ["info", "smoke"]
    assert summary([measured], 1) == "verify: passed, 0 errors and 0 warnings (1 objects compared)"
    root = ET.fromstring(junit([measured], [("smoke", "nccl on pool h100")], "verify"))
    (case,) = root.iter("testcase")
    assert case.find("failure") is None
    assert case.findtext("system-out") == (
        "info: Job ns/j: expected an NCCL all-reduce across 2 nodes, found bus bandwidth 180 GB/s\n"
    )
