"""List arguments that may be Outputs (CIDRs, group IDs), passed on to the cloud's resources.

A known list is passed as a list, and an empty one as ``None`` so that an absent setting stays absent
from the resource; an Output, or a list holding one, is known only at deploy time and passed as it is:
Pulumi resolves it when it creates the resource.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pulumi


def is_known(value: Any) -> bool:
    """``value`` holds no Output (it is a plain value, or a list of plain values)."""
    if isinstance(value, pulumi.Output):
        return False
    if isinstance(value, (list, tuple)):
        return all(is_known(v) for v in value)
    return True


def sequence(value: Any) -> Any:
    """A list argument as a resource input: ``None`` when absent or empty, a list when known, else as given."""
    if value is None:
        return None
    if not is_known(value):
        return value
    return list(value) or None


def each(value: Any, make: Callable[[Any], Any]) -> Any:
    """``[make(v) for v in value]``, computed at deploy time (in an apply) when ``value`` is not known yet."""
    if is_known(value):
        return [make(v) for v in value]
    return pulumi.Output.from_input(value).apply(lambda items: [make(v) for v in items])
