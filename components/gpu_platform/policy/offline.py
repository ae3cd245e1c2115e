"""Run the policy rules on an offline plan (``gpu-platform plan --policy``): no CLI, no cloud.

Each mock registration becomes a ``PolicyResource`` with the inputs the engine would receive and the
resource options it would apply (``ignoreChanges``), the same view the policy pack gets in a preview.
"""

from __future__ import annotations

from typing import Any

from gpu_platform.offline import Plan
from gpu_platform.offline.recorder import Registration
from gpu_platform.policy.rules import check_all
from gpu_platform.policy_model.model import UNKNOWN, PolicyResource, Violation


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


def check_plan(plan: Plan) -> list[Violation]:
    """Every violation of every rule in the plan, mandatory ones first."""
    resources = [to_policy_resource(r) for r in plan.resources]
    violations = check_all(resources)
    return sorted(violations, key=lambda v: (v.level != "mandatory", v.policy, v.urn))
