"""What a refusal says: the problems of the ``ArgumentsError`` a component's checks raise, and of the
``ConfigError`` ``load_platform`` raises for a stack file; each fails the test when nothing is refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gpu_platform.errors import ArgumentsError, ConfigError
from gpu_platform.stack import load_platform


def arg_problems(fn: Callable[[Any], Any], args: dict[str, Any]) -> dict[str, str]:
    """``path -> reason`` of every problem ``fn(args)`` refuses ``args`` for."""
    with pytest.raises(ArgumentsError) as err:
        fn(args)
    return dict(err.value.problems)


def config_problems(raw: dict[str, Any]) -> dict[str, str]:
    """``key -> reason`` of every problem of the stack file's ``gpu-platform:`` keys ``raw``."""
    with pytest.raises(ConfigError) as err:
        load_platform(raw)
    return dict(err.value.problems)


def config_error(raw: dict[str, Any]) -> str:
    """The message ``load_platform`` refuses the stack file's keys ``raw`` with."""
    with pytest.raises(ConfigError) as err:
        load_platform(raw)
    return str(err.value)
