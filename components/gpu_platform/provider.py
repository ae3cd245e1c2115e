"""The components as a multi-language Pulumi package: ``pulumi package add <this repository>``.

``PulumiPlugin.yaml`` (``runtime: python``) at the repository root makes the repository a
source-based component package; its ``__main__.py`` calls :func:`main`, which hosts every public
component (``gpu_platform._COMPONENTS``) with Pulumi's Python component provider
(``pulumi.provider.experimental.component_provider_host``). Pulumi infers the package schema from
the components' ``args`` TypedDicts and output annotations, and generates SDKs for TypeScript, Go,
C#, Java and YAML from it. ``providers/<gke|eks|aks|kubernetes>/`` host the same components with one
cloud's SDK installed (or none); the schema is the same from each.

The schema is written for readers of other languages: Kubernetes objects (:data:`KUBERNETES_TYPES`) are
the kubernetes package's types, descriptions are Markdown with camelCase names and values
(:mod:`gpu_platform.descriptions`), and it carries the package's metadata (:func:`metadata`).

Two adjustments to Pulumi's classes, installed only while the provider is built, for SDK releases
:data:`TESTED_PULUMI` (``pyproject.toml`` allows only those; :func:`sdk_problems` checks, when the provider
starts, that the SDK is still built the way they assume):

- The analyzer reads an attribute's docstring only from the class being analyzed, so fields a
  TypedDict inherits (``GkeGpuNodePoolArgs`` from ``GpuNodePoolArgs``) and outputs a component
  inherits (``GkeGpuNodePool.labels``) would lose their descriptions (attribute docstrings came with
  https://github.com/pulumi/pulumi/issues/18438 and are parsed from each class's own body).
  :class:`DocumentedAnalyzer` looks the docstring up on the class that declares the attribute.
- Numbers cross the wire as floats (pulumi/pulumi#13830, https://github.com/pulumi/pulumi/issues/13830).
  ``ComponentProvider.map_input_properties`` converts integer properties with ``int()`` and then
  overwrites the result with the original float, so ``maxNodes: 3`` from YAML would reach the component
  as ``3.0``, which the strict argument validation refuses. :class:`GpuPlatformProvider` makes whole
  floats of integer properties ``int``.

``tests/test_provider.py`` checks both; ``tests/test_provider_sdk.py`` that the installed SDK is a tested
one and that an untested or rebuilt one is refused with the reason.
"""

import inspect
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pulumi_kubernetes as k8s
from pulumi import ComponentResource
from pulumi.provider.experimental import analyzer as _analyzer
from pulumi.provider.experimental import component as _component
from pulumi.provider.provider import ConstructResult
from pulumi.provider.server import ComponentInitError
from pulumi_kubernetes.core.v1 import TaintArgsDict, TolerationArgsDict
from pulumi_kubernetes.helm.v3.outputs import ReleaseStatus

from gpu_platform.descriptions import markdown
from gpu_platform.errors import ArgumentsError

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


KUBERNETES_TYPES: dict[Any, str] = {
    TolerationArgsDict: "kubernetes:core/v1:Toleration",
    TaintArgsDict: "kubernetes:core/v1:Taint",
    ReleaseStatus: "kubernetes:helm.sh/v3:ReleaseStatus",
}
"""Python types of arguments and outputs that are Kubernetes objects, and the kubernetes package's type for
each. The schema references that package's type (``/kubernetes/v<pinned>/schema.json#/types/<token>``), so
the SDKs of other languages type them as its classes (``core.v1.Toleration`` in TypeScript), with its
documentation, instead of as maps of strings. Pulumi's analyzer references other packages' resources and
enums, not their object types."""


def kubernetes_dependency() -> Any:
    """The kubernetes package the schema depends on: the installed SDK's plugin name and version."""
    return _analyzer.get_dependency_for_type(k8s.Provider)


def kubernetes_type_ref(token: str) -> str:
    """The schema ``$ref`` of the kubernetes package's type ``token`` (``/`` escaped, as in every package ref)."""
    dependency = kubernetes_dependency()
    return f"/{dependency.name}/v{dependency.version}/schema.json#/types/{token.replace('/', '%2F')}"


def _kubernetes_token(arg: Any) -> str | None:
    try:
        return KUBERNETES_TYPES.get(arg)
    except TypeError:  # an unhashable annotation is no Kubernetes type
        return None


class DocumentedAnalyzer(_analyzer.Analyzer):
    """Pulumi's analyzer, reading each attribute's docstring from the class that declares it, with the
    docstrings' indentation removed (indented lines would render as code blocks in the SDKs' docs), and
    Kubernetes objects (:data:`KUBERNETES_TYPES`) typed as the kubernetes package's types."""

    def get_docstring(self, typ: type, name: str) -> str | None:
        return _clean(super().get_docstring(declaring_class(typ, name), name))

    def analyze_property(
        self,
        arg: type,
        typ: type,
        name: str,
        *,
        can_be_plain: bool,
        is_component_output: bool,
        optional: bool | None = None,
    ) -> Any:
        token = _kubernetes_token(arg)
        if token is None:
            return super().analyze_property(
                arg,
                typ,
                name,
                can_be_plain=can_be_plain,
                is_component_output=is_component_output,
                optional=optional,
            )
        self.dependencies.add(kubernetes_dependency())
        return _analyzer.PropertyDefinition(
            ref=kubernetes_type_ref(token),
            optional=bool(optional),
            plain=True if can_be_plain else None,
            description=self.get_docstring(typ, name),
        )

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
            doc = _with_markdown(json.loads(self.schema), self.python_names())
            self.schema = json.dumps({**doc, **metadata()})

    def python_names(self) -> set[str]:
        """The Python name of every argument, output and nested field (what docstrings mention)."""
        names: set[str] = set()
        for component in self._component_defs.values():
            names.update(component.inputs_mapping.values(), component.outputs_mapping.values())
        for definition in self._type_defs.values():
            names.update(definition.properties_mapping.values())
        return names

    def construct(self, name: str, resource_type: str, inputs: Any, options: Any = None) -> ConstructResult:
        """A component's refused arguments reach the engine as invalid properties under their schema names, one
        line each; Pulumi's provider would report them as a failure inside the component, with a traceback."""
        try:
            return super().construct(name, resource_type, inputs, options)
        except ComponentInitError as exc:
            if isinstance(exc.inner, ArgumentsError):
                raise exc.inner.in_schema_names() from None
            raise

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


def _with_markdown(node: Any, names: set[str]) -> Any:
    """``node`` (the schema) with every description a Markdown text for other languages' readers."""
    if isinstance(node, dict):
        return {
            k: markdown(v, names) if k == "description" and isinstance(v, str) else _with_markdown(v, names)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_with_markdown(v, names) for v in node]
    return node


TESTED_PULUMI = ("3.237.0", "3.273")
"""pulumi SDK releases the adjustments are tested on: from the floor CI installs (``ci/constraints-floor.txt``)
up to, not including, the second. ``pyproject.toml`` requires exactly this range; a newer SDK is allowed only
after ``tests/test_provider.py`` and ``tests/test_provider_sdk.py`` pass on it."""
UPSTREAM_ISSUES = (
    "https://github.com/pulumi/pulumi/issues/13830",
    "https://github.com/pulumi/pulumi/issues/18438",
)
"""What the adjustments work around: numbers as floats on the wire; attribute docstrings read per class."""


class UntestedPulumiSdkError(RuntimeError):
    """The installed pulumi SDK is not built the way the provider's adjustments assume."""


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".")[:3] if part.isdigit())


def sdk_problems(installed: str | None = None) -> list[str]:
    """Why the provider's adjustments may not hold on the installed pulumi SDK (empty: they hold). The
    version must be in :data:`TESTED_PULUMI`, and the SDK must build the provider as they assume:
    ``component_provider_host`` makes a ``ComponentProvider`` and that an ``Analyzer`` by their
    module-global names (which :func:`_documented_host` swaps), and ``map_inputs`` goes through
    ``map_input_properties`` (which :class:`GpuPlatformProvider` overrides)."""
    from importlib.metadata import version as dist_version

    from pulumi.provider.experimental import host

    installed = installed or dist_version("pulumi")
    low, high = TESTED_PULUMI
    found = []
    if not _release(low) <= _release(installed) < _release(high):
        found.append(f"pulumi {installed} is not a tested SDK (>={low},<{high})")
    if getattr(host, "ComponentProvider", None) is not _component.ComponentProvider:
        found.append("pulumi.provider.experimental.host no longer uses component.ComponentProvider")
    if "ComponentProvider" not in host.component_provider_host.__code__.co_names:
        found.append("component_provider_host no longer builds ComponentProvider by its global name")
    if "Analyzer" not in _component.ComponentProvider.__init__.__code__.co_names:
        found.append("ComponentProvider no longer builds Analyzer by its global name")
    if "map_input_properties" not in _component.ComponentProvider.map_inputs.__code__.co_names:
        found.append("ComponentProvider.map_inputs no longer calls map_input_properties")
    return found


def check_sdk() -> None:
    """Refuse to serve the package on an SDK the adjustments may not hold on, rather than serve a schema
    without inherited descriptions or components that refuse integer inputs."""
    found = sdk_problems()
    if found:
        raise UntestedPulumiSdkError(
            "gpu-platform's component provider adjusts pulumi's component provider internals "
            f"({', '.join(UPSTREAM_ISSUES)}): " + "; ".join(found)
        )


@contextmanager
def _documented_host() -> Iterator[None]:
    """While the provider is built: ``ComponentProvider`` analyzes with :class:`DocumentedAnalyzer`, and
    ``component_provider_host`` serves a :class:`GpuPlatformProvider`."""
    from pulumi.provider.experimental import host

    check_sdk()
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
    """The package version the schema carries: the library's, as semver (Pulumi refuses ``0.2.1.dev0``)."""
    from gpu_platform import __version__
    from gpu_platform.semver import semver

    return semver(__version__)


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
