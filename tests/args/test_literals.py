"""Enum-valued settings take the documented strings: each enum has ``<Enum>Name``, the Literal type checkers
accept, defined next to it and equal to its values; both are exported from ``gpu_platform``."""

from __future__ import annotations

import enum
import importlib
import importlib.util
import pkgutil
import typing

import pytest

import gpu_platform
import gpu_platform.args
from gpu_platform.cloud_facts import PROFILES

ARGS_MODULES = [
    f"gpu_platform.args.{info.name}" for info in pkgutil.iter_modules(gpu_platform.args.__path__)
] + [
    f"gpu_platform.clouds.{cloud}.args"
    for cloud in PROFILES
    if importlib.util.find_spec(f"gpu_platform.clouds.{cloud}.args") is not None
]
"""The shared argument modules and each cloud's own."""
ENUMS = sorted(
    (
        value
        for module in ARGS_MODULES
        for name, value in vars(importlib.import_module(module)).items()
        if isinstance(value, type)
        and issubclass(value, enum.Enum)
        and value.__name__ == name
        and value.__module__ == module
    ),
    key=lambda e: e.__name__,
)


def test_there_are_enums_to_check() -> None:
    assert {"Cloud", "SharingMode", "DriverOwner", "ManagedBy", "AutoscalerIam", "GkeDriverVersion"} <= {
        e.__name__ for e in ENUMS
    }


@pytest.mark.parametrize("kind", ENUMS, ids=lambda e: e.__name__)
def test_literal_is_the_enums_values_and_both_are_exported(kind: type[enum.Enum]) -> None:
    module = importlib.import_module(kind.__module__)
    literal = getattr(module, f"{kind.__name__}Name")
    assert typing.get_origin(literal) is typing.Literal
    assert typing.get_args(literal) == tuple(m.value for m in kind)
    assert getattr(gpu_platform, kind.__name__) is kind
    assert getattr(gpu_platform, f"{kind.__name__}Name") is literal
    assert {kind.__name__, f"{kind.__name__}Name"} <= set(gpu_platform.__all__)
    # At run time the annotation alias is the enum itself: Pulumi's analyzer makes a schema enum of it and
    # pydantic checks the value, so a string outside the Literal is still refused.
    assert getattr(module, f"{kind.__name__}Value") is kind
