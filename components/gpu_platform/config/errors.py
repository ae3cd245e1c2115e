"""Configuration errors that name the exact key and stop before any resource is registered."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def format_path(loc: Iterable[str | int], prefix: str = "") -> str:
    """``("gpuPools", 1, "sharing")`` -> ``gpuPools[1].sharing`` (with an optional prefix)."""
    out = prefix
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif out and not out.endswith(":"):
            out += f".{part}"
        else:
            out += str(part)
    return out


class ConfigError(ValueError):
    """One or more invalid settings, each as ``path: reason``. Raised before anything is created."""

    def __init__(self, problems: Sequence[tuple[str, str]]):
        self.problems = list(problems)
        super().__init__("\n".join(f"{path}: {reason}" for path, reason in self.problems))


class Problems:
    """Collects ``(path, reason)`` pairs so every mistake in a config is reported at once."""

    def __init__(self, prefix: str = ""):
        self.prefix = prefix
        self.items: list[tuple[str, str]] = []

    def add(self, loc: Sequence[str | int], reason: str) -> None:
        self.items.append((format_path(loc, self.prefix), reason))

    def raise_if_any(self) -> None:
        if self.items:
            raise ConfigError(self.items)
