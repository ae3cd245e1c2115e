"""Measure the library's layout: how far an add-on spreads, cycles and upward imports, string imports, tests.

    PYTHONPATH=components python scripts/layout_report.py           the measures, as text
    PYTHONPATH=components python scripts/layout_report.py --json    the same, as JSON
    PYTHONPATH=components python scripts/layout_report.py -v        ... with the files and edges behind each count

The measures:

- **files per add-on**: the library files outside ``addons/<name>/`` that import the add-on's package, and
  those that mention it (its name as code or prose writes it: ``gpu_operator``, ``gpu-operator``, ``GPU
  Operator``, ``GpuOperatorArgs``);
- **package-level import cycles**: the strongly connected sets of more than one package in the graph of
  ``gpu_platform.<package>`` -> ``gpu_platform.<package>`` imports (grimp, which import-linter installs);
- **upward imports**: direct imports from a lower floor to a higher one, as every ``layers`` contract in
  ``pyproject.toml`` orders its floors (top first; ``(name)`` is an optional layer, ``|`` separates the modules
  of one floor);
- **string imports**: ``import_module(...)`` and ``__import__(...)`` calls in the library, those naming a
  ``gpu_platform`` module by a literal apart from the ones whose argument is computed (the old-path shim);
- **mirrored tests**: source modules (``__init__.py`` aside) that have a test module at the mirrored path
  (``gpu_platform/addons/kueue/plan.py`` -> ``tests/addons/kueue/test_plan.py``).

Imports made only for type annotations (``if TYPE_CHECKING:``) do not count, as in the import contracts.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import tomllib
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE_NAME = "gpu_platform"
PACKAGE = REPO / "components" / PACKAGE_NAME
TESTS = REPO / "tests"

# --- the import graph ----------------------------------------------------------------------------------


def module_edges() -> set[tuple[str, str]]:
    """Every direct import between two modules of the library (grimp; type-checking imports left out)."""
    import grimp

    if str(PACKAGE.parent) not in sys.path:
        sys.path.insert(0, str(PACKAGE.parent))
    graph = grimp.build_graph(PACKAGE_NAME, exclude_type_checking_imports=True, cache_dir=None)
    return {
        (importer, imported)
        for importer in graph.modules
        for imported in graph.find_modules_directly_imported_by(importer)
    }


def package_of(module: str) -> str | None:
    """``gpu_platform.addons.kueue.plan`` -> ``gpu_platform.addons``; the root package itself is none."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else None


def unit_edges(edges: Iterable[tuple[str, str]]) -> dict[tuple[str, str], list[str]]:
    """The module edges lifted to packages (``package_of``), each with the module imports behind it."""
    found: dict[tuple[str, str], list[str]] = {}
    for importer, imported in sorted(edges):
        a, b = package_of(importer), package_of(imported)
        if a is not None and b is not None and a != b:
            found.setdefault((a, b), []).append(f"{importer} -> {imported}")
    return found


def strongly_connected(edges: Iterable[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected sets of more than one node (Tarjan, iterative), each sorted, in sorted order."""
    succ: dict[str, list[str]] = {}
    for a, b in edges:
        succ.setdefault(a, []).append(b)
        succ.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(succ):
        if root in index:
            continue
        work = [(root, iter(sorted(succ[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(succ[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


# --- floors ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Floors:
    """One ``layers`` contract: its name, the containers it applies in (``""``: the root) and its floors."""

    name: str
    containers: tuple[str, ...]
    layers: tuple[tuple[str, ...], ...]
    """Top floor first; each floor's modules relative to a container (absolute without one)."""

    def floor(self, module: str) -> tuple[str, int] | None:
        """``(container, floor index)`` of a module, or ``None`` when no floor holds it."""
        for container in self.containers:
            for i, layer in enumerate(self.layers):
                for name in layer:
                    full = f"{container}.{name}" if container else name
                    if module == full or module.startswith(full + "."):
                        return container, i
        return None


def layer_contracts(pyproject: Path | None = None) -> list[Floors]:
    """Every ``layers`` contract of ``[tool.importlinter]``."""
    config = tomllib.loads((pyproject or REPO / "pyproject.toml").read_text())
    out = []
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract.get("type") != "layers":
            continue
        layers = tuple(
            tuple(m.strip().strip("()").strip() for m in re.split(r"[|:]", layer) if m.strip())
            for layer in contract["layers"]
        )
        out.append(Floors(contract["name"], tuple(contract.get("containers", [""])), layers))
    return out


def upward_imports(edges: Iterable[tuple[str, str]], contracts: Iterable[Floors]) -> dict[str, list[str]]:
    """Per contract, the direct imports from a floor to one above it in the same container."""
    found: dict[str, list[str]] = {}
    for contract in contracts:
        for importer, imported in sorted(edges):
            low, high = contract.floor(importer), contract.floor(imported)
            if low is not None and high is not None and low[0] == high[0] and high[1] < low[1]:
                found.setdefault(contract.name, []).append(f"{importer} -> {imported}")
    return found


# --- string imports -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class StringImport:
    where: str
    """``path:line`` inside the package."""
    argument: str
    """The call's first argument as written."""
    own: bool
    """A literal (or f-string) naming a ``gpu_platform`` module, or a relative one."""


def string_imports(package: Path = PACKAGE) -> list[StringImport]:
    """Every ``import_module(...)`` / ``__import__(...)`` call in the library's modules."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            called = getattr(func, "attr", None) or getattr(func, "id", "")
            if called not in ("import_module", "__import__"):
                continue
            arg = node.args[0]
            text = ast.unparse(arg)
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                own = arg.value.startswith((PACKAGE_NAME, "."))
            elif isinstance(arg, ast.JoinedStr) and arg.values:
                first = arg.values[0]
                own = isinstance(first, ast.Constant) and str(first.value).startswith((PACKAGE_NAME, "."))
            else:
                own = False
            found.append(StringImport(f"{path.relative_to(package)}:{node.lineno}", text, own))
    return found


# --- add-ons and tests -------------------------------------------------------------------------------------


def addon_names(package: Path = PACKAGE) -> list[str]:
    """The add-on folders (``addons/<name>/__init__.py``)."""
    return sorted(p.parent.name for p in (package / "addons").glob("*/__init__.py"))


def mention_pattern(name: str) -> re.Pattern[str]:
    """``gpu_operator`` as code and prose write it: ``gpu_operator``, ``gpu-operator``, ``GPU Operator``,
    ``GpuOperatorArgs``; not inside a longer lowercase word (``gpu_operators``)."""
    body = "[-_ ]?".join(re.escape(part) for part in name.split("_"))
    return re.compile(rf"(?<![A-Za-z0-9])(?i:{body})(?![a-z0-9])")


@dataclass
class AddonSpread:
    importers: list[str] = field(default_factory=list)
    """Library files outside the folder that import the add-on's package."""
    mentions: list[str] = field(default_factory=list)
    """Library files outside the folder that mention it."""


def addon_spread(edges: Iterable[tuple[str, str]], package: Path = PACKAGE) -> dict[str, AddonSpread]:
    """Per add-on folder, the library files outside it that import it and that mention it."""
    edges = list(edges)
    files = sorted(p for p in package.rglob("*.py"))
    texts = {p.relative_to(package).as_posix(): p.read_text() for p in files}
    out = {}
    for name in addon_names(package):
        folder = f"addons/{name}/"
        prefix = f"{PACKAGE_NAME}.addons.{name}"
        importers = sorted(
            {
                _module_file(importer, package)
                for importer, imported in edges
                if (imported == prefix or imported.startswith(prefix + "."))
                and not (importer == prefix or importer.startswith(prefix + "."))
            }
        )
        pattern = mention_pattern(name)
        mentions = [rel for rel, text in texts.items() if not rel.startswith(folder) and pattern.search(text)]
        out[name] = AddonSpread(importers, mentions)
    return out


def _module_file(module: str, package: Path) -> str:
    rel = module.split(".")[1:]
    path = package.joinpath(*rel)
    return (path / "__init__.py").relative_to(package).as_posix() if path.is_dir() else f"{'/'.join(rel)}.py"


def mirrored_tests(package: Path = PACKAGE, tests: Path = TESTS) -> tuple[list[str], list[str]]:
    """(source modules with a test module at the mirrored path, those without), paths inside the package."""
    with_test: list[str] = []
    without: list[str] = []
    for path in sorted(package.rglob("*.py")):
        if path.name == "__init__.py":
            continue
        rel = path.relative_to(package)
        mirror = tests.joinpath(*rel.parts[:-1], f"test_{rel.name}")
        (with_test if mirror.is_file() else without).append(rel.as_posix())
    return with_test, without


# --- the report --------------------------------------------------------------------------------------------


@dataclass
class Report:
    addons: dict[str, AddonSpread]
    package_cycles: list[list[str]]
    cycle_edges: list[str]
    upward: dict[str, list[str]]
    string_imports: list[StringImport]
    mirrored: list[str]
    unmirrored: list[str]

    @property
    def own_string_imports(self) -> list[StringImport]:
        return [s for s in self.string_imports if s.own]


def report() -> Report:
    edges = module_edges()
    packages = unit_edges(edges)
    cycles = strongly_connected(packages)
    in_cycle = [e for (a, b), es in packages.items() for c in cycles if a in c and b in c for e in es]
    mirrored, unmirrored = mirrored_tests()
    return Report(
        addon_spread(edges),
        cycles,
        sorted(in_cycle),
        upward_imports(edges, layer_contracts()),
        string_imports(),
        mirrored,
        unmirrored,
    )


def _lines(r: Report, verbose: bool) -> Iterable[str]:
    yield "Files per add-on (library files outside addons/<name>/: importing it / mentioning it)"
    for name, spread in sorted(r.addons.items(), key=lambda kv: (-len(kv[1].mentions), kv[0])):
        yield f"  {name:<16} {len(spread.importers):>3} / {len(spread.mentions):>3}"
        if verbose:
            yield from (f"      imports:  {f}" for f in spread.importers)
            yield from (f"      mentions: {f}" for f in spread.mentions)
    yield f"Package-level import cycles: {len(r.package_cycles)}"
    for cycle in r.package_cycles:
        yield f"  {len(cycle)} packages: {', '.join(cycle)}"
    if verbose:
        yield from (f"      {e}" for e in r.cycle_edges)
    total = sum(len(v) for v in r.upward.values())
    yield f"Upward imports between floors (layers contracts): {total}"
    for name, found in r.upward.items():
        yield f"  {len(found):>3}  {name}"
        yield from (f"      {e}" for e in (found if verbose else found[:5]))
    own = r.own_string_imports
    yield f"import_module of the library's own modules (by a literal): {len(own)}"
    yield from (f"  {s.where}: {s.argument}" for s in own)
    computed = [s for s in r.string_imports if not s.own]
    yield f"  other import_module / __import__ calls (argument computed): {len(computed)}"
    yield from (f"  {s.where}: {s.argument}" for s in computed)
    total_modules = len(r.mirrored) + len(r.unmirrored)
    yield f"Test modules at mirrored paths: {len(r.mirrored)} of {total_modules} source modules"
    if verbose:
        yield from (f"  without: {m}" for m in r.unmirrored)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", action="store_true", help="print the measures as JSON")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="list the files and edges behind each count"
    )
    args = parser.parse_args(argv)
    r = report()
    if args.json:
        out = asdict(r)
        out["own_string_imports"] = [asdict(s) for s in r.own_string_imports]
        print(json.dumps(out, indent=2))
    else:
        print("\n".join(_lines(r, args.verbose)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
