"""The neutral view the rules read: a resource as the engine sees it, and a violation.

Both the Pulumi policy pack (``pulumi_policy`` arguments) and the offline plan (mock registrations)
convert to ``PolicyResource``, so one rule implementation serves ``pulumi preview --policy-pack``
and ``gpu-platform plan --policy``. Values that are unknown during a preview become ``UNKNOWN``;
rules treat them as "cannot tell" and stay silent rather than guess.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

MANDATORY: Literal["mandatory"] = "mandatory"
ADVISORY: Literal["advisory"] = "advisory"
Level = Literal["mandatory", "advisory"]


class _Unknown:
    """A value the engine does not know yet (computed during ``pulumi preview``)."""

    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:
        return False


UNKNOWN = _Unknown()


def is_unknown(value: Any) -> bool:
    return value is UNKNOWN


@dataclass(frozen=True)
class PolicyResource:
    """One resource: type token, name, URN, camelCase properties and resource options."""

    type: str
    name: str
    urn: str
    props: Mapping[str, Any]
    options: Mapping[str, Any] = field(default_factory=dict)
    """Resource options in the plan's spelling; rules read ``ignoreChanges``."""

    @property
    def ignore_changes(self) -> list[str]:
        value = self.options.get("ignoreChanges") or []
        return [str(v) for v in value] if isinstance(value, (list, tuple)) else []


@dataclass(frozen=True)
class Violation:
    policy: str
    level: Level
    urn: str
    message: str


def get(obj: Any, *path: str | int, default: Any = None) -> Any:
    """``obj[p0][p1]...``; ``UNKNOWN`` if an unknown is met on the way, ``default`` if a key is missing."""
    cur = obj
    for part in path:
        if is_unknown(cur):
            return UNKNOWN
        if isinstance(part, int):
            if not isinstance(cur, Sequence) or isinstance(cur, str) or part >= len(cur):
                return default
            cur = cur[part]
        else:
            if not isinstance(cur, Mapping) or part not in cur:
                return default
            cur = cur[part]
    return cur


def as_list(value: Any) -> list[Any]:
    """A list property, or ``[]`` when missing or not a list (unknown lists count as empty)."""
    return list(value) if isinstance(value, (list, tuple)) else []


def as_map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


_PATH_PART = re.compile(r"""\[\s*(?:"([^"]*)"|'([^']*)'|([^\]]*))\s*\]|([^.\[\]]+)""")


def split_property_path(path: str) -> list[str]:
    """``scalingConfig["desiredSize"]`` / ``nodePools[0].nodeCount`` -> segments (indices as text)."""
    return [next(g for g in m.groups() if g is not None) for m in _PATH_PART.finditer(path)]


def path_is_ignored(ignore_changes: Sequence[str], target: str) -> bool:
    """True if an ``ignoreChanges`` entry covers ``target`` (itself, a parent, or ``*`` wildcards)."""
    want = split_property_path(target)
    for entry in ignore_changes:
        have = split_property_path(entry)
        if have and len(have) <= len(want) and all(h in ("*", w) for h, w in zip(have, want, strict=False)):
            return True
    return False
