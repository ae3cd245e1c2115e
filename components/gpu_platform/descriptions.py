"""The components' docstrings as the package schema's descriptions, for readers in other languages.

Docstrings are written for Python: reST literals (````max_nodes````), snake_case argument names, defaults
named by their Python constant (````DEFAULT_WAIT_TIMEOUT````, ````versions.GPU_OPERATOR.namespace````) and
Python literals (````None````). The schema's descriptions become doc comments of the TypeScript, Go, C# and
Java SDKs and the Pulumi Registry's pages, which render Markdown and spell every property camelCase, and
whose readers have no Python code to look a constant up in. :func:`markdown` rewrites one description:
Markdown code spans, the camelCase name of every argument or output it mentions, and values instead of
constant names.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from gpu_platform import versions
from gpu_platform.stack.schema import shown, with_values

_SPAN = re.compile(r"``(.+?)``", re.DOTALL)
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
_VERSIONS = re.compile(r"^versions\.([A-Z][A-Z0-9_]*)(?:\.([a-z_]+))?$")
_LITERALS = {"None": "null", "True": "true", "False": "false"}
"""Python literals as JSON, YAML and the other languages' SDKs spell them."""


def camel(name: str) -> str:
    """``max_nodes`` -> ``maxNodes``, as Pulumi's analyzer names schema properties."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _pinned(match: re.Match[str]) -> str | None:
    """The value a ``versions.<PIN>[.<field>]`` reference stands for: a chart pin's version by default."""
    value: Any = getattr(versions, match[1], None)
    if value is None:
        return None
    if isinstance(value, versions.ChartPin):
        value = getattr(value, match[2] or "version", None)
    elif match[2]:
        return None
    return None if value is None else shown(value)


def _span(code: str, fields: Collection[str]) -> str:
    if code in _LITERALS:
        return _LITERALS[code]
    pinned = _VERSIONS.match(code)
    if pinned and (value := _pinned(pinned)) is not None:
        return value
    return _SNAKE.sub(lambda m: camel(m[0]) if m[0] in fields else m[0], code)


def markdown(text: str, fields: Collection[str]) -> str:
    """``text`` (a docstring) as a schema description: Markdown code spans; every snake_case name in
    ``fields`` (the Python names of the package's arguments and outputs) camelCase; values for constants."""
    return _SPAN.sub(lambda m: f"`{_span(m[1], fields)}`", with_values(text))
