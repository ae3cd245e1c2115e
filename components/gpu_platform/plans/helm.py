"""Helpers shared by the operator components' Helm values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _copy(value: Any) -> Any:
    """Mappings and lists copied, leaves shared: values may hold Outputs, which cannot be deep-copied."""
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_copy(v) for v in value]
    return value


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` laid on ``base``: mappings merge key by key, lists and scalars are replaced.

    Components put the user's free-form ``values`` as ``base`` and their typed values as ``over``,
    so the typed values always win.
    """
    out: dict[str, Any] = _copy(dict(base))
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = _copy(value)
    return out
