"""What ``gpu-platform diff`` flags in the workload controllers (``gpu_platform.diff_rule``): nothing of their own.
JobSet, LeaderWorkerSet and KubeRay ship their CRDs in the chart's ``crds/`` (Helm never deletes them) and Trainer's
release is kept (``retainOnDelete``), so switching a controller off deletes no object; its running pods stay."""

from __future__ import annotations

from gpu_platform.diff_rule import DiffRule

DIFF_RULES: tuple[DiffRule, ...] = ()
