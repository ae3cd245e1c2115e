"""The multi-language package as the provider serves it: its schema, its property names, and values as the
engine sends them to the provider."""

from __future__ import annotations

from functools import cache
from typing import Any

from gpu_platform.provider import PACKAGE, schema


@cache
def served() -> dict[str, Any]:
    """The package schema ``pulumi package add`` gets, made once per session (read it, never change it)."""
    return schema()


def camel(name: str) -> str:
    """A Python argument name as the schema spells the property (``max_nodes`` -> ``maxNodes``)."""
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


def kubernetes_version() -> str:
    """The kubernetes package version the schema's Kubernetes types and provider reference."""
    [dep] = [d for d in served()["dependencies"] if d["name"] == "kubernetes"]
    return str(dep["version"])


def ours(resource: dict[str, Any]) -> bool:
    """A resource (or a recorded construction) of this package, by its type token."""
    return str(resource["type"]).startswith(f"{PACKAGE}:")


def on_the_wire(value: Any) -> Any:
    """As the engine sends values to a provider: numbers are floats."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, dict):
        return {k: on_the_wire(v) for k, v in value.items()}
    if isinstance(value, list):
        return [on_the_wire(v) for v in value]
    return value


KINDS: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}
"""A schema property's ``type`` -> the Python types its value may have."""


class SchemaChecker:
    """Walks a program's values against the served schema, collecting ``path: problem`` lines. ``check`` (one
    property's value) is each language's own: how it spells a reference to another value."""

    def __init__(self) -> None:
        self.types = served()["types"]
        self.problems: list[str] = []

    def check(self, value: Any, prop: dict[str, Any], path: str) -> None:
        raise NotImplementedError

    def check_object(self, value: Any, properties: dict[str, Any], required: list[str], path: str) -> None:
        if not isinstance(value, dict):
            self.problems.append(f"{path}: {value!r} is not an object")
            return
        for key in required:
            if key not in value:
                self.problems.append(f"{path}.{key}: required, missing")
        for key, item in value.items():
            if key not in properties:
                self.problems.append(f"{path}.{key}: no such property (has {sorted(properties)})")
            else:
                self.check(item, properties[key], f"{path}.{key}")
