"""Guard rails as policy rules, run by the policy pack in ``policy/`` and by ``gpu-platform plan --policy``.

``rules`` holds the logic over a neutral ``PolicyResource`` view (no ``pulumi_policy`` import), so it
is importable and unit-testable anywhere; ``pack`` adapts it to ``pulumi_policy``; ``offline``
runs it on an offline plan.
"""

from gpu_platform.policy.rules import RULES, Rule, check_all, check_resource, check_stack
from gpu_platform.policy_model.model import ADVISORY, MANDATORY, PolicyResource, Violation

__all__ = [
    "ADVISORY",
    "MANDATORY",
    "RULES",
    "PolicyResource",
    "Rule",
    "Violation",
    "check_all",
    "check_resource",
    "check_stack",
]
