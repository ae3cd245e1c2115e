"""What ``gpu-platform diff`` flags in KServe (``gpu_platform.diff_rule``): nothing of its own. Its CRD release is
kept (``retainOnDelete``), so switching KServe off deletes no InferenceService, and a changed service rolls out
new predictor pods before the old ones go (a Deployment's rolling update)."""

from __future__ import annotations

from gpu_platform.diff_rule import DiffRule

DIFF_RULES: tuple[DiffRule, ...] = ()
