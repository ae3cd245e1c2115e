"""What ``gpu-platform diff`` flags in Docker hosts (``gpu_platform.diff_rule``): their VMs are the clouds' resources,
so each cloud's facts declare what replaces or restarts one (``cloud_facts/<cloud>/resource_types.py``: a new GPU
type restarts the VM, a new Compose file needs a new VM because cloud-init runs only on first boot)."""

from __future__ import annotations

from gpu_platform.diff_rule import DiffRule

DIFF_RULES: tuple[DiffRule, ...] = ()
