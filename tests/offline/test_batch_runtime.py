"""A plan runs with the collector and SDK settings of ``batch_runtime`` and leaves the interpreter as it was."""

import gc
from typing import Any

import pulumi
from pulumi.runtime import resource as sdk_resource

from gpu_platform.offline import run_program
from gpu_platform.offline.batch_runtime import YOUNG_GENERATION_THRESHOLD, batch_runtime


def test_the_sdk_still_has_the_stack_walk_a_plan_skips() -> None:
    """An SDK upgrade that renames it would silently bring the per-resource stack walk back."""
    assert callable(getattr(sdk_resource, "_get_stack_trace", None))


def test_settings_apply_while_a_plan_runs_and_are_restored_after() -> None:
    before_threshold, before_walk = gc.get_threshold(), sdk_resource._get_stack_trace
    seen: dict[str, Any] = {}

    def program() -> None:
        seen["threshold"] = gc.get_threshold()
        seen["frames"] = len(sdk_resource._get_stack_trace().frames)
        seen["frozen"] = gc.get_freeze_count()
        pulumi.CustomResource("test:index:Thing", "thing", {"size": 1})

    plan = run_program(program)
    assert plan.one("test:index:Thing").inputs == {"size": 1}
    assert seen["threshold"][0] == YOUNG_GENERATION_THRESHOLD
    assert seen["frames"] == 0
    assert seen["frozen"] > 0
    assert gc.get_threshold() == before_threshold
    assert sdk_resource._get_stack_trace is before_walk
    assert gc.get_freeze_count() == 0


def test_settings_are_restored_when_the_program_fails() -> None:
    before = gc.get_threshold()
    try:
        with batch_runtime():
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
