"""Load a repository script (``scripts/``, ``benchmarks/``) as a module, so tests call its functions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_script(path: Path, name: str, *, register: bool = False) -> ModuleType:
    """The script at ``path`` run as the module ``name``; ``register`` puts it in ``sys.modules`` under that
    name before it runs, as an import would (``dataclasses`` looks a class's module up there)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    if register:
        sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
