"""A stack file's YAML read the way the Pulumi CLI reads it, with the input bounded first.

The CLI parses ``Pulumi.<stack>.yaml`` with Go's ``gopkg.in/yaml.v3``, whose plain scalars follow YAML
1.2's core schema plus a few rules of its own; PyYAML's loaders (YAML 1.1) resolve several of them
differently. Only the syntax is taken from PyYAML (its libyaml parser: yaml.v3 is a Go translation of
libyaml, so the structure is the same); each scalar is resolved here by yaml.v3's ``resolve()``:

============================  ===================  =====================
plain scalar                  yaml.v3 / Pulumi     PyYAML (YAML 1.1)
============================  ===================  =====================
``1:30``                      ``"1:30"``           ``90``
``y`` ``yes`` ``on`` ``no``   strings              booleans (not ``y``)
``True`` ``FALSE``            booleans             booleans
``017`` / ``0o17``            ``15`` / ``15``      ``15`` / ``"0o17"``
``08``                        ``8`` (a float)      ``"08"``
``1e3``                       ``1000``             ``"1e3"``
``1_000``                     ``1000``             ``1000``
``~`` ``null`` (empty)        null                 null
``2024-01-02``                ``"2024-01-02T00:00:00Z"`` (Go's JSON)  a date
============================  ===================  =====================

A float that is a whole number reaches the program as an integer: the CLI hands an object to the program
as Go's JSON, which writes ``1000.0`` as ``1000``.

Before any value is built the input is bounded, so no file can exhaust memory, time or the stack:
:data:`MAX_BYTES` of text, :data:`MAX_DEPTH` levels of nesting, :data:`MAX_VALUES` values once aliases
are expanded (a "billion laughs" file is a few lines that expand to billions). Each refusal is one line
naming the file and the limit.
"""

from __future__ import annotations

import datetime
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml import events

from gpu_platform.offline.errors import PlanInputError

MAX_BYTES = 4 * 1024 * 1024
"""A stack file is a few kilobytes; 1,000 pools with 1,000 queues is about 180 KiB. 4 MiB leaves room for
generated files and is read in well under a second (libyaml's parser)."""
MAX_DEPTH = 64
"""Nesting levels of mappings and lists (Helm values are rarely 15 deep)."""
MAX_VALUES = 100_000
"""Values in the document once every alias is expanded (what the JSON handed to the program holds); 1,000
pools with 1,000 queues hold about 15,000. Reaching the limit takes about half a second."""

_NULLS = {"", "~", "null", "Null", "NULL"}
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}
_SPECIAL_FLOATS = {
    ".nan": math.nan,
    ".NaN": math.nan,
    ".NAN": math.nan,
    **{
        f"{sign}{inf}": (-math.inf if sign == "-" else math.inf)
        for sign in ("", "+", "-")
        for inf in (".inf", ".Inf", ".INF")
    },
}
# strconv.ParseInt(s, 0, 64): sign, then 0x / 0o / 0b, a leading 0 (octal) or decimal digits.
_INT = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_TIMESTAMP = re.compile(
    r"(?P<y>[0-9]{4})-(?P<mo>[0-9]{1,2})-(?P<d>[0-9]{1,2})"
    r"(?:(?:[Tt]|[ \t]+)(?P<h>[0-9]{1,2}):(?P<mi>[0-9]{1,2}):(?P<s>[0-9]{1,2})(?P<f>\.[0-9]*)?"
    r"[ \t]*(?P<tz>Z|[-+][0-9]{1,2}(?::?[0-9]{2})?)?)?"
)
_NUMERIC_START = set("0123456789+-.")
_INT64 = 2**63


def resolve_plain(text: str) -> Any:
    """A plain (unquoted, untagged) scalar as yaml.v3 resolves it, in the JSON the CLI hands the program."""
    if text in _NULLS:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if text in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[text]
    if text[0] not in _NUMERIC_START:
        return text
    stamp = _timestamp(text)
    if stamp is not None:
        return stamp
    plain = text.replace("_", "")
    if _INT.fullmatch(plain):
        value = _parse_int(plain)
        if -_INT64 <= value < 2 * _INT64:  # int64, then uint64
            return value
    if _FLOAT.fullmatch(plain):
        number = float(plain)
        return int(number) if number.is_integer() and abs(number) < 1e21 else number
    return text


def _parse_int(plain: str) -> int:
    sign = -1 if plain[0] == "-" else 1
    digits = plain.lstrip("+-")
    if len(digits) > 1 and digits[0] == "0" and digits[1] in "0123456789":
        return sign * int(digits, 8)  # 017: YAML 1.1 octal, which yaml.v3 still reads
    return sign * int(digits, 0)


def _timestamp(text: str) -> str | None:
    """yaml.v3 reads ``2024-01-02`` (and a date with a time) as a time; Go's JSON writes it RFC 3339."""
    match = _TIMESTAMP.fullmatch(text)
    if not match:
        return None
    try:
        parts = [int(match[k] or 0) for k in ("y", "mo", "d", "h", "mi", "s")]
        stamp = datetime.datetime(*parts, tzinfo=datetime.UTC)  # type: ignore[misc,arg-type]
    except ValueError:
        return None
    fraction = (match["f"] or "").rstrip("0").rstrip(".")
    tz = match["tz"]
    zone = "Z" if not tz or tz == "Z" else _zone(tz)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S") + fraction + zone


def _zone(tz: str) -> str:
    digits = tz[1:].replace(":", "")
    hours, minutes = (digits[:-2], digits[-2:]) if len(digits) > 2 else (digits, "00")
    offset = f"{tz[0]}{int(hours):02d}:{minutes}"
    return "Z" if offset in ("+00:00", "-00:00") else offset


_CORE = "tag:yaml.org,2002:"


def _scalar(event: events.ScalarEvent) -> Any:
    """A scalar's value: quoted and block scalars and ``!!str`` are text, plain ones resolved; a plain
    scalar with a tag of its own (``!Ref x``) is text, as yaml.v3 leaves a tag it does not know."""
    tag = event.tag if event.tag not in (None, "!") else None
    plain = not event.style
    if tag == f"{_CORE}str" or (tag is None and not plain):
        return event.value
    if tag is not None and not tag.startswith(_CORE):
        return event.value
    return resolve_plain(event.value)


def _is_plain(event: events.ScalarEvent) -> bool:
    return not event.style and event.tag in (None, "!")


@dataclass
class _Frame:
    value: dict[str, Any] | list[Any]
    anchor: str | None
    mark: Any
    size: int = 1
    key: str | None = None
    key_is_merge: bool = False
    seen: dict[str, int] = field(default_factory=dict)


class _Builder:
    """Builds the document from parser events, one at a time, counting as it goes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.stack: list[_Frame] = []
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.total = 0
        self.root: Any = None
        self.texts: dict[str, str] = {}

    def refuse(self, mark: Any, what: str) -> PlanInputError:
        where = f"{self.path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(self.path)
        return PlanInputError(f"{where}: refused: {what}")

    def count(self, size: int, mark: Any) -> None:
        self.total += size
        if self.total > MAX_VALUES:
            raise self.refuse(
                mark,
                f"more than {MAX_VALUES} values once its aliases are expanded (the limit is {MAX_VALUES})",
            )

    def start(self, event: events.CollectionStartEvent, value: dict[str, Any] | list[Any]) -> None:
        if len(self.stack) >= MAX_DEPTH:
            raise self.refuse(
                event.start_mark, f"nested more than {MAX_DEPTH} levels deep (the limit is {MAX_DEPTH})"
            )
        self.count(1, event.start_mark)
        self.stack.append(_Frame(value, event.anchor, event.start_mark))

    def end(self) -> None:
        frame = self.stack.pop()
        if frame.anchor is not None:
            self.anchors[frame.anchor] = (frame.value, frame.size)
        self.add(frame.value, frame.size, frame.mark, is_scalar_text=None)

    def alias(self, event: events.AliasEvent) -> None:
        if event.anchor not in self.anchors:
            raise self.refuse(event.start_mark, f"alias *{event.anchor} names no anchor")
        value, size = self.anchors[event.anchor]
        self.count(size, event.start_mark)
        parent = self.stack[-1] if self.stack else None
        if parent and isinstance(parent.value, dict) and parent.key is None and isinstance(value, str):
            self.key(
                parent, events.ScalarEvent(None, None, (True, False), value, event.start_mark, style="'")
            )
            return
        self.add(value, size, event.start_mark, is_scalar_text=None)

    def scalar(self, event: events.ScalarEvent) -> None:
        self.count(1, event.start_mark)
        parent = self.stack[-1] if self.stack else None
        if isinstance(parent, _Frame) and isinstance(parent.value, dict) and parent.key is None:
            self.key(parent, event)
            return
        value = _scalar(event)
        if event.anchor is not None:
            self.anchors[event.anchor] = (value, 1)
        self.add(value, 1, event.start_mark, is_scalar_text=event.value)

    def key(self, frame: _Frame, event: events.ScalarEvent) -> None:
        key = event.value
        frame.key_is_merge = key == "<<" and _is_plain(event)
        mark: Any = event.start_mark  # a parser's events always carry their position
        if not frame.key_is_merge:
            first = frame.seen.get(key)
            if first is not None:
                raise PlanInputError(
                    f"{self.path}:{mark.line + 1}:{mark.column + 1}: "
                    f"duplicate key {key!r} (first defined on line {first})"
                )
            frame.seen[key] = mark.line + 1
        frame.key = key

    def add(self, value: Any, size: int, mark: Any, is_scalar_text: str | None) -> None:
        if not self.stack:
            self.root = value
            return
        parent = self.stack[-1]
        parent.size += size
        if isinstance(parent.value, list):
            parent.value.append(value)
            return
        if parent.key is None:
            raise self.refuse(mark, "a mapping key must be written as text, a number or a boolean")
        if parent.key_is_merge:
            self.merge(parent, value, mark)
        else:
            parent.value[parent.key] = value
            if is_scalar_text is not None and len(self.stack) == 2 and self.stack[0].key == "config":
                self.texts[parent.key] = is_scalar_text
        parent.key = None

    def merge(self, frame: _Frame, value: Any, mark: Any) -> None:
        sources = value if isinstance(value, list) else [value]
        if not all(isinstance(s, dict) for s in sources):
            raise self.refuse(mark, "a merge key (<<) takes a mapping or a list of mappings")
        assert isinstance(frame.value, dict)
        for source in sources:
            for k, v in source.items():
                frame.value.setdefault(k, v)


@dataclass(frozen=True)
class StackYaml:
    """A parsed stack file: the document, and the source text of each scalar directly under ``config:``."""

    doc: Any
    texts: dict[str, str]


def parse(text: str, path: Path) -> StackYaml:
    """``text`` (the contents of ``path``) as the Pulumi CLI reads it; a bad or oversized input refused
    in one line."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise PlanInputError(
            f"{path}: refused: larger than {MAX_BYTES // 1024 // 1024} MiB (the limit for a stack file)"
        )
    _flow_depth_bound(text, path)
    builder = _Builder(path)
    documents = 0
    try:
        for event in yaml.parse(text, Loader=_LOADER):
            documents += _feed(builder, event)
            if documents > 1:
                raise builder.refuse(event.start_mark, "more than one YAML document (--- ...)")
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        what = " ".join(p for p in (exc.context, exc.problem) if p)
        raise PlanInputError(f"{where}: not valid YAML: {what}") from None
    except yaml.YAMLError as exc:
        raise PlanInputError(f"{path}: not valid YAML: {' '.join(str(exc).split())}") from None
    return StackYaml(builder.root, builder.texts)


def _feed(builder: _Builder, event: events.Event) -> int:
    """Hand one event to the builder; 1 when it starts a document."""
    if isinstance(event, events.ScalarEvent):
        builder.scalar(event)
    elif isinstance(event, events.MappingStartEvent):
        builder.start(event, {})
    elif isinstance(event, events.SequenceStartEvent):
        builder.start(event, [])
    elif isinstance(event, (events.MappingEndEvent, events.SequenceEndEvent)):
        builder.end()
    elif isinstance(event, events.AliasEvent):
        builder.alias(event)
    elif isinstance(event, events.DocumentStartEvent):
        return 1
    return 0


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's parser when PyYAML has it (its wheels do): the C library Go's yaml.v3 is a translation of,
so the events are the ones the CLI's parser sees; PyYAML's own parser otherwise."""

_BRACKET = re.compile(r"[\[\]{}]")


def _flow_depth_bound(text: str, path: Path) -> None:
    """Refuse brackets nested past :data:`MAX_DEPTH` before parsing: the parser looks ahead over a whole
    flow collection, so ``[[[[...`` a few thousand deep would take it minutes to refuse. Brackets in
    quoted text count too: only a text with more than 64 of them open at once is refused for them."""
    depth = 0
    for match in _BRACKET.finditer(text):
        depth = depth + 1 if match[0] in "[{" else max(depth - 1, 0)
        if depth > MAX_DEPTH:
            line = text.count("\n", 0, match.start()) + 1
            raise PlanInputError(
                f"{path}:{line}: refused: nested more than {MAX_DEPTH} levels deep (the limit is {MAX_DEPTH})"
            )
