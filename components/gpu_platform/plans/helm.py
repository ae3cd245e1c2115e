"""Helpers shared by the operator components' Helm values."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` laid on ``base``: mappings merge key by key, lists and scalars are replaced.

    Components put the user's free-form ``values`` as ``base`` and their typed values as ``over``,
    so the typed values always win.
    """
    out: dict[str, Any] = copy.deepcopy(dict(base))
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out
