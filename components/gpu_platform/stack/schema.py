"""The JSON schema of the ``gpu-platform:`` keys, generated from the argument types (for editors)."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from gpu_platform.args.stack import StackConfigArgs
from gpu_platform.errors import NAMESPACE


def json_schema() -> dict[str, Any]:
    """JSON schema of the ``gpu-platform:`` config object, for editors completing stack files."""
    schema = TypeAdapter(StackConfigArgs).json_schema(by_alias=True)
    schema["title"] = f"gpu-platform stack configuration (keys under the '{NAMESPACE}:' namespace)"
    return schema
