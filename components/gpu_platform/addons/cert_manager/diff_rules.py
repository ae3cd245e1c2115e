"""What ``gpu-platform diff`` flags in cert-manager (``gpu_platform.diff_rule``): nothing of its own. Its CRDs are
kept when the release goes (``crds.keep``), so certificates and their Secrets survive; the diff's stateful release
check already reads ``crds.keep``."""

from __future__ import annotations

from gpu_platform.diff_rule import DiffRule

DIFF_RULES: tuple[DiffRule, ...] = ()
