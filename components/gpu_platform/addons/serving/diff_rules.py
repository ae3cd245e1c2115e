"""What ``gpu-platform diff`` flags in serving (``gpu_platform.diff_rule``): nothing of its own. Its CRD release is
kept (``retainOnDelete``), so removing the section deletes no LLMInferenceService's CRD; a changed service rolls out
new vLLM pods before the old ones go (the controller's Deployment rolling update), and the weights are downloaded
again by each new pod, so a change costs start-up time, not data."""

from __future__ import annotations

from gpu_platform.diff_rule import DiffRule

DIFF_RULES: tuple[DiffRule, ...] = ()
