"""Run the policy rules on an offline plan (``gpu-platform plan --policy``): no CLI, no cloud.

Each mock registration becomes a ``PolicyResource`` with the inputs the engine would receive and the
resource options it would apply (``ignoreChanges``), the same view the policy pack gets in a preview.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, cast

from gpu_platform.offline import Plan
from gpu_platform.offline.recorder import Registration
from gpu_platform.policy.rules import RULES, RuleConfig, check_all
from gpu_platform.policy_model.model import UNKNOWN, Level, PolicyResource, Violation


def _neutral(value: Any) -> Any:
    """Plain JSON-like data; anything else (an unresolved output) becomes ``UNKNOWN``."""
    if isinstance(value, dict):
        return {str(k): _neutral(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_neutral(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return UNKNOWN


def to_policy_resource(reg: Registration) -> PolicyResource:
    return PolicyResource(reg.type, reg.name, reg.urn, _neutral(reg.inputs), dict(reg.options))


LEVELS = ("mandatory", "advisory", "disabled")
"""``enforcementLevel`` values a policy config may give a rule (Pulumi's policy pack config file)."""


class PolicyConfigError(ValueError):
    """A policy config file that is not what ``pulumi preview --policy-pack-config`` takes."""


def policy_config(doc: Any) -> tuple[RuleConfig, dict[str, str]]:
    """A policy pack config (``{"<rule>": "<level>" | {"enforcementLevel": ..., <property>: ...}}``, the
    file ``pulumi preview --policy-pack-config`` reads): each rule's configuration and level overrides."""
    if not isinstance(doc, Mapping):
        raise PolicyConfigError("a policy config is a mapping of rule names to a level or a mapping")
    config: dict[str, Mapping[str, Any]] = {}
    levels: dict[str, str] = {}
    for name, entry in doc.items():
        if name not in RULES:
            raise PolicyConfigError(f"'{name}' is not a rule; valid: {', '.join(RULES)}")
        level = entry if isinstance(entry, str) else (entry or {}).get("enforcementLevel")
        if level is not None and level not in LEVELS:
            raise PolicyConfigError(
                f"{name}: '{level}' is not an enforcement level; valid: {', '.join(LEVELS)}"
            )
        if level is not None:
            levels[name] = level
        if isinstance(entry, Mapping):
            schema = RULES[name].config_schema or {}
            unknown = [k for k in entry if k != "enforcementLevel" and k not in schema]
            if unknown:
                valid = ", ".join(["enforcementLevel", *schema])
                raise PolicyConfigError(f"{name}: '{unknown[0]}' is not one of its settings; valid: {valid}")
            config[name] = {k: v for k, v in entry.items() if k != "enforcementLevel"}
    return config, levels


def check_plan(
    plan: Plan, config: RuleConfig | None = None, levels: Mapping[str, str] | None = None
) -> list[Violation]:
    """Every violation of every rule in the plan, mandatory ones first; ``config`` and ``levels`` (from
    ``policy_config``) configure rules and override their levels, as the policy pack's config does."""
    resources = [to_policy_resource(r) for r in plan.resources]
    levels = levels or {}
    violations = [
        replace(v, level=cast(Level, levels.get(v.policy, v.level)))
        for v in check_all(resources, config)
        if levels.get(v.policy) != "disabled"
    ]
    return sorted(violations, key=lambda v: (v.level != "mandatory", v.policy, v.urn))
