"""The Python snippets in the docs are checked like the examples (an adopter copies them as they are): here
that each parses and names nothing it does not import or define; ``make lint`` runs mypy and pyright over
them (``scripts/extract_snippets.py``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

sys.path.insert(0, str(REPO / "scripts"))
from extract_snippets import main, snippets


def test_there_are_snippets_to_check() -> None:
    stems = [stem for stem, _ in snippets()]
    assert {"docs_gpu_platform_component_1", "docs_docker_hosts_1", "docs_adopting_1"} <= set(stems)


def test_every_snippet_parses_and_uses_only_what_it_imports(tmp_path: Path) -> None:
    assert main(["extract", str(tmp_path)]) == 0
    for stem, code in snippets():
        compile(code, stem, "exec")
    ruff = Path(sys.executable).with_name("ruff")
    result = subprocess.run(
        [str(ruff), "check", "--no-cache", "--isolated", "--select", "F821,F401,F811", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_snippet_missing_an_import_is_caught(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("from gpu_platform import GpuPlatform\n\npulumi.export('x', 1)\n")
    ruff = Path(sys.executable).with_name("ruff")
    result = subprocess.run(
        [str(ruff), "check", "--no-cache", "--isolated", "--select", "F821", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1 and "pulumi" in result.stdout
