"""The library's Helm values against a chart's own ``values.yaml``: every key set is one the chart reads.

Two walks (``tests/support/test_chart_values.py`` shows each failing): ``missing_keys`` for the key paths, an
empty upstream map being open to any key; ``missing_upstream`` for the leaves, with the kind of each value
(map, list or scalar) too, below the maps ``free_form`` names nothing checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from gpu_platform.plans.node_daemonsets import GPU_NODE_DAEMONSET_REQUESTS
from tests.conftest import upstream

GPU_OPERATOR_FREE_FORM: frozenset[tuple[str, ...]] = frozenset(
    {
        ("devicePlugin", "config", "data"),
        ("migManager", "config", "data"),
        ("daemonsets", "labels"),
        ("daemonsets", "annotations"),
        # ``resources: {}``: a Kubernetes ResourceRequirements, checked against the ClusterPolicy schema.
        *((section, "resources") for section in GPU_NODE_DAEMONSET_REQUESTS),
    }
)
"""Maps the GPU Operator chart documents as free-form (``{}``, user keys below); nothing below is checked."""


def chart_values(*parts: str) -> dict[str, Any]:
    """A vendored YAML file under tests/upstream (a chart's ``values.yaml``), parsed."""
    values: dict[str, Any] = yaml.safe_load(upstream(*parts).read_text())
    return values


def missing_keys(ours: Mapping[str, Any], theirs: Any, prefix: str = "") -> list[str]:
    """Key paths set in ``ours`` that the chart's values.yaml does not declare.

    An empty mapping upstream (``nodeSelector: {}``) is an open map: any key below it is allowed.
    """
    out = []
    for key, value in ours.items():
        path = f"{prefix}{key}"
        if not isinstance(theirs, Mapping) or key not in theirs:
            out.append(path)
        elif isinstance(value, Mapping) and theirs[key]:
            out += missing_keys(value, theirs[key], f"{path}.")
    return out


def leaf_paths(values: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """Every leaf the library sets; lists (tolerations, env) are leaves."""
    out: list[tuple[tuple[str, ...], Any]] = []
    for key, value in values.items():
        if isinstance(value, Mapping) and value:
            out += leaf_paths(value, (*prefix, key))
        else:
            out.append(((*prefix, key), value))
    return out


def missing_upstream(
    values: Mapping[str, Any],
    chart: Mapping[str, Any],
    free_form: frozenset[tuple[str, ...]] = GPU_OPERATOR_FREE_FORM,
) -> list[str]:
    """Key paths absent from the chart's values.yaml, or whose kind (map/list/scalar) differs."""
    problems = []
    for path, value in leaf_paths(values):
        node: Any = chart
        for i, key in enumerate(path):
            if path[:i] in free_form:
                node = None
                break
            if not isinstance(node, Mapping) or key not in node:
                problems.append(".".join(path))
                node = None
                break
            node = node[key]
        if node is None or path in free_form:
            continue
        if isinstance(value, list) != isinstance(node, list) or isinstance(value, Mapping) != isinstance(
            node, Mapping
        ):
            problems.append(f"{'.'.join(path)} (upstream {type(node).__name__}, ours {type(value).__name__})")
    return problems
