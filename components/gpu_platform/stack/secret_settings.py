"""Secrets in the stack file: where a ``secure:`` value may stand, and how it stays secret through the plan.

A secret is a value the plan only passes on: a credential, a kubeconfig, an ARN or a resource ID, an SSH key, a
database host, a storage URI, chart ``values``. Those settings (``SECRET_SETTINGS``) may be ``secure:``; the
offline plan sees a stand-in there (``formats.secret``) whose format no check judges. A setting that names or
labels something (a pool, a team, a namespace, a node label or taint) or decides what the plan creates cannot be a
secret: its value is public in the cluster and in the plan, so a ``secure:`` value there is refused naming the key.

Pulumi hands a program a whole top-level key as secret when any value inside it is (``stack.read``); the values
of the secret settings of those sections are then marked secret in every resource input they reach
(``mark_secret_inputs``), so neither the plan's files nor the state hold them in clear.
"""

from __future__ import annotations

import typing
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pulumi

from gpu_platform.args.secret_settings import fields_of, may_be_secret
from gpu_platform.args.validate import hints, plain_part
from gpu_platform.errors import Key, Loc, Problems
from gpu_platform.formats.secret import SECRET_STAND_IN, is_stand_in
from gpu_platform.stack.sections import StackConfigArgs

PUBLIC_MAPS = frozenset({"labels", "node_labels", "node_selector", "taints", "annotations"})
"""Settings whose entries become labels, taints or selectors every user of the cluster reads."""
MIN_SUBSTRING = 12
"""A secret this long is also found inside a longer input (an ARN in a policy document); shorter ones only whole."""


def _field(tp: Any, key: str) -> tuple[str, Any] | None:
    """The field of TypedDict ``tp`` that stack-file key ``key`` spells (camelCase or snake_case)."""
    fields = hints(tp)
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in key)
    return (snake, fields[snake]) if snake in fields else None


def _children(tp: Any, node: Any) -> Iterator[tuple[str | int, Any, Any, bool]]:
    """``(key, child type, child, keyed_by_map)`` of ``node`` read as ``tp`` (``None`` type: unknown below)."""
    tp = plain_part(tp) if tp is not None else None
    origin = typing.get_origin(tp)
    if isinstance(node, Mapping):
        for key, child in node.items():
            if tp is not None and hasattr(tp, "__required_keys__"):
                found = _field(tp, str(key))
                yield (found[0], found[1], child, False) if found else (str(key), None, child, False)
            else:
                value_tp = typing.get_args(tp)[1] if origin in (dict, Mapping) else None
                yield str(key), value_tp, child, True
    elif isinstance(node, list):
        item_tp = (
            typing.get_args(tp)[0] if origin in (list, tuple, Sequence) and typing.get_args(tp) else None
        )
        for i, child in enumerate(node):
            yield i, item_tp, child, False


def stand_in_leaves(raw: Mapping[str, Any]) -> Iterator[Loc]:
    """Where the stack file's config holds the offline stand-in of a ``secure:`` value (locations with snake_case
    fields, list indexes and map keys as ``Key``)."""

    def walk(tp: Any, node: Any, loc: Loc) -> Iterator[Loc]:
        if is_stand_in(node):
            yield loc
            return
        for key, child_tp, child, keyed in _children(tp, node):
            yield from walk(child_tp, child, (*loc, Key(str(key)) if keyed else key))

    yield from walk(StackConfigArgs, raw, ())


def secret_reason(loc: Loc) -> str:
    """Why the setting at ``loc`` cannot be a secret."""
    fields = fields_of(loc)
    if PUBLIC_MAPS & set(fields):
        return (
            "is a secret (secure:), but it becomes a Kubernetes label, taint or selector, which every user of the "
            "cluster reads: give it in plain text, or keep the secret out of labels"
        )
    return (
        "is a secret (secure:), but this setting names or decides what the plan creates, which is public in the "
        "cluster and in the plan: give it in plain text (secrets are credentials, kubeconfigs, ARNs and resource "
        "IDs, SSH keys, database hosts, storage URIs and chart values)"
    )


def secret_leaf_problems(raw: Any, p: Problems) -> list[Loc]:
    """Each ``secure:`` value (the offline stand-in) of ``raw`` where no secret may stand, refused at its key; the
    locations refused."""
    if not isinstance(raw, Mapping):
        return []
    refused = [loc for loc in stand_in_leaves(raw) if not may_be_secret(loc)]
    for loc in refused:
        p.add(loc, secret_reason(loc))
    return refused


def without_follow_ons(p: Problems, refused: Sequence[Loc]) -> None:
    """Only the refusals of misplaced secrets, when there are any: every other check read the offline stand-in as
    the value (no such pool, zone or mode), so what it says would be about the stand-in, not the stack file."""
    if refused:
        p.items[:] = [
            (loc, reason) for loc, reason in p.items if loc in refused and reason == secret_reason(loc)
        ]


def secret_values(raw: Mapping[str, Any], sections: frozenset[str]) -> frozenset[str]:
    """What to keep secret wherever it reaches a resource. An offline plan sees the stand-in exactly where the
    stack file has ``secure:`` values: only it. ``pulumi up`` sees the decrypted values and only which sections
    hold a secret: every value of a setting that may be secret in those sections (more than the stack file
    encrypted, never less)."""
    found: list[str] = []

    def walk(tp: Any, node: Any, loc: Loc) -> None:
        if isinstance(node, str):
            if node and loc and loc[0] in sections and may_be_secret(loc):
                found.append(node)
            return
        for key, child_tp, child, keyed in _children(tp, node):
            walk(child_tp, child, (*loc, Key(str(key)) if keyed else key))

    walk(StackConfigArgs, raw, ())
    if any(is_stand_in(value) for value in found):
        return frozenset({SECRET_STAND_IN})
    return frozenset(found)


def _holds(value: Any, secrets: frozenset[str]) -> bool:
    if isinstance(value, str):
        return value in secrets or any(len(s) >= MIN_SUBSTRING and s in value for s in secrets)
    if isinstance(value, Mapping):
        return any(_holds(v, secrets) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds(v, secrets) for v in value)
    return False


def mark_secret_inputs(secrets: frozenset[str]) -> None:
    """Every later resource input that holds one of ``secrets`` is registered as a secret Output (a stack
    transformation, so components' children are covered too)."""
    if not secrets:
        return

    def transform(args: pulumi.ResourceTransformationArgs) -> pulumi.ResourceTransformationResult | None:
        props = args.props
        marked = {k: pulumi.Output.secret(v) if _holds(v, secrets) else v for k, v in props.items()}
        if all(marked[k] is props[k] for k in props):
            return None
        return pulumi.ResourceTransformationResult(marked, args.opts)

    pulumi.runtime.register_stack_transformation(transform)
