"""The benchmark's floor replays a plan exactly: the same resources, inputs, options, providers and
dependencies, made with the same SDK classes (so the library/floor ratio measures the library alone)."""

from typing import Any

import pulumi_kubernetes as k8s
import pytest

from gpu_platform.offline import run_plan, run_program
from tests.conftest import REPO
from tests.support.scripts import load_script

FLOOR = load_script(REPO / "benchmarks" / "floor.py", "benchmark_floor")
floor_program, recording_classes = FLOOR.floor_program, FLOOR.recording_classes


def _rows(stack: str) -> list[dict[str, Any]]:
    with recording_classes() as classes:
        plan = run_plan(REPO, stack)
    return [
        {
            "urn": r.urn,
            "type": r.type,
            "name": r.name,
            "parent": r.parent,
            "custom": r.custom,
            "inputs": r.inputs,
            "options": r.options,
            "provider": r.provider,
            "dependsOn": r.depends_on,
            **classes[(r.type, r.name)],
        }
        for r in plan.resources
    ]


def _essence(plan: Any) -> dict[str, Any]:
    return {
        r.urn: (r.type, r.custom, r.inputs, r.depends_on, r.options, r.provider.rpartition("::")[0])
        for r in plan.resources
    }


def test_the_floor_records_the_sdk_classes_the_library_used() -> None:
    rows = _rows("prod")
    classes = {r["type"]: r["class"] for r in rows if r["custom"]}
    assert classes["kubernetes:core/v1:Namespace"] == "pulumi_kubernetes.core.v1.Namespace:Namespace"
    assert classes["aws:eks/cluster:Cluster"] == "pulumi_aws.eks.cluster:Cluster"
    namespace = next(r for r in rows if r["type"] == "kubernetes:core/v1:Namespace")
    assert {"metadata", "spec", "status"} <= set(namespace["propsKeys"])


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_the_floor_replays_each_stack_exactly(stack: str) -> None:
    rows = _rows(stack)
    floor = run_program(lambda: floor_program(rows), project="gpu-platform", stack=stack)
    library = run_plan(REPO, stack)
    assert _essence(floor) == _essence(library)
    assert sum(len(r.depends_on) for r in floor.resources) > 0


def test_recording_classes_restores_the_sdk() -> None:
    import pulumi

    before = pulumi.Resource.__init__
    with recording_classes() as classes:
        run_program(lambda: k8s.core.v1.Namespace("a", metadata={"name": "a"}))
    recorded = classes[("kubernetes:core/v1:Namespace", "a")]
    assert recorded["propsType"] == "pulumi_kubernetes.core.v1.Namespace:NamespaceInitArgs"
    assert recorded["class"] == "pulumi_kubernetes.core.v1.Namespace:Namespace"
    assert pulumi.Resource.__init__ is before
