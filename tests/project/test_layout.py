"""The layout report (scripts/layout_report.py): its measures of the package, and that each can see a fault.

``tests/test_architecture.py`` holds the package's own shape checks; these check the report that counts them,
and hold the two measures that must stay at zero: package-level import cycles and string imports of the
library's own modules.
"""

from pathlib import Path

from tests.conftest import REPO
from tests.support.scripts import load_script

layout = load_script(REPO / "scripts" / "layout_report.py", "layout_report", register=True)


def test_the_package_level_import_graph_has_no_cycle() -> None:
    packages = layout.unit_edges(layout.module_edges())
    assert ("gpu_platform.stack", "gpu_platform.addons") in packages  # the graph is the library's, lifted
    assert layout.strongly_connected(packages) == []


def test_no_module_of_the_library_is_imported_by_a_literal_string() -> None:
    found = layout.string_imports()
    assert [s for s in found if s.own] == []
    # What is left computes its argument: the old-path shim and Pulumi's SDK loaders.
    assert {s.where.split(":")[0] for s in found} <= {"_moved.py", "sdk.py", "offline/sdk_internals.py"}


def test_the_cycle_finder_finds_each_cycle_and_nothing_else() -> None:
    edges = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "e"), ("e", "d"), ("e", "f")]
    assert layout.strongly_connected(edges) == [["a", "b", "c"], ["d", "e"]]
    assert layout.strongly_connected([("a", "b"), ("b", "c")]) == []


def test_imports_are_lifted_to_packages_without_the_ones_inside_a_package() -> None:
    edges = {
        ("gpu_platform.stack.spec", "gpu_platform.addons.kueue.plan"),
        ("gpu_platform.stack.spec", "gpu_platform.stack.sections"),
        ("gpu_platform.cli", "gpu_platform.stack"),
    }
    assert layout.unit_edges(edges) == {
        ("gpu_platform.cli", "gpu_platform.stack"): ["gpu_platform.cli -> gpu_platform.stack"],
        ("gpu_platform.stack", "gpu_platform.addons"): [
            "gpu_platform.stack.spec -> gpu_platform.addons.kueue.plan"
        ],
    }


def test_an_import_up_a_floor_is_counted_in_its_contract() -> None:
    contracts = layout.layer_contracts()
    up = layout.upward_imports(
        {
            ("gpu_platform.catalog.gpus", "gpu_platform.stack.spec"),  # up: catalog is the lowest floor
            ("gpu_platform.stack.spec", "gpu_platform.catalog.gpus"),  # down
            ("gpu_platform.clouds.gke.checks", "gpu_platform.clouds.gke.stack"),  # up inside a cloud folder
            # another cloud's folder: the in-folder floors do not order it (independence contracts do)
            ("gpu_platform.clouds.gke.checks", "gpu_platform.clouds.eks.stack"),
        },
        contracts,
    )
    assert sorted(len(v) for v in up.values()) == [1, 1]
    assert ["gpu_platform.catalog.gpus -> gpu_platform.stack.spec"] in up.values()
    assert ["gpu_platform.clouds.gke.checks -> gpu_platform.clouds.gke.stack"] in up.values()


def test_a_string_import_of_the_library_is_found(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "import importlib\n"
        "importlib.import_module('gpu_platform.stack')\n"
        "importlib.import_module(f'gpu_platform.clouds.{cloud}.stack')\n"
        "importlib.import_module('yaml')\n"
        "__import__(name)\n"
    )
    found = layout.string_imports(tmp_path)
    assert [(s.where, s.own) for s in found] == [
        ("m.py:2", True),
        ("m.py:3", True),
        ("m.py:4", False),
        ("m.py:5", False),
    ]


def test_an_addon_is_counted_where_it_is_named_outside_its_folder() -> None:
    pattern = layout.mention_pattern("gpu_operator")
    text = (
        "gpu_operator, the GPU Operator (GpuOperatorArgs, gpu-operator); not gpu_operators or xgpu_operator"
    )
    assert pattern.findall(text) == ["gpu_operator", "GPU Operator", "GpuOperator", "gpu-operator"]
    spread = layout.addon_spread(layout.module_edges())
    assert set(spread) == set(layout.addon_names())
    slurm = spread["slurm"]
    assert "addons/registry.py" in slurm.importers and "addons/registry.py" in slurm.mentions
    assert not [f for f in slurm.importers + slurm.mentions if f.startswith("addons/slurm/")]


def test_test_modules_are_matched_at_the_mirrored_path(tmp_path: Path) -> None:
    package, tests = tmp_path / "pkg", tmp_path / "tests"
    for path in ("a/__init__.py", "a/plan.py", "a/checks.py", "b.py"):
        (package / path).parent.mkdir(parents=True, exist_ok=True)
        (package / path).write_text("")
    for path in ("a/test_plan.py", "test_b_more.py"):
        (tests / path).parent.mkdir(parents=True, exist_ok=True)
        (tests / path).write_text("")
    assert layout.mirrored_tests(package, tests) == (["a/plan.py"], ["a/checks.py", "b.py"])
