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
    met: Callable[[Sections, GpuPool | None], bool]
    """Whether the stack file gives what is needed (for ``per_pool``: to that pool)."""
    applies: Callable[[Sections, GpuPool | None], bool]
    """Whether the needing setting is on (for ``per_pool``: on that pool)."""
    reason: Callable[[Sections, GpuPool | None], str]
    """The refusal, naming what is needed (``{{kueue.enabled}}``) and the fix."""
    per_pool: bool = False
    """Checked on each pool (``applies`` and ``met`` get the pool) and filed at that pool's ``setting``."""
    any_pool: bool = False
    """A stack-wide setting that some pool must meet (``met`` gets each pool in turn; one is enough)."""


class CheckedSections(dict[str, Any]):
    """The sections as the requirements see them: with a cache for what several requirements, or one requirement
    on every pool, derive from the whole stack file (each derived once per check: linear in pools and queues)."""

    def __init__(self, sections: Sections) -> None:
        super().__init__(sections)
        self.cache: dict[str, Any] = {}


def derived(sections: Sections, key: str, compute: Callable[[], Any]) -> Any:
    """``compute()``, once per stack file when ``sections`` are ``CheckedSections`` (else every time)."""
    cache = sections.cache if isinstance(sections, CheckedSections) else None
    if cache is None:
        return compute()
    if key not in cache:
        cache[key] = compute()
    return cache[key]


def exclusive_pools(sections: Sections) -> list[str]:
    """The pools a scheduler owns outright (an enabled ``slurm`` section's: slurmd holds every GPU of those
    nodes), read unchecked so every add-on's requirements see the same owner even when that section has
    problems of its own."""
    slurm = sections.get("slurm", {})
    if not isinstance(slurm, Mapping) or not slurm.get("enabled", False):
        return []
    return [n for n in slurm.get("pools") or () if isinstance(n, str)]


def section_on(sections: Sections, name: str, default: bool) -> bool:
    """``<name>.enabled`` of the stack file, with the add-on's default."""
    section = sections.get(name, {})
    return bool(section.get("enabled", default)) if isinstance(section, Mapping) else default
