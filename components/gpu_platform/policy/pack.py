"""Adapt the rules to ``pulumi_policy``: one ResourceValidationPolicy or StackValidationPolicy per rule.

Building the list does not start anything; only ``PolicyPack(...)``, in :func:`serve`, starts the
analyzer's gRPC server. A policy pack is a directory whose ``__main__.py`` calls :func:`serve` (write
one with ``gpu-platform policy-pack write DIR``), so the pack runs the rules of the installed library,
the same ones ``gpu-platform plan --policy`` runs. Properties are copied out of pulumi_policy's unknown-checking
proxies value by value, so a value still unknown during a preview becomes ``UNKNOWN`` for the rules
instead of aborting the whole policy.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from gpu_platform.policy.rules import RULES, Rule
from gpu_platform.policy_model.model import MANDATORY, UNKNOWN, PolicyResource
from gpu_platform.sdk import POLICY, MissingExtraError, require

PACK_NAME = "gpu-platform"
PACK_DESCRIPTION = "Guard rails for GPU node pools, the GPU Operator and GPU workloads on GKE, EKS and AKS."


def plain(value: Any) -> Any:
    """A pulumi_policy property value as plain data, unknowns replaced by ``UNKNOWN``."""
    from pulumi_policy.proxy import UnknownValueError

    def item(container: Any, key: Any) -> Any:
        try:
            return plain(container[key])
        except UnknownValueError:
            return UNKNOWN

    if isinstance(value, Mapping):
        return {str(k): item(value, k) for k in value}
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return [item(value, i) for i in range(len(value))]
    return value


def from_policy(resource_type: str, name: str, urn: str, props: Any, opts: Any) -> PolicyResource:
    ignore = list(getattr(opts, "ignore_changes", None) or [])
    return PolicyResource(
        resource_type, name, urn, plain(props) if props is not None else {}, {"ignoreChanges": ignore}
    )


def _level(rule: Rule) -> Any:
    from pulumi_policy import EnforcementLevel

    return EnforcementLevel.MANDATORY if rule.level == MANDATORY else EnforcementLevel.ADVISORY


def _config_schema(rule: Rule) -> Any:
    """The rule's configuration schema for the engine (``--policy-pack-config``), or ``None``."""
    from pulumi_policy import PolicyConfigSchema

    return PolicyConfigSchema(properties=dict(rule.config_schema)) if rule.config_schema is not None else None


def _check(rule: Rule, subject: Any, args: Any) -> Any:
    """The rule on ``subject``, with the pack's configuration of it when it takes one."""
    if rule.config_schema is None:
        return rule.check(subject)
    return rule.check(
        subject, {k: v for k, v in dict(args.get_config() or {}).items() if k in rule.config_schema}
    )


def _resource_policy(rule: Rule) -> Any:
    from pulumi_policy import ResourceValidationPolicy

    def validate(args: Any, report_violation: Any) -> None:
        res = from_policy(args.resource_type, args.name, args.urn, args.props, args.opts)
        for v in _check(rule, res, args):
            report_violation(v.message, None)

    return ResourceValidationPolicy(
        name=rule.name,
        description=rule.description,
        validate=validate,
        enforcement_level=_level(rule),
        config_schema=_config_schema(rule),
    )


def _stack_policy(rule: Rule) -> Any:
    from pulumi_policy import StackValidationPolicy

    def validate(args: Any, report_violation: Any) -> None:
        resources = [from_policy(r.resource_type, r.name, r.urn, r.props, r.opts) for r in args.resources]
        for v in _check(rule, resources, args):
            report_violation(v.message, v.urn)

    return StackValidationPolicy(
        name=rule.name,
        description=rule.description,
        validate=validate,
        enforcement_level=_level(rule),
        config_schema=_config_schema(rule),
    )


def build_policies() -> list[Any]:
    """The pack's policies, one per rule in ``RULES``, with each rule's enforcement level."""
    require(POLICY, "the gpu-platform policy pack")
    return [_resource_policy(r) if r.scope == "resource" else _stack_policy(r) for r in RULES.values()]


def serve() -> None:
    """Run the policy pack for the Pulumi engine: the whole body of a pack's ``__main__.py``. Without the
    ``[policy]`` extra it prints one line naming it and exits 2, as ``gpu-platform plan`` does for a cloud SDK."""
    try:
        require(POLICY, "the gpu-platform policy pack")
    except MissingExtraError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    from pulumi_policy import EnforcementLevel, PolicyPack

    PolicyPack(
        name=PACK_NAME,
        description=PACK_DESCRIPTION,
        enforcement_level=EnforcementLevel.MANDATORY,
        policies=build_policies(),
    )
