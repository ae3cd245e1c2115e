"""GitHub workflow and action files as tests read them, and the schemas check-jsonschema vendors for them."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import yaml


def parse_workflow(text: str) -> dict[str, Any]:
    """A workflow or action document; YAML 1.1 reads ``on:`` as a boolean key, put back as ``"on"``."""
    doc: dict[str, Any] = yaml.safe_load(text)
    if True in doc:
        doc["on"] = doc.pop(True)
    return doc


def load_workflow(path: Path) -> dict[str, Any]:
    return parse_workflow(path.read_text())


def vendored_schema(name: str) -> dict[str, Any]:
    spec = importlib.util.find_spec("check_jsonschema")
    # check-jsonschema comes with the [dev] extra; the suite fails rather than skips.
    assert spec is not None and spec.origin is not None, "install the [dev] extra: make setup"
    path = Path(spec.origin).parent / "builtin_schemas" / "vendor" / f"{name}.json"
    assert path.exists(), f"check-jsonschema has no vendored {name} schema at {path}"
    return json.loads(path.read_text())
