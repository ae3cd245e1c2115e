"""What one add-on's setting needs from another add-on (or the pools): declared once, in the needing add-on's
``wiring`` (its registry entry's ``requires``), and checked once for the whole stack file
(``registry.requirement_problems``), so a combination that cannot work is refused in one place with a message
that names both settings."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gpu_platform.pools import GpuPool

Sections = Mapping[str, Any]
"""The stack file's sections (snake_case keys), checked one by one but not yet resolved together."""


@dataclass(frozen=True)
class Requirement:
    """A setting that works only when ``needs`` holds."""

    setting: tuple[str, ...]
    """Where the problem is filed: a stack-file path, or a path inside the pool when ``per_pool``."""
    needs: str
    """The setting it needs (``gpu_operator.enabled``): the other half of the message."""
    met: Callable[[Sections], bool]
    """Whether the stack file gives what is needed."""
    applies: Callable[[Sections, GpuPool | None], bool]
    """Whether the needing setting is on (for ``per_pool``: on that pool)."""
    reason: Callable[[GpuPool | None], str]
    """The refusal, naming ``needs`` as ``{{needs}}`` and the fix."""
    per_pool: bool = False


def section_on(sections: Sections, name: str, default: bool) -> bool:
    """``<name>.enabled`` of the stack file, with the add-on's default."""
    section = sections.get(name, {})
    return bool(section.get("enabled", default)) if isinstance(section, Mapping) else default
