"""The diff rules every add-on and cloud declares (``gpu_platform.diff_rule``), collected once, and what they find in
one change: the gate's only knowledge of what costs running work or data.

Add-ons declare theirs in their registry entry (``addons.registry.ADDONS``, from each folder's ``diff_rules.py``),
clouds in their facts (``CloudProfile.resource_types.diff_rules``). A rule's target is a type token, a Kubernetes
kind in any API version (``group/Kind``) or a Helm chart (``chart:<name>``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gpu_platform.addons.registry import ADDONS
from gpu_platform.cloud_facts import PROFILES
from gpu_platform.diff_rule import DiffRule, Effect
from gpu_platform.offline.paths import MISSING, Leaf, changed_leaves, format_path, parse_path, values_at
from gpu_platform.releases import chart_name

HELM_RELEASE = "kubernetes:helm.sh/v3:Release"

DECLARED: tuple[tuple[str, str, tuple[DiffRule, ...]], ...] = (
    *(("add-on", a.name, a.diff_rules) for a in ADDONS),
    *(("cloud", p.name, p.resource_types.diff_rules) for p in PROFILES.values()),
)
"""(``add-on`` or ``cloud``, its name, its rules), in registry order: what docs/day2.md lists."""


def _index() -> dict[str, tuple[DiffRule, ...]]:
    found: dict[str, dict[DiffRule, None]] = {}
    for _, _, rules in DECLARED:
        for rule in rules:
            found.setdefault(rule.target, {})[rule] = (
                None  # a rule two clouds share (Karpenter's) counts once
            )
    return {target: tuple(rules) for target, rules in found.items()}


RULES: dict[str, tuple[DiffRule, ...]] = _index()


def targets(res: dict[str, Any]) -> tuple[str, ...]:
    """What rules may name the resource by: its type, its Kubernetes kind (``group/Kind``), its chart."""
    type_ = res["type"]
    if type_ == HELM_RELEASE:
        chart = (res.get("inputs") or {}).get("chart")
        return (type_, f"chart:{chart_name(chart)}") if isinstance(chart, str) else (type_,)
    if type_.startswith("kubernetes:"):
        _, api, kind = type_.split(":", 2)
        return (type_, f"{api.split('/', 1)[0]}/{kind}")
    return (type_,)


def rules_for(res: dict[str, Any]) -> list[DiffRule]:
    return [rule for t in targets(res) for rule in RULES.get(t, ())]


@dataclass(frozen=True)
class Finding:
    """A rule set off by one change, with the fields that set it off (``(name, old, new)``; none when it went)."""

    rule: DiffRule
    fields: tuple[tuple[str, Any, Any], ...] = ()

    @property
    def effect(self) -> Effect:
        return self.rule.effect


def _read(fn: Callable[[Any], Any], inputs: Any) -> Any:
    """A rule's reader on inputs of any shape: a plan written by hand may hold a list where a rule reads a map,
    which reads as nothing rather than a traceback."""
    try:
        return fn(inputs)
    except (AttributeError, TypeError, ValueError, KeyError):
        return None


def _applies(rule: DiffRule, inputs: dict[str, Any]) -> bool:
    return rule.when is None or bool(_read(rule.when, inputs))


def gone_findings(res: dict[str, Any]) -> list[Finding]:
    """What removing (or replacing) the resource sets off."""
    inputs = res.get("inputs") or {}
    return [Finding(r) for r in rules_for(res) if r.gone and _applies(r, inputs)]


def _overlaps(leaf: Sequence[str | int], pattern: Sequence[str | int]) -> bool:
    """The leaf lies under the pattern, or holds it (a whole section added or removed)."""
    return all(p == "*" or str(p) == str(q) for q, p in zip(leaf, pattern, strict=False))


def _path_fields(rule: DiffRule, a: Any, b: Any, leaves: list[Leaf]) -> list[tuple[str, Any, Any]]:
    fields: list[tuple[str, Any, Any]] = []
    for path in rule.paths:
        pattern = parse_path(path)
        if values_at(a, pattern) == values_at(b, pattern):
            continue
        under = [leaf for leaf in leaves if _overlaps(leaf.parts, pattern)]
        for leaf in under:
            exact = len(leaf.parts) == len(pattern) and rule.field
            fields.append((rule.field if exact else format_path(leaf.parts), leaf.old, leaf.new))
        if not under:  # a wildcard's values moved between items: show the path's values as they are
            fields.append((rule.field or path, _one(values_at(a, pattern)), _one(values_at(b, pattern))))
    named = {name: (name, x, y) for name, x, y in reversed(fields)}  # two paths over one leaf: shown once
    return [named[name] for name in dict.fromkeys(name for name, _, _ in fields)]


def _one(values: list[Any]) -> Any:
    return MISSING if not values else values[0] if len(values) == 1 else values


def changed_findings(old: dict[str, Any], a: Any, b: Any) -> list[Finding]:
    """What an update of the resource sets off; ``a`` and ``b`` are its inputs before and after, ``ignoreChanges``
    left out, ``old`` the resource before (its type and inputs select the rules)."""
    out: list[Finding] = []
    leaves = changed_leaves(a, b)
    for rule in rules_for(old):
        if rule.gone or not _applies(rule, old.get("inputs") or {}):
            continue
        if rule.value is not None:
            before, after = _read(rule.value, a), _read(rule.value, b)
            if before != after:
                out.append(Finding(rule, ((rule.field, before, after),)))
            continue
        fields = _path_fields(rule, a, b, leaves)
        if fields:
            out.append(Finding(rule, tuple(fields)))
    return out
