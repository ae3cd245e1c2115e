"""The settings of the stack file that may hold a ``secure:`` value: those the plan only passes on (credentials,
kubeconfigs, ARNs and resource IDs, SSH keys, database hosts, storage URIs, chart ``values``), never one that names,
labels or decides what the plan creates (``stack.secret_settings`` refuses a secret there)."""

from __future__ import annotations

from gpu_platform.errors import Key, Loc

SECRET_SETTINGS = frozenset(
    {
        ("cluster", "kubeconfig"),
        ("cluster", "existing_node_role_arn"),
        ("cluster", "existing_subnet_ids"),
        ("cluster", "existing_security_group_ids"),
        ("cluster", "project"),
        ("cluster", "resource_group"),
        ("gpu_pools", "reservation"),
        ("gpu_pools", "capacity", "reservation"),
        ("gpu_pools", "capacity", "project"),
        ("kserve", "services", "storage_uri"),
        ("kserve", "services", "args"),
        ("observability", "workspace"),
        ("slurm", "login", "root_ssh_authorized_keys"),
        ("slurm", "accounting", "database", "host"),
        ("slurm", "accounting", "database", "database"),
        ("slurm", "accounting", "database", "username"),
    }
)
"""Settings (their keys, list indexes left out) that may hold a ``secure:`` value; anything under ``values`` too."""


def fields_of(loc: Loc) -> tuple[str, ...]:
    """The setting names along ``loc`` (no list indexes, no mapping keys such as label names)."""
    return tuple(part for part in loc if isinstance(part, str) and not isinstance(part, Key))


def may_be_secret(loc: Loc) -> bool:
    """The setting at ``loc`` may hold a secret (it is only passed on)."""
    fields = fields_of(loc)
    return "values" in fields or any(fields[: len(s)] == s for s in SECRET_SETTINGS)
