"""The floor program: the same registrations as a plan, made with the same SDK classes and no library logic.

What a plan costs beyond Pulumi's own work is the library's; the floor is Pulumi's own work. So the floor
registers every custom resource of a recorded plan as an instance of the very SDK class the library used
(``pulumi_gcp.container.NodePool``, ``pulumi_kubernetes.core.v1.Namespace`` ...), with that class's property
set, the recorded inputs, options, provider and dependencies: the SDK imports, serializes and translates
exactly as for the library. What it skips is the library: config checks, plans, and the constructor code of
the SDK classes that turns keyword arguments into properties. Components are the library's own, so the
floor registers them as plain ``pulumi.ComponentResource``.

:func:`recording_classes` runs while the library plans and notes, for each registration, the Python class
and property names the SDK class passed to ``pulumi.Resource``; :func:`floor_program` replays them.
"""

from __future__ import annotations

import contextlib
import graphlib
import importlib
from collections.abc import Iterator
from typing import Any

import pulumi
from pulumi import _types


def _sdk_class(cls: type) -> type:
    """The class itself, or for a library subclass the SDK class it builds on (``pulumi.CustomResource``
    for the library's own custom resource classes)."""
    return next(c for c in cls.__mro__ if c.__module__.split(".")[0].startswith("pulumi"))


def _class_path(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _class(path: str) -> Any:
    """The class as programs reach it, through its package (``pulumi_gcp.serviceaccount.Account``): that is
    what loads the package's other modules, for the library and the floor alike."""
    module, _, qualname = path.partition(":")
    package = module.rpartition(".")[0] or module
    obj: Any = importlib.import_module(package)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


@contextlib.contextmanager
def recording_classes() -> Iterator[dict[tuple[str, str], dict[str, Any]]]:
    """While the library plans: (type, name) -> the resource's class, its props' input type and keys."""
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    original = pulumi.Resource.__init__

    def init(
        self: Any, t: str, name: str, custom: bool, props: Any = None, *args: Any, **kwargs: Any
    ) -> None:
        props_type = type(props) if props is not None and _types.is_input_type(type(props)) else None
        keys = list(_types.input_type_to_untranslated_dict(props) if props_type else (props or {}))
        opts = args[0] if args else kwargs.get("opts")
        seen[(t, name)] = {
            "class": _class_path(_sdk_class(type(self))),
            "propsType": _class_path(props_type) if props_type else None,
            "propsKeys": keys,
            "aliasSpecs": _alias_specs(getattr(opts, "aliases", None) or []),
        }
        original(self, t, name, custom, props, *args, **kwargs)

    pulumi.Resource.__init__ = init  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        pulumi.Resource.__init__ = original  # type: ignore[method-assign]


_ALIAS_FIELDS = ("name", "type_", "parent", "stack", "project")


def _alias_specs(aliases: list[Any]) -> list[Any] | None:
    """The aliases as the SDK class passed them (an SDK's version aliases are ``Alias(type_=...)``: the SDK
    turns each into a URN, which costs), or ``None`` when one names a resource or an Output."""
    specs: list[Any] = []
    for alias in aliases:
        if isinstance(alias, str):
            specs.append(alias)
            continue
        fields = {f: getattr(alias, f) for f in _ALIAS_FIELDS if getattr(alias, f) is not ...}
        if not isinstance(alias, pulumi.Alias) or any(
            v is not None and not isinstance(v, str) for v in fields.values()
        ):
            return None
        specs.append(fields)
    return specs


def _aliases(row: dict[str, Any]) -> list[Any] | None:
    specs = row.get("aliasSpecs")
    if specs is None:
        return [_alias(a, row["name"]) for a in row.get("options", {}).get("aliases", [])] or None
    return [s if isinstance(s, str) else pulumi.Alias(**s) for s in specs] or None


def _alias(text: str, own_name: str) -> pulumi.Alias | str:
    if text.startswith("urn:"):
        return text
    type_, _, name = text.partition("::")
    return pulumi.Alias(
        type_=None if type_ == "*" else type_, name=own_name if name.startswith("*") else name
    )


def _options(row: dict[str, Any], made: dict[str, pulumi.Resource]) -> pulumi.ResourceOptions:
    """The recorded options (SDK-added aliases included), provider and dependencies."""
    o = row.get("options", {})
    provider_urn = row.get("provider", "").rpartition("::")[0]
    provider = made.get(provider_urn)
    return pulumi.ResourceOptions(
        parent=made.get(row["parent"]),
        provider=provider if isinstance(provider, pulumi.ProviderResource) else None,
        depends_on=[made[u] for u in row.get("dependsOn", []) if u in made] or None,
        protect=o.get("protect") or None,
        retain_on_delete=o.get("retainOnDelete") or None,
        ignore_changes=o.get("ignoreChanges") or None,
        delete_before_replace=o.get("deleteBeforeReplace") or None,
        replace_on_changes=o.get("replaceOnChanges") or None,
        additional_secret_outputs=o.get("additionalSecretOutputs") or None,
        aliases=_aliases(row),
    )


def _props(row: dict[str, Any]) -> Any:
    """The recorded inputs under the SDK class's property names (its outputs as ``None``), in its input
    type when it used one, so serialization and output translation take the same paths."""
    inputs = row["inputs"]
    if not row.get("propsType"):
        return {k: inputs.get(k) for k in row.get("propsKeys", inputs)}
    props_type = _class(row["propsType"])
    names = _types.input_type_py_to_pulumi_names(props_type)
    props = props_type.__new__(props_type)
    for key in row["propsKeys"]:
        props.__dict__[key] = inputs.get(names.get(key, key))
    return props


def _in_order(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Parents, providers and dependencies before the resources that name them."""
    by_urn = {r["urn"]: r for r in rows}
    graph = graphlib.TopologicalSorter[str]()
    for r in rows:
        before = [r["parent"], r.get("provider", "").rpartition("::")[0], *r.get("dependsOn", [])]
        graph.add(r["urn"], *(u for u in before if u in by_urn))
    return [by_urn[u] for u in graph.static_order()]


def floor_program(rows: list[dict[str, Any]]) -> None:
    made: dict[str, pulumi.Resource] = {}
    for r in _in_order(rows):
        opts = _options(r, made)
        if not r["custom"]:
            made[r["urn"]] = pulumi.ComponentResource(r["type"], r["name"], None, opts)
            continue
        cls = _class(r["class"])
        res = cls.__new__(cls)
        if r["type"].startswith("pulumi:providers:"):
            pulumi.ProviderResource.__init__(res, r["type"].split(":")[2], r["name"], _props(r), opts)
        else:
            pulumi.CustomResource.__init__(res, r["type"], r["name"], _props(r), opts)
        made[r["urn"]] = res
