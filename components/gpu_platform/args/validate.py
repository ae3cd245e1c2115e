"""Checking arguments and config against the argument types, with one message per problem.

The ``*Args`` TypedDicts are the only definition of every setting's name and type. Pydantic
validates them in strict mode, so a value of the wrong kind is refused, never coerced
(``maxNodes: true`` is not 1; an unquoted ``cudaVersion: 12.10`` is a number, not ``"12.10"``).
Component arguments may also hold ``pulumi.Input`` fields: those are passed through when they are
Outputs, and checked when they are plain.
"""

from __future__ import annotations

import difflib
import json
import math
import types
import typing
from collections.abc import Awaitable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

import pulumi
from pydantic import ConfigDict, TypeAdapter, ValidationError
from pydantic.alias_generators import to_camel

from gpu_platform.errors import Key, Problems

ARGS_CONFIG = ConfigDict(
    alias_generator=to_camel,
    validate_by_name=True,
    validate_by_alias=True,
    loc_by_alias=False,
    extra="forbid",
    use_attribute_docstrings=False,
    use_enum_values=True,
    allow_inf_nan=False,
)
"""Keys are snake_case in Python and camelCase in stack files; both spellings are accepted, unknown
keys are refused, enums come out as their string values, NaN and infinity are not numbers. Every ``*Args``
TypedDict carries this one object (``with_config``), so ``attribute_docstrings`` can switch descriptions on."""


@contextmanager
def attribute_docstrings() -> Iterator[None]:
    """The attribute docstrings as descriptions while a JSON schema is built. Pydantic reads them by parsing
    each class's source, which validating a config never needs and which costs a plan about 0.05 s."""
    ARGS_CONFIG["use_attribute_docstrings"] = True
    try:
        yield
    finally:
        ARGS_CONFIG["use_attribute_docstrings"] = False


@cache
def _adapter(tp: Any) -> TypeAdapter[Any]:
    return TypeAdapter(tp)


def _is_output_type(tp: Any) -> bool:
    """``Output[T]``, also as the forward reference ``pulumi.Input`` is written with."""
    if isinstance(tp, typing.ForwardRef):
        return tp.__forward_arg__.startswith("Output")
    origin = typing.get_origin(tp) or tp
    return isinstance(origin, type) and issubclass(origin, pulumi.Output)


def _strip_required(tp: Any) -> Any:
    while typing.get_origin(tp) in (typing.NotRequired, typing.Required):
        tp = typing.get_args(tp)[0]
    return tp


def hints(tp: Any) -> dict[str, Any]:
    """A TypedDict's fields and their declared types, read like Pulumi's analyzer does (no evaluation,
    since ``pulumi.Input`` holds a forward reference), ``NotRequired`` removed."""
    return {k: _strip_required(v) for k, v in getattr(tp, "__annotations__", {}).items()}


def is_input_type(tp: Any) -> bool:
    """``pulumi.Input[T]``: a Union that admits an Output."""
    return typing.get_origin(tp) in (typing.Union, types.UnionType) and any(
        _is_output_type(a) for a in typing.get_args(tp)
    )


def plain_part(tp: Any) -> Any:
    """``Input[T]`` -> ``T``; other types unchanged."""
    if not is_input_type(tp):
        return tp
    for arg in typing.get_args(tp):
        if not _is_output_type(arg) and typing.get_origin(arg) is not Awaitable:
            return arg
    return Any


def _mentions_input(tp: Any) -> bool:
    if is_input_type(tp):
        return True
    return any(_mentions_input(a) for a in typing.get_args(tp))


def is_unknown(value: Any) -> bool:
    """A value known only at deploy time (an Output or an awaitable)."""
    return isinstance(value, pulumi.Output) or hasattr(value, "__await__")


def _contains_unknown(value: Any) -> bool:
    if is_unknown(value):
        return True
    if isinstance(value, Mapping):
        return any(_contains_unknown(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_contains_unknown(v) for v in value)
    return False


def _is_typeddict(tp: Any) -> bool:
    return hasattr(tp, "__required_keys__")


def fields(tp: Any) -> list[str]:
    """The keys a TypedDict accepts, in declaration order."""
    return list(hints(tp)) if _is_typeddict(tp) else []


def _type_at(tp: Any, loc: Sequence[str | int]) -> Any:
    """The declared type at ``loc`` inside ``tp`` (for suggesting keys), or ``None``."""
    for part in loc:
        tp = plain_part(tp)
        origin = typing.get_origin(tp)
        if isinstance(part, int) and origin in (list, tuple, Sequence):
            tp = typing.get_args(tp)[0]
        elif _is_typeddict(tp) and isinstance(part, str):
            tp = hints(tp).get(part)
        elif origin in (dict, Mapping):
            tp = typing.get_args(tp)[1]
        else:
            return None
        if tp is None:
            return None
    return plain_part(tp)


def unknown_key_reason(key: str, valid: Sequence[str], camel: bool) -> str:
    """``unknown key 'sharring'; did you mean 'sharing'?`` (or the valid keys when nothing is close)."""
    spelled = [to_camel(v) if camel else v for v in valid]
    close = difflib.get_close_matches(key, spelled, n=1, cutoff=0.6)
    if close:
        return f"unknown key '{key}'; did you mean '{close[0]}'?"
    return f"unknown key '{key}'; valid: {', '.join(spelled)}"


def unknown_value_reason(value: str, what: str, valid: Sequence[str]) -> str:
    """``'p5.48xlarg' is not <what>; did you mean 'p5.48xlarge'?`` or the valid values when none is close."""
    close = difflib.get_close_matches(value, list(valid), n=1, cutoff=0.75)
    if close:
        return f"'{value}' is not {what}; did you mean '{close[0]}'?"
    return f"'{value}' is not {what}; valid: {', '.join(valid)}"


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, (int, float)):
        return f"{value!r} (a number)"
    if isinstance(value, str):
        return f"{value!r}"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return "null" if value is None else repr(value)


def _reason(error: Any, tp: Any, camel: bool) -> str:
    kind, value = error["type"], error.get("input")
    if kind == "extra_forbidden":
        key, valid = str(error["loc"][-1]), fields(_type_at(tp, error["loc"][:-1]))
        twin = {v: to_camel(v) for v in valid} | {to_camel(v): v for v in valid}
        if key in twin:  # both spellings of one setting: pydantic keeps one and calls the other unknown
            return f"'{key}' and '{twin[key]}' are the same setting given twice; keep one"
        return unknown_key_reason(key, valid, camel)
    if kind == "missing":
        return "required key is missing"
    if kind == "string_type":
        hint = "; quote it" if isinstance(value, (int, float)) and not isinstance(value, bool) else ""
        return f"{_describe(value)} is not text{hint}"
    if kind in ("int_type", "int_from_float", "int_parsing"):
        return f"{_describe(value)} is not a whole number"
    if kind in ("float_type", "float_parsing", "finite_number"):
        return f"{_describe(value)} is not a number"
    if kind in ("bool_type", "bool_parsing"):
        return f"{_describe(value)} is not true or false"
    if kind == "enum":
        expected = str(error.get("ctx", {}).get("expected", "")).replace("'", "").replace(" or ", ", ")
        return f"{_describe(value)} is not valid; valid: {expected}"
    if kind in ("list_type", "tuple_type"):
        return f"{_describe(value)} is not a list"
    if kind in ("dict_type", "typed_dict_type", "mapping_type", "model_type"):
        return f"{_describe(value)} is not a mapping"
    return str(error["msg"])


def _loc(parts: Sequence[Any]) -> tuple[str | int, ...]:
    return tuple(p if isinstance(p, int) else str(p) for p in parts)


def _non_finite(value: Any, loc: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Where NaN or infinity sit inside ``value`` (YAML ``.nan``/``.inf``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return [loc]
    if isinstance(value, Mapping):
        return [p for k, v in value.items() for p in _non_finite(v, (*loc, str(k)))]
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in _non_finite(v, (*loc, i))]
    return []


def _misspelt_required(errors: list[Any], tp: Any, camel: bool) -> set[tuple[Any, ...]]:
    """Locations of "required key is missing" that an unknown key next to it misspells: one mistake, one
    line (the unknown key, with its suggestion)."""
    out = set()
    for e in errors:
        if e["type"] != "extra_forbidden":
            continue
        parent, key = tuple(e["loc"][:-1]), str(e["loc"][-1])
        valid = fields(_type_at(tp, parent))
        spelled = {to_camel(v) if camel else v: v for v in valid}
        close = difflib.get_close_matches(key, list(spelled), n=1, cutoff=0.6)
        if close:
            out.add((*parent, spelled[close[0]]))
    return out


def parse(tp: Any, value: Any, problems: Problems, camel: bool = False) -> Any | None:
    """``value`` validated against ``tp`` (a TypedDict, or a list of them), or ``None`` after adding
    every problem found. Strict: no coercion between kinds."""
    if _contains_unknown(value):
        problems.add((), "must be a plain value known at plan time, not an Output")
        return None
    bad = _non_finite(value)
    for loc in bad:
        problems.add(loc, "NaN and infinity are not numbers")
    if bad:
        return None
    try:
        text = json.dumps(value)
    except TypeError as exc:
        problems.add((), str(exc))
        return None
    try:
        return _adapter(tp).validate_json(text, strict=True)
    except ValidationError as err:
        errors = err.errors()
        misspelt = _misspelt_required(errors, tp, camel)
        for e in errors:
            loc = _loc(e["loc"])
            if e["type"] == "missing" and tuple(e["loc"]) in misspelt:
                continue
            if e["type"] == "extra_forbidden" or not _keyed_by_dict(tp, loc):
                problems.add(loc, _reason(e, tp, camel))
            else:
                problems.add((*loc[:-1], Key(str(loc[-1]))), _reason(e, tp, camel))
        return None


def parse_partial(
    tp: Any, value: Any, problems: Problems, camel: bool = False
) -> tuple[Any | None, frozenset[str]]:
    """``parse``, and when the problems of ``value`` (a mapping read as TypedDict ``tp``) lie under some of its keys,
    the rest validated without those keys, so the checks of what is right still run: a wrong type in one setting
    hides no other problem of its section. Returns the value (``None`` when nothing valid remains, e.g. a required
    key is wrong) and the fields left out; the problems are those of the whole value, each once."""
    before = problems.count()
    parsed = parse(tp, value, problems, camel)
    if parsed is not None or not isinstance(value, Mapping) or not _is_typeddict(tp):
        return parsed, frozenset()
    depth = len(problems.prefix)
    bad = {str(loc[depth]) for loc, _ in problems.items[before:] if len(loc) > depth}
    fields = hints(tp)
    dropped = {k for k in value if str(k) in bad or _snake(str(k)) in bad}
    if not dropped or not bad <= {_snake(str(k)) for k in dropped} | {str(k) for k in dropped}:
        return None, frozenset()
    rest = parse(tp, {k: v for k, v in value.items() if k not in dropped}, Problems(), camel)
    left_out = frozenset(_snake(str(k)) for k in dropped if _snake(str(k)) in fields)
    return rest, left_out


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)


def _keyed_by_dict(tp: Any, loc: Sequence[str | int]) -> bool:
    parent = _type_at(tp, loc[:-1]) if loc else None
    return typing.get_origin(parent) in (dict, Mapping)


def check_arguments(tp: Any, args: Any, problems: Problems) -> dict[str, Any] | None:
    """A component's ``args`` checked against its ``*Args`` TypedDict: unknown keys (with the nearest
    valid one), missing required keys, Outputs where a plan-time value is needed, and the type of
    every plain value. Returns the arguments that passed (Outputs passed through), so later checks can
    still run on them, or ``None`` when a required argument is missing or invalid."""
    if not isinstance(args, Mapping):
        problems.add((), f"arguments must be a mapping of {tp.__name__} keys, got {type(args).__name__}")
        return None
    declared_types = hints(tp)
    for key in args:
        if key not in declared_types:
            problems.add((str(key),), unknown_key_reason(str(key), list(declared_types), camel=False))
    for key in sorted(tp.__required_keys__):
        if key not in args:
            problems.add((key,), "required argument is missing")
    out: dict[str, Any] = {}
    for key, value in args.items():
        if key not in declared_types:
            continue
        declared = declared_types[key]
        here = problems.at(key)
        if is_input_type(declared) and _contains_unknown(value):
            out[key] = value
        elif _is_typeddict(declared) and any(_mentions_input(t) for t in hints(declared).values()):
            nested = check_arguments(declared, value, here)  # its own Input fields pass Outputs through
            if nested is not None:
                out[key] = nested
        elif is_input_type(declared) or not _mentions_input(declared):
            before = problems.count()
            checked = _check_plain(plain_part(declared), value, here)
            if problems.count() == before:  # a refused value (``null`` for a list) never reaches later checks
                out[key] = checked
        elif isinstance(value, (list, tuple)):
            out[key] = list(value)
        else:
            here.add((), f"{_describe(value)} is not a list")
    return out if set(tp.__required_keys__) <= set(out) else None


def _check_plain(tp: Any, value: Any, problems: Problems) -> Any | None:
    if _mentions_input(tp):
        return value
    if is_unknown(value) or _contains_unknown(value):
        problems.add(
            (),
            "must be known at plan time (a plain value, not an Output): it decides which resources "
            "exist and what they contain",
        )
        return None
    if isinstance(value, float) and not math.isfinite(value):
        problems.add((), "NaN and infinity are not numbers")
        return None
    return parse(tp, value, problems)
