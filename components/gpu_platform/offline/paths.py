"""Property paths in a plan's inputs, as the Pulumi engine writes them (``replaceOnChanges``, ``ignoreChanges``):
parse them, read the values they reach, and list the leaves that differ between two inputs."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

_TOKEN = re.compile(r'\.?([^.\[\]"]+)|\[(\d+|\*)\]|\["((?:[^"\\]|\\.)*)"\]')


def parse_path(path: str) -> list[str | int]:
    """``a.b[0]["k.x"][*]`` -> ``["a", "b", 0, "k.x", "*"]``; a lone ``*`` matches everything."""
    parts: list[str | int] = []
    pos = 0
    while pos < len(path):
        m = _TOKEN.match(path, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"bad property path {path!r}")
        name, index, quoted = m.groups()
        if name is not None:
            parts.append(name)
        elif index is not None:
            parts.append("*" if index == "*" else int(index))
        else:
            parts.append(quoted.replace('\\"', '"'))
        pos = m.end()
    return parts


class Named(str):
    """A list item matched by its ``name`` (a pool's flavor, a queue's resource), shown as ``[name=x]``."""


def format_path(parts: Sequence[str | int]) -> str:
    out = ""
    for p in parts:
        if isinstance(p, Named):
            out += f"[name={p}]"
        elif isinstance(p, int):
            out += f"[{p}]"
        elif re.fullmatch(r"[A-Za-z_$][\w$-]*", p):
            out += f".{p}" if out else p
        else:
            out += f'["{p}"]'
    return out


def values_at(obj: Any, parts: list[str | int]) -> list[Any]:
    """Every value the path reaches (wildcards expand); missing branches reach nothing."""
    if not parts:
        return [obj]
    head, rest = parts[0], parts[1:]
    if head == "*":
        children: list[Any] = (
            list(obj.values()) if isinstance(obj, dict) else obj if isinstance(obj, list) else []
        )
        return [v for c in children for v in values_at(c, rest)]
    if isinstance(obj, dict) and isinstance(head, str) and head in obj:
        return values_at(obj[head], rest)
    if isinstance(obj, list) and isinstance(head, int) and 0 <= head < len(obj):
        return values_at(obj[head], rest)
    return []


def without(obj: Any, parts: list[str | int]) -> Any:
    """A copy of ``obj`` with the path removed (ignoreChanges)."""
    if not parts:
        return None
    head, rest = parts[0], parts[1:]
    if isinstance(obj, dict):
        out = dict(obj)
        keys = list(out) if head == "*" else [head] if head in out else []
        for k in keys:
            if rest:
                out[k] = without(out[k], rest)
            else:
                del out[k]
        return out
    if isinstance(obj, list):
        out_list = list(obj)
        idx = (
            range(len(out_list))
            if head == "*"
            else [head]
            if isinstance(head, int) and head < len(out_list)
            else []
        )
        for i in idx:
            out_list[i] = without(out_list[i], rest) if rest else None
        return out_list
    return obj


MISSING: Any = object()
"""The value on the side of a change where the property is absent."""


def _by_name(items: list[Any]) -> dict[str, Any] | None:
    """A list of objects with unique ``name`` keys, by name (else ``None``: compared by position)."""
    if not items or not all(isinstance(i, dict) and isinstance(i.get("name"), str) for i in items):
        return None
    named = {i["name"]: i for i in items}
    return named if len(named) == len(items) else None


@dataclass(frozen=True)
class Leaf:
    """One value that differs: where (``Named`` parts for list items matched by name), before and after."""

    parts: tuple[str | int, ...]
    old: Any
    new: Any


def changed_leaves(old: Any, new: Any, prefix: tuple[str | int, ...] = ()) -> list[Leaf]:
    """Each leaf whose value differs (``MISSING`` where one side has none). List items with a ``name`` are matched
    by name (``flavors[name=h100]``), so paths name pools and queues and a reorder or an added item is not a
    change of every index."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[Leaf] = []
        for k in sorted(set(old) | set(new)):
            if old.get(k, MISSING) != new.get(k, MISSING):
                out += changed_leaves(old.get(k, MISSING), new.get(k, MISSING), (*prefix, k))
        return out
    if isinstance(old, list) and isinstance(new, list):
        a, b = _by_name(old), _by_name(new)
        if a is not None and b is not None:
            out = []
            for k in [*a, *(k for k in b if k not in a)]:
                if a.get(k, MISSING) != b.get(k, MISSING):
                    out += changed_leaves(a.get(k, MISSING), b.get(k, MISSING), (*prefix, Named(k)))
            return out
        if len(old) == len(new):
            out = []
            for i, (x, y) in enumerate(zip(old, new, strict=True)):
                if x != y:
                    out += changed_leaves(x, y, (*prefix, i))
            return out
    return [] if old == new else [Leaf(prefix, old, new)]


def changed_values(old: Any, new: Any) -> list[tuple[str, Any, Any]]:
    """``(path, old, new)`` for each leaf whose value differs (``changed_leaves``)."""
    return [
        (format_path(leaf.parts) or "(all inputs)", leaf.old, leaf.new) for leaf in changed_leaves(old, new)
    ]


def changed_paths(old: Any, new: Any) -> list[str]:
    """Leaf property paths whose value differs."""
    return [path for path, _, _ in changed_values(old, new)]
