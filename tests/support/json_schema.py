"""What a JSON schema validator finds wrong in a document."""

from __future__ import annotations

from typing import Any

from jsonschema.protocols import Validator


def schema_errors(validator: Validator, doc: Any) -> list[str]:
    """Every error of ``doc``, one ``path/to/key: message`` line each, in the validator's order."""
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]
