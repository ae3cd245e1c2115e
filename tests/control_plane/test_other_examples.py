"""More examples' Kubernetes objects through the real API server (after ``test_existing_cluster.py``, on the
same control plane): every CRD and custom resource the plan holds, with the API server's validation, CEL rules
and defaulting and Kueue's webhooks. Each example applies as its own field manager, so one example's objects
never drop fields another set on a same-named object (Kueue's ``default`` LocalQueues, say)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.cluster_objects import apply_plan, render_plan
from tests.support.control_plane import control_plane_script

EXAMPLES = control_plane_script.REPO / "examples"


@pytest.mark.parametrize("example", ["kueue-distributed-training"])
def test_every_object_of_the_example_is_accepted(
    control_plane: Any, tmp_path_factory: pytest.TempPathFactory, example: str
) -> None:
    plan = render_plan(EXAMPLES / example, "example", tmp_path_factory.mktemp(example))
    if "kueue" in plan.releases:
        control_plane_script.start_kueue(control_plane, plan.releases["kueue"])
    assert [str(r) for r in apply_plan(control_plane, plan, manager=example)] == []
