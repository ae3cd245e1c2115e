"""The components as a multi-language Pulumi package: ``pulumi package add <this repository>``.

``PulumiPlugin.yaml`` (``runtime: python``) at the repository root makes the repository a
source-based component package; its ``__main__.py`` calls :func:`main`, which hosts every public
component (``gpu_platform._COMPONENTS``) with Pulumi's Python component provider
(``pulumi.provider.experimental.component_provider_host``). Pulumi infers the package schema from
the components' ``args`` TypedDicts and output annotations, and generates SDKs for TypeScript, Go,
C#, Java and YAML from it.

Two adjustments to Pulumi's classes (pulumi 3.272), installed only while the provider is built:

- The analyzer reads an attribute's docstring only from the class being analyzed, so fields a
  TypedDict inherits (``GkeGpuNodePoolArgs`` from ``GpuNodePoolArgs``) and outputs a component
  inherits (``GkeGpuNodePool.labels``) would lose their descriptions. :class:`DocumentedAnalyzer`
  looks the docstring up on the class that declares the attribute.
- Numbers cross the wire as floats. ``ComponentProvider.map_input_properties`` converts integer
  properties with ``int()`` and then overwrites the result with the original float, so
  ``maxNodes: 3`` from YAML would reach the component as ``3.0``, which the strict argument
  validation refuses. :class:`GpuPlatformProvider` makes whole floats of integer properties ``int``.

``tests/test_provider_schema.py`` checks both, and that the SDK still builds the provider the way
these adjustments assume.
"""

import inspect
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pulumi import ComponentResource
from pulumi.provider.experimental import analyzer as _analyzer
from pulumi.provider.experimental import component as _component

PACKAGE = "gpu-platform"
"""The package name: type tokens are ``gpu-platform:index:<Component>``."""


def components() -> list[type[ComponentResource]]:
    """Every public component, in ``gpu_platform._COMPONENTS`` order."""
    import gpu_platform

    return [getattr(gpu_platform, name) for name in gpu_platform._COMPONENTS]


def declaring_class(typ: type, name: str) -> type:
    """The class whose body declares attribute ``name``: through TypedDict bases (a TypedDict's
    ``__annotations__`` already holds its bases' keys and its MRO has lost them) and through the MRO."""
    bases = getattr(typ, "__orig_bases__", None)
    if isinstance(getattr(typ, "__required_keys__", None), frozenset) and bases:
        for base in bases:
            if name in getattr(base, "__annotations__", {}):
                return declaring_class(base, name)
        return typ
    for klass in getattr(typ, "__mro__", (typ,)):
        if name in inspect.get_annotations(klass):
            return klass
    return typ


def _clean(text: str | None) -> str | None:
    return inspect.cleandoc(text) if text else text


class DocumentedAnalyzer(_analyzer.Analyzer):
    """Pulumi's analyzer, reading each attribute's docstring from the class that declares it, with the
    docstrings' indentation removed (indented lines would render as code blocks in the SDKs' docs)."""

    def get_docstring(self, typ: type, name: str) -> str | None:
        return _clean(super().get_docstring(declaring_class(typ, name), name))

    def analyze(self, components: list[type[ComponentResource]]) -> Any:
        result = super().analyze(components)
        definitions: list[Any] = [
            *result["component_definitions"].values(),
            *result["type_definitions"].values(),
        ]
        for definition in definitions:
            definition.description = _clean(definition.description)
        return result


def _whole(value: Any, prop: Any) -> Any:
    """``value`` with whole floats made ``int`` where ``prop`` (a PropertyDefinition) is an integer,
    or a list or map of integers."""
    integer = _analyzer.PropertyType.INTEGER
    if prop.type == integer and isinstance(value, float) and value.is_integer():
        return int(value)
    if prop.items is not None and prop.items.type == integer and isinstance(value, list):
        return [_whole(v, prop.items) for v in value]
    extra = prop.additional_properties
    if extra is not None and extra.type == integer and isinstance(value, dict):
        return {k: _whole(v, extra) for k, v in value.items()}
    return value


KEYWORDS = (
    "pulumi",
    "kubernetes",
    "gpu",
    "nvidia",
    "kueue",
    "kserve",
    "category/infrastructure",
    "kind/component",
)
"""Registry keywords; ``kind/component`` and ``category/...`` are the Pulumi Registry's conventions."""
PUBLISHER = "gpu-platform contributors"


def metadata() -> dict[str, Any]:
    """Schema metadata from the installed distribution (one source: ``pyproject.toml``): description,
    license, repository and homepage (its project URLs, when it has them), keywords and publisher."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import metadata as dist_metadata

    out: dict[str, Any] = {"displayName": PACKAGE, "keywords": list(KEYWORDS), "publisher": PUBLISHER}
    try:
        dist: Any = dist_metadata(PACKAGE)  # an email.message.Message at run time
    except PackageNotFoundError:  # a source tree that was never installed
        return out
    if dist.get("Summary"):
        out["description"] = dist["Summary"]
    if dist.get("License-Expression") or dist.get("License"):
        out["license"] = dist.get("License-Expression") or dist.get("License")
    urls = dict(u.split(", ", 1) for u in dist.get_all("Project-URL") or [] if ", " in u)
    for key, names in (("repository", ("Repository", "Source")), ("homepage", ("Homepage", "Documentation"))):
        found = next((urls[n] for n in names if n in urls), None)
        if found:
            out[key] = found
    return out


class GpuPlatformProvider(_component.ComponentProvider):
    """Pulumi's component provider, with integer inputs delivered as ``int`` and the package's metadata in
    its schema (Pulumi's generator writes only name and version)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.schema is not None:
            self.schema = json.dumps({**json.loads(self.schema), **metadata()})

    def map_input_properties(
        self,
        inputs: Any,
        properties: dict[str, Any],
        mapping: dict[str, str],
        component_name: str,
        property_path: str,
    ) -> Any:
        mapped = dict(
            super().map_input_properties(inputs, properties, mapping, component_name, property_path)
        )
        for schema_name, prop in properties.items():
            py_name = mapping[schema_name]
            if py_name in mapped:
                mapped[py_name] = _whole(mapped[py_name], prop)
        return mapped


@contextmanager
def _documented_host() -> Iterator[None]:
    """While the provider is built: ``ComponentProvider`` analyzes with :class:`DocumentedAnalyzer`, and
    ``component_provider_host`` serves a :class:`GpuPlatformProvider`."""
    from pulumi.provider.experimental import host

    swaps = [(_component, "Analyzer", DocumentedAnalyzer), (host, "ComponentProvider", GpuPlatformProvider)]
    saved = [(module, name, getattr(module, name)) for module, name, _ in swaps]
    for module, name, value in swaps:
        setattr(module, name, value)
    try:
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)


def version() -> str:
    from gpu_platform import __version__

    return __version__


def component_provider() -> GpuPlatformProvider:
    """The provider the host serves, built in-process (nothing started): it analyzes the components and
    generates the schema exactly as ``component_provider_host`` does."""
    with _documented_host():
        return GpuPlatformProvider(components(), PACKAGE, version=version())


def schema() -> dict[str, Any]:
    """The package schema as the provider serves it to ``pulumi package add``."""
    text = component_provider().schema
    assert text is not None
    return json.loads(text)


def main() -> None:
    """Host the components for the Pulumi engine (``__main__.py`` of the plugin)."""
    from pulumi.provider.experimental import component_provider_host

    with _documented_host():
        component_provider_host(components(), PACKAGE, version=version())
