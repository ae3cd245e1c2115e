"""The shape of the package: a cloud is one folder and one registry entry; moved modules keep their old paths."""

from __future__ import annotations

import ast
import importlib
import re
import sys
import tomllib
import warnings
from pathlib import Path

import pytest

from gpu_platform._moved import MOVED
from gpu_platform.args.common import Cloud
from gpu_platform.clouds import CLOUD_EXTRAS, PROFILES
from tests.conftest import REPO

PACKAGE = REPO / "components" / "gpu_platform"
CLOUD_BRANCH = re.compile(
    r"""(\bcloud\s*(==|!=|\bin\b|\bnot in\b)\s*[("'])|(==\s*["'](gke|eks|aks|existing)["'])|startswith\(["']BOTTLEROCKET"""
)


def _outside_cloud_folders() -> list[Path]:
    return [p for p in PACKAGE.rglob("*.py") if "clouds" not in p.relative_to(PACKAGE).parts]


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


def test_every_profile_names_a_stack_module_with_deploy() -> None:
    for profile in PROFILES.values():
        module = importlib.import_module(profile.stack_module)
        assert callable(module.deploy), profile.name


def test_profiles_import_no_cloud_sdk() -> None:
    """Profiles are read by every layer, so loading one never loads hundreds of MB of SDK."""
    for path in (PACKAGE / "clouds").glob("*/profile.py"):
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
            assert value is getattr(importlib.import_module(new), name), (old, name)
            assert [str(w.message) for w in caught if w.category is DeprecationWarning] == [
                f"{old}.{name} moved to {new}; the old path goes in gpu-platform 0.3.0"
            ]
            assert name not in vars(module), f"{old}.{name} is still defined there"


def test_no_module_import_cycles() -> None:
    """No module imports itself through others (``TYPE_CHECKING`` imports included)."""
    import grimp

    graph = grimp.build_graph("gpu_platform")
    modules = sorted(graph.modules)
    index = {m: i for i, m in enumerate(modules)}
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in modules}
    # Tarjan's strongly connected components, iterative.
    low, order, on_stack, stack, cycles, counter = {}, {}, set(), [], [], [0]
    for root in modules:
        if root in order:
            continue
        work = [(root, iter(edges[root]))]
        order[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None and child in index:
                if child not in order:
                    order[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], order[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == order[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    assert not cycles, cycles
