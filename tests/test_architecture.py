"""The shape of the package: a cloud is one folder and one registry entry; moved modules keep their old paths."""

from __future__ import annotations

import ast
import functools
import importlib
import re
import sys
import tomllib
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import grimp
import pytest

from gpu_platform._moved import MOVED
from gpu_platform.addons import registry
from gpu_platform.args.common import Cloud
from gpu_platform.cloud_facts import CLOUD_EXTRAS, PROFILES
from gpu_platform.clouds.registry import WIRING, wiring_of
from tests.conftest import REPO
from tests.support.scripts import load_script

PACKAGE = REPO / "components" / "gpu_platform"
layout: Any = load_script(REPO / "scripts" / "layout_report.py", "layout_report", register=True)
CLOUD_BRANCH = re.compile(
    r"""(\bcloud\s*(==|!=|\bin\b|\bnot in\b)\s*[("'])|(==\s*["'](gke|eks|aks|existing)["'])|startswith\(["']BOTTLEROCKET"""
)


def _outside_cloud_folders() -> list[Path]:
    return [
        p for p in PACKAGE.rglob("*.py") if not {"clouds", "cloud_facts"} & set(p.relative_to(PACKAGE).parts)
    ]


def test_no_cloud_branches_outside_the_cloud_folders() -> None:
    found = [
        f"{path.relative_to(REPO)}:{n}: {line.strip()}"
        for path in _outside_cloud_folders()
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if CLOUD_BRANCH.search(line)
    ]
    assert not found, "ask the cloud's profile instead:\n" + "\n".join(found)


def test_the_branch_detector_sees_a_branch() -> None:
    assert CLOUD_BRANCH.search('    if pool.cloud == "gke":')
    assert CLOUD_BRANCH.search('    if cloud in ("gke", "eks"):')
    assert not CLOUD_BRANCH.search("    profile = profile_of(pool.cloud)")


def test_the_cloud_enum_is_the_registry() -> None:
    assert [c.value for c in Cloud] == list(PROFILES)


def test_every_cloud_sdk_extra_is_a_package_extra() -> None:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for name, extra in CLOUD_EXTRAS.items():
        assert any(dep.startswith(extra.distribution) for dep in extras[name]), name
    assert extras["all"] == [f"gpu-platform[{','.join(CLOUD_EXTRAS)}]"]


def test_every_cloud_has_its_stack_wiring() -> None:
    assert list(WIRING) == list(PROFILES)
    for name in PROFILES:
        assert callable(wiring_of(name).deploy), name


def test_every_cloud_folder_hands_the_registry_what_it_has() -> None:
    """A cloud's ``wiring.py`` is its one registry entry: its policy module and Docker hosts come with it, and a
    policy module declares its device-plugin rule (or ``None``)."""
    from gpu_platform.clouds.registry import ENTRIES, docker_host_creator, policy_reader

    assert list(ENTRIES) == list(PROFILES)
    for name in PROFILES:
        folder = PACKAGE / "clouds" / name
        assert (folder / "wiring.py").is_file(), name
        reader = policy_reader(name)
        assert (reader is not None) == (folder / "policy.py").is_file(), name
        if reader is not None:
            assert hasattr(reader, "DEVICE_PLUGIN_RULE"), name
        if (folder / "docker_host.py").is_file():
            assert callable(docker_host_creator(name)), name
        else:
            with pytest.raises(KeyError):
                docker_host_creator(name)


def test_the_cloud_literal_is_the_registry() -> None:
    from typing import get_args

    from gpu_platform.args.common import CloudName

    assert list(get_args(CloudName)) == list(PROFILES)


def test_profiles_import_no_cloud_sdk() -> None:
    """Profiles are read by every layer, so loading one never loads hundreds of MB of SDK."""
    for path in (PACKAGE / "cloud_facts").glob("*/profile.py"):
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in (node.names if isinstance(node, ast.Import) else [ast.alias(node.module or "")])
        }
        assert not imported & {"pulumi_gcp", "pulumi_aws", "pulumi_azure_native"}, path


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_module_paths_still_import_with_a_warning(old: str) -> None:
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])
    assert any(issubclass(w.category, DeprecationWarning) and MOVED[old] in str(w.message) for w in caught)


def test_gone_packages_only_hold_moved_modules() -> None:
    """A package that is gone has no folder left, and each of its old modules is in ``MOVED``."""
    from gpu_platform._moved import GONE_PACKAGES

    for package in GONE_PACKAGES:
        assert not (PACKAGE / package.split(".", 1)[1]).exists(), package
        assert any(old.startswith(package + ".") for old in MOVED), package
        sys.modules.pop(package, None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = importlib.import_module(package)
        assert not [n for n in vars(module) if not n.startswith("__")], package
        assert any("is gone" in str(w.message) for w in caught)


def test_upgrade_guide_lists_every_moved_module() -> None:
    text = (REPO / "docs" / "UPGRADE.md").read_text()
    missing = [old for old, new in MOVED.items() if f"`{old}`" not in text or f"`{new}`" not in text]
    assert not missing, missing


def test_every_moved_name_still_resolves_with_a_warning() -> None:
    import importlib
    import warnings

    from gpu_platform._moved import MOVED_NAMES

    for old, names in MOVED_NAMES.items():
        module = importlib.import_module(old)
        for name, new in names.items():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                value = getattr(module, name)
            new_module, _, new_name = new.partition(":")
            assert value is getattr(importlib.import_module(new_module), new_name or name), (old, name)
            where = f"{new_module}.{new_name}" if new_name else new_module
            assert [str(w.message) for w in caught if w.category is DeprecationWarning] == [
                f"{old}.{name} moved to {where}; the old path goes in gpu-platform 0.3.0"
            ]
            assert name not in vars(module), f"{old}.{name} is still defined there"


def test_no_module_import_cycles() -> None:
    """No module imports itself through others (``TYPE_CHECKING`` imports included)."""
    graph = grimp.build_graph("gpu_platform")
    edges = [(m, imported) for m in graph.modules for imported in graph.find_modules_directly_imported_by(m)]
    cycles = _cycles(edges)
    assert not cycles, cycles


# --- the import graph: packages, add-ons, string imports ---------------------------------------------------


@functools.cache
def _graph() -> grimp.ImportGraph:
    """The library's import graph; imports made only for type annotations never run, so they do not count."""
    return grimp.build_graph("gpu_platform", exclude_type_checking_imports=True, cache_dir=None)


def _edges(unit: Callable[[str], str | None]) -> dict[tuple[str, str], list[str]]:
    """Imports between the units ``unit`` maps modules to (``None``: not counted), with an example of each."""
    graph = _graph()
    found: dict[tuple[str, str], list[str]] = {}
    for importer in graph.modules:
        a = unit(importer)
        for imported in graph.find_modules_directly_imported_by(importer):
            b = unit(imported)
            if a is not None and b is not None and a != b:
                found.setdefault((a, b), []).append(f"{importer} -> {imported}")
    return found


def _package(module: str) -> str | None:
    """``gpu_platform.addons.kueue.plan`` -> ``gpu_platform.addons``; the package itself is its public face."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else None


def _addon(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 3 and parts[1] == "addons" else None


_cycles: Callable[[Iterable[tuple[str, str]]], list[list[str]]] = layout.strongly_connected
"""The strongly connected sets of more than one node: the layout report's (one cycle finder for both)."""


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]) == [["a", "b", "c"]]
    assert _cycles([("a", "b"), ("b", "c")]) == []


def test_the_package_level_import_graph_has_no_cycle() -> None:
    edges = _edges(_package)
    cycles = _cycles(edges)
    assert not cycles, [[e for (a, b), e in edges.items() if a in c and b in c] for c in cycles]


def test_addons_import_only_the_addons_they_declare_and_never_in_a_cycle() -> None:
    declared = {a.name: set(a.uses) for a in registry.ADDONS}
    edges = _edges(_addon)
    undeclared = {pair: e[:2] for pair, e in edges.items() if pair[1] not in declared[pair[0]]}
    assert not undeclared, "declare it in the add-on's registry entry (uses), or do not import it"
    assert not _cycles(edges)


def test_every_addon_folder_is_registered_and_each_name_once() -> None:
    folders = {p.name for p in (PACKAGE / "addons").iterdir() if (p / "__init__.py").exists()}
    names = [a.name for a in registry.ADDONS]
    assert sorted(names) == sorted(folders)
    assert len(set(names)) == len(names)


def test_the_registry_deploys_each_addon_after_those_it_waits_for_and_uses() -> None:
    order = [a.name for a in registry.ADDONS]
    for entry in registry.ADDONS:
        for before in entry.after:
            assert order.index(before) < order.index(entry.name), (entry.name, before)
        for used in entry.uses:
            assert used in order, (entry.name, used)
        assert (entry.enabled is None) == (entry.deploy is None), entry.name


def test_contributions_go_only_to_addons_the_contributor_uses() -> None:
    from gpu_platform.stack import load_platform

    spec = load_platform(
        {
            "cloud": "gke",
            "cluster": {"name": "c", "region": "us-central1", "project": "p"},
            "gpuPools": [{"name": "l4", "machineType": "g2-standard-8", "maxNodes": 2}],
            "observability": {"enabled": True},
        }
    )
    for entry in registry.ADDONS:
        if entry.contributes is not None and entry.enabled is not None and entry.enabled(spec):
            assert set(entry.contributes(spec)) <= set(entry.uses), entry.name


def test_no_module_of_the_library_is_imported_by_a_string() -> None:
    """Every edge is a plain import the contracts see. ``_moved`` is the old-path shim; ``sdk`` and
    ``offline.sdk_internals`` import Pulumi's SDKs, not the library."""
    allowed = {"_moved.py", "sdk.py", "offline/sdk_internals.py"}
    found = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if str(path.relative_to(PACKAGE)) not in allowed
        and re.search(r"\bimport_module\(|__import__\(", path.read_text().split('"""', 2)[-1])
    ]
    assert not found, found
