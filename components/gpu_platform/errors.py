"""Problems found in configuration or component arguments, collected and raised once.

Every check in the library adds ``(location, reason)`` to a ``Problems`` collector instead of raising,
so one run reports every mistake. A location is a tuple of Python names and indexes
(``("gpu_pools", 1, "sharing", "mode")``); it is spelled in camelCase for the stack file
(``gpu-platform:gpuPools[1].sharing.mode``) and in snake_case for component arguments
(``pools[1].sharing.mode``), so a field has one spelling per audience.

Both error types are ``pulumi.InputPropertiesError`` with one ``property_path`` per problem, the
convention of the Pulumi SDK and pulumi-eks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import pulumi

Loc = tuple[str | int, ...]
NAMESPACE = "gpu-platform"
"""The stack config namespace: every setting is ``gpu-platform:<key>``."""

_SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)+$")
_SNAKE_WORD = re.compile(r"(?<![A-Za-z0-9_])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![A-Za-z0-9_])")
"""A snake_case name inside a printed path or reason (``pools[0].gpus_per_node``)."""


def _schema_names(text: str) -> str:
    """Every snake_case name in ``text`` as the package schema spells it (``max_nodes`` -> ``maxNodes``)."""
    return _SNAKE_WORD.sub(lambda m: _camel(m.group(0)), text)


class Key(str):
    """A mapping key inside a location (a label name): never re-spelled in camelCase."""


def _camel(part: str) -> str:
    if isinstance(part, Key) or not _SNAKE.match(part):
        return str(part)
    head, *rest = part.split("_")
    return head + "".join(p.title() for p in rest)


_FIELD_REF = re.compile(r"\{\{([a-z_][a-z0-9_.]*)\}\}")


def spell_fields(reason: str, camel: bool) -> str:
    """A reason names other settings as ``{{max_nodes}}``: spelled ``maxNodes`` for the stack file and
    ``max_nodes`` for component arguments, so each audience reads its own names."""
    return _FIELD_REF.sub(
        lambda m: ".".join(_camel(p) if camel else p for p in m.group(1).split(".")), reason
    )


def format_path(loc: Iterable[str | int], camel: bool = False, prefix: str = "") -> str:
    """``("gpu_pools", 1, "sharing")`` -> ``gpuPools[1].sharing`` (camel) or ``gpu_pools[1].sharing``."""
    out = prefix
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            continue
        text = _camel(part) if camel else str(part)
        out += text if not out or out.endswith(":") else f".{text}"
    return out


class _Problems(pulumi.InputPropertiesError):
    """An ``InputPropertiesError`` that also keeps ``problems`` as ``(path, reason)`` pairs."""

    def __init__(self, problems: Sequence[tuple[str, str]], title: str):
        self.problems = list(problems)
        lines = "\n".join(f"{self.shown(path)}: {reason}" for path, reason in self.problems)
        super().__init__(
            f"{title}\n{lines}" if title else lines,
            [{"property_path": path, "reason": reason} for path, reason in self.problems],
        )

    def shown(self, path: str) -> str:
        """How a problem's path is printed (``property_path`` stays as it is, relative to the inputs)."""
        return path

    def __str__(self) -> str:
        return "\n".join(f"{self.shown(path)}: {reason}" for path, reason in self.problems)


class ConfigError(_Problems, ValueError):
    """Invalid stack configuration: each problem as ``gpu-platform:<camelCase path>: <reason>``."""

    def __init__(self, problems: Sequence[tuple[str, str]]):
        super().__init__(problems, "invalid gpu-platform stack configuration:")


class ArgumentsError(_Problems, ValueError):
    """Invalid component arguments: each problem as ``<snake_case path>: <reason>``; ``component`` names the
    component and its resource name (``EksGpuNodePool 'h100'``) once the constructor has seen them."""

    def __init__(self, problems: Sequence[tuple[str, str]], component: str = ""):
        self.component = component
        title = f"invalid arguments for {component}:" if component else "invalid component arguments:"
        super().__init__(problems, title)

    def for_component(self, kind: str, name: str) -> ArgumentsError:
        """The same problems, naming the component they belong to."""
        return ArgumentsError(self.problems, f"{kind} {name!r}")

    def __str__(self) -> str:
        prefix = f"{self.component}: " if self.component else ""
        return "\n".join(f"{prefix}{path}: {reason}" for path, reason in self.problems)

    def in_schema_names(self) -> pulumi.InputPropertiesError:
        """The same problems for a program in another language, whose inputs are the package schema's camelCase
        names (``pools[0].gpusPerNode``): what the multi-language provider reports, one line per problem."""
        problems = [(_schema_names(path), _schema_names(reason)) for path, reason in self.problems]
        title = (
            f"invalid arguments for {self.component}:" if self.component else "invalid component arguments:"
        )
        return pulumi.InputPropertiesError(
            "\n".join([title, *(f"{path}: {reason}" for path, reason in problems)]),
            [{"property_path": path, "reason": reason} for path, reason in problems],
        )


class Problems:
    """Collects ``(location, reason)`` pairs; ``at()`` gives a view that prefixes every location."""

    def __init__(
        self, prefix: Loc = (), items: list[tuple[Loc, str]] | None = None, muted: list[Loc] | None = None
    ):
        self.prefix = prefix
        self.items: list[tuple[Loc, str]] = [] if items is None else items
        self.muted: list[Loc] = [] if muted is None else muted

    def add(self, loc: Sequence[str | int], reason: str) -> None:
        entry = ((*self.prefix, *loc), reason)
        if entry not in self.items and not self._follows_on(*entry):
            self.items.append(entry)

    def at(self, *loc: str | int) -> Problems:
        """A view whose ``add`` files problems under ``loc`` in the same list."""
        return Problems((*self.prefix, *loc), self.items, self.muted)

    def mute(self, *loc: str | int) -> None:
        """The setting at ``loc`` was refused and left out of what later checks read: what they would say at it,
        under it, or naming it (``{{section.key}}``) follows from that one mistake, so it is not added."""
        self.muted.append((*self.prefix, *loc))

    def _follows_on(self, loc: Loc, reason: str) -> bool:
        for muted in self.muted:
            names = [str(part) for part in muted if isinstance(part, str)]
            if loc[: len(muted)] == muted or "{{" + ".".join(names) in reason:
                return True
            if (
                names
                and loc[:1] == muted[:1]
                and any(f"{{{{{names[-1]}{end}" in reason for end in ("}}", "."))
            ):
                return True
        return False

    def __bool__(self) -> bool:
        return any(loc[: len(self.prefix)] == self.prefix for loc, _ in self.items)

    def count(self) -> int:
        return len(self.items)

    def config_error(self) -> ConfigError:
        return ConfigError(
            [
                (format_path(loc, True, f"{NAMESPACE}:"), spell_fields(reason, True))
                for loc, reason in self.items
            ]
        )

    def arguments_error(self) -> ArgumentsError:
        return ArgumentsError(
            [(format_path(loc) or "args", spell_fields(reason, False)) for loc, reason in self.items]
        )

    def raise_for_config(self) -> None:
        if self.items:
            raise self.config_error()

    def raise_for_arguments(self) -> None:
        if self.items:
            raise self.arguments_error()
