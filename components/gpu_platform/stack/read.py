"""Reading the ``gpu-platform:`` keys from the Pulumi config the engine hands the program."""

from __future__ import annotations

import json
from typing import Any

import pulumi

from gpu_platform.args.validate import hints
from gpu_platform.errors import NAMESPACE
from gpu_platform.stack.sections import StackConfigArgs


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(p.title() for p in rest)


def config_keys() -> list[str]:
    """Every config key the stack sets, in every namespace (``gpu-platform:kueue``, ``aws:region`` ...)."""
    from pulumi.runtime import config as runtime_config

    return sorted(set(runtime_config.CONFIG.get()) | set(runtime_config.get_config_env()))


def secret_sections() -> frozenset[str]:
    """The ``gpu-platform:`` keys the stack holds as secrets (snake_case). Pulumi marks a whole object key
    secret when any value inside it is ``secure:``, so the whole section is treated as secret."""
    from pulumi.runtime.config import is_config_secret

    keys = [k for k in config_keys() if k.startswith(f"{NAMESPACE}:") and is_config_secret(k)]
    return frozenset(_snake(k.split(":", 1)[1]) for k in keys)


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)


def read_stack_config() -> dict[str, Any]:
    """Every ``gpu-platform:<key>`` the stack sets, objects parsed from JSON. Unknown keys are included so
    they are reported rather than ignored; scalars stay text (``"12.8"`` is a CUDA version, not a float)."""
    cfg = pulumi.Config(NAMESPACE)
    known = {_camel(k) for k in hints(StackConfigArgs)}
    present = {k.split(":", 1)[1] for k in config_keys() if k.startswith(f"{NAMESPACE}:")}
    raw: dict[str, Any] = {}
    for key in sorted(present | known):
        text = cfg.get(key)
        if text is None:
            continue
        try:
            value = json.loads(text)
        except ValueError:
            value = text
        raw[key] = value if isinstance(value, (dict, list)) else text
    return raw
