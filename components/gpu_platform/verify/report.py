"""Verify's output: a table for people and JUnit XML for CI (a test suite per check, a test case per subject,
failed by its error findings; warnings and measurements (``info``) are the case's system-out)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from gpu_platform.verify.finding import Finding

COLUMNS = ("SEVERITY", "CHECK", "OBJECT", "EXPECTED", "FOUND")


def table(found: Sequence[Finding]) -> str:
    """One row per finding, columns aligned; a single line when there is none (or only measurements, listed
    after it)."""
    if all(f.severity == "info" for f in found):
        measured = [f"{f.object}: {f.found}" for f in found]
        return "\n".join(["no drift: the cluster holds what the plan says", *measured])
    rows = [COLUMNS] + [(f.severity, f.check, f.object, f.expected, f.found) for f in found]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS) - 1)]
    return "\n".join(
        "  ".join([*(c.ljust(w) for c, w in zip(r[:-1], widths, strict=True)), r[-1]]).rstrip() for r in rows
    )


def summary(found: Sequence[Finding], checked: int) -> str:
    """``verify: ...``: the verdict, how many errors and warnings, and how much was compared."""
    errors = sum(1 for f in found if f.severity == "error")
    warnings = sum(1 for f in found if f.severity == "warning")
    verdict = "drift found" if errors else "passed" if not warnings else "passed with warnings"
    return f"verify: {verdict}, {errors} errors and {warnings} warnings ({checked} objects compared)"


def _key(f: Finding) -> tuple[str, str]:
    return (f.check, f.subject)


def junit(found: Sequence[Finding], subjects: Sequence[tuple[str, str]], name: str) -> str:
    """JUnit XML: ``<testsuites name>`` / ``<testsuite>`` per check / ``<testcase>`` per subject."""
    root = ET.Element("testsuites", name=name)
    suites: dict[str, ET.Element] = {}
    cases: dict[tuple[str, str], ET.Element] = {}
    extra = [_key(f) for f in found if _key(f) not in subjects]
    for check, subject in [*subjects, *dict.fromkeys(extra)]:
        if check not in suites:
            suites[check] = ET.SubElement(root, "testsuite", name=check)
        cases[(check, subject)] = ET.SubElement(suites[check], "testcase", classname=check, name=subject)
    for key, case in cases.items():
        lines = [
            (f.severity, f"{f.object}: expected {f.expected}, found {f.found}")
            for f in found
            if _key(f) == key
        ]
        errors = [line for severity, line in lines if severity == "error"]
        if errors:  # one failure per case (JUnit's schema), every error in its text
            message = errors[0] if len(errors) == 1 else f"{len(errors)} differences, first: {errors[0]}"
            ET.SubElement(case, "failure", message=message, type="drift").text = "\n".join(errors)
        if notes := [(severity, line) for severity, line in lines if severity != "error"]:
            ET.SubElement(case, "system-out").text = "".join(f"{s}: {line}\n" for s, line in notes)
    for suite in suites.values():
        cases_here = suite.findall("testcase")
        suite.set("tests", str(len(cases_here)))
        suite.set("failures", str(sum(1 for c in cases_here if c.find("failure") is not None)))
        suite.set("errors", "0")
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
