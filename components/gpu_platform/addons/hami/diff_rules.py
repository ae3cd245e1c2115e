"""What ``gpu-platform diff`` flags in HAMi (``gpu_platform.diff_rule``): nothing of its own. HAMi keeps no data;
a new release restarts its device plugin, which kubelet re-registers without stopping running containers (their
limits are set in each container's environment at start), and the GPU pools' own changes (a sharing mode moving
to or from ``isolated`` relabels the nodes) are the pools' rules."""

from __future__ import annotations

from gpu_platform.diff_rule import DiffRule

DIFF_RULES: tuple[DiffRule, ...] = ()
