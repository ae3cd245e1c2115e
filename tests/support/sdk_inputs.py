"""Keyword arguments checked against a Pulumi SDK resource's own input types, recursively.

The generated SDK declares every input of a resource on ``_internal_init`` (``Optional[Input[T]]``, nested
inputs as ``Union[XArgs, XArgsDict]``). A key the SDK does not have, or a value of the wrong kind, is what
the engine would refuse (or silently drop) at ``pulumi up``; here it fails a test without a cloud.
"""

from __future__ import annotations

import collections.abc
import types
import typing
from typing import Any

import pulumi

_LOCALS = {"Output": pulumi.Output, "T": Any}
"""``pulumi.Input`` holds the forward reference ``"Output[T]"`` (its type variable read as ``Any``)."""


def _hints(obj: Any) -> dict[str, Any]:
    return typing.get_type_hints(obj, localns=_LOCALS)


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and hasattr(tp, "__required_keys__")


def _options(tp: Any) -> list[Any]:
    """The alternatives of a Union/Optional/Input, flattened; ``Awaitable`` and ``Output`` dropped."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return [o for a in typing.get_args(tp) for o in _options(a)]
    if origin is collections.abc.Awaitable or (
        isinstance(origin, type) and issubclass(origin, pulumi.Output)
    ):
        return []
    if isinstance(tp, type) and issubclass(tp, pulumi.Output):
        return []
    return [tp]


def _problems(value: Any, tp: Any, path: str) -> list[str]:
    if isinstance(value, pulumi.Output) or value is None:
        return []
    options = _options(tp)
    if any(o is Any for o in options):
        return []
    errors: list[str] = []
    for option in options:
        origin = typing.get_origin(option) or option
        args = typing.get_args(option)
        if _is_typeddict(option) and isinstance(value, dict):
            hints = _hints(option)
            found = [f"{path}.{k}: not an input of {option.__name__}" for k in value if k not in hints]
            for k, v in value.items():
                if k in hints:
                    found += _problems(v, hints[k], f"{path}.{k}")
            if not found:
                return []
            errors += found
        elif origin in (collections.abc.Sequence, list) and isinstance(value, (list, tuple)):
            found = [
                e for i, v in enumerate(value) for e in _problems(v, args[0] if args else Any, f"{path}[{i}]")
            ]
            if not found:
                return []
            errors += found
        elif origin in (collections.abc.Mapping, dict) and isinstance(value, dict):
            found = [
                e for k, v in value.items() for e in _problems(v, args[1] if args else Any, f"{path}.{k}")
            ]
            if not found:
                return []
            errors += found
        elif isinstance(origin, type) and not _is_typeddict(origin) and origin not in (list, dict):
            if origin is float and isinstance(value, int) and not isinstance(value, bool):
                return []
            if isinstance(value, origin) and not (origin is int and isinstance(value, bool)):
                return []
            if isinstance(value, str) and issubclass(origin, str):
                return []
    return errors or [f"{path}: {value!r} is none of {options}"]


def sdk_input_problems(resource: type, kwargs: dict[str, Any]) -> list[str]:
    """Every key of ``kwargs`` the resource does not take, and every value of a type it does not accept."""
    hints = _hints(resource._internal_init)  # type: ignore[attr-defined]
    out: list[str] = []
    for key, value in kwargs.items():
        if key not in hints or key in ("resource_name", "opts"):
            out.append(f"{key}: not an input of {resource.__name__}")
            continue
        out += _problems(value, hints[key], key)
    return out
