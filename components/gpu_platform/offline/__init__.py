"""Offline plans: run a Pulumi program under mocks and write what it would create."""

from gpu_platform.offline.output import (
    plan_document,
    render_node_setup,
    render_requires,
    render_tree,
    write_plan,
)
from gpu_platform.offline.runner import Plan, run_plan, run_program

__all__ = [
    "Plan",
    "plan_document",
    "render_node_setup",
    "render_requires",
    "render_tree",
    "run_plan",
    "run_program",
    "write_plan",
]
