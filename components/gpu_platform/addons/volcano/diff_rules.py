"""What ``gpu-platform diff`` flags in Volcano's objects (``gpu_platform.diff_rule``): its admission webhook refuses
to delete a Queue that is not Closed, so removing a team's queue fails ``pulumi up`` until the queue is closed and its
jobs are done (docs/day2.md)."""

from __future__ import annotations

from gpu_platform.diff_rule import DiffRule, gone, kind

QUEUE = kind("scheduling.volcano.sh", "Queue")

DIFF_RULES: tuple[DiffRule, ...] = (
    gone(
        QUEUE,
        "strands queued work",
        "Volcano refuses to delete a Queue that is not Closed (its admission webhook), so `pulumi up` fails "
        "here: close the queue and let its jobs finish first (docs/day2.md)",
    ),
    gone(
        QUEUE,
        "blocks the update",
        "blocked by Volcano: its webhook refuses to delete a Queue that is not Closed; close it first "
        "(`vcctl queue operate --name <queue> --action close`, docs/day2.md)",
    ),
)
