"""JSON schemas generated from the argument types, for editors and CI.

- :func:`stack_file_schema`: a whole ``Pulumi.<stack>.yaml`` (top-level ``config:`` with the
  ``gpu-platform:<key>`` settings next to other namespaces' keys, ``environment:``, the secrets
  provider fields), what ``gpu-platform schema`` prints; point the YAML language server at it for
  ``Pulumi.*.yaml``.
- :func:`json_schema`: the bare ``gpu-platform:`` settings object (keys without the namespace), what
  the stack program validates after reading the stack file (``gpu-platform schema --keys``).

Descriptions come from the attribute docstrings; where one names a default by its constant
(````DEFAULT_WAIT_TIMEOUT````), the schema shows the value instead, since an editor's reader has no
code to look the name up in.
"""

from __future__ import annotations

import enum
import re
from functools import cache
from types import ModuleType
from typing import Any

from pydantic import TypeAdapter

from gpu_platform.args.validate import attribute_docstrings
from gpu_platform.errors import NAMESPACE
from gpu_platform.stack.sections import StackConfigArgs

DRAFT = "https://json-schema.org/draft/2020-12/schema"
_CONSTANT = re.compile(r"``([A-Z][A-Z0-9_]{2,})``")


def _settings_modules() -> tuple[ModuleType, ...]:
    """Every module that defines settings, in the order their constants are looked up (first name wins)."""
    from gpu_platform.addons.docker_host import settings as docker_host
    from gpu_platform.addons.dra import settings as dra
    from gpu_platform.addons.kserve import service_settings as inference
    from gpu_platform.addons.kueue import settings as kueue
    from gpu_platform.addons.observability import settings as observability
    from gpu_platform.addons.slurm import settings as slurm
    from gpu_platform.addons.workloads import settings as workloads
    from gpu_platform.args import (
        autoprovisioning,
        autoscaling,
        cluster,
        common,
        node_pool_component,
        operators,
        pool,
        validate,
    )
    from gpu_platform.stack import platform_args, sections

    return (
        autoprovisioning,
        autoscaling,
        cluster,
        common,
        docker_host,
        dra,
        inference,
        kueue,
        node_pool_component,
        observability,
        operators,
        platform_args,
        pool,
        slurm,
        sections,
        validate,
        workloads,
    )


@cache
def _constants() -> dict[str, Any]:
    """Module-level constants and enum members of the settings modules, by name (what docstrings cite)."""
    found: dict[str, Any] = {}
    for module in _settings_modules():
        for name, value in vars(module).items():
            if name.isupper() and isinstance(value, (str, int, float, bool, dict, tuple, frozenset)):
                found.setdefault(name, value)
            elif isinstance(value, type) and issubclass(value, enum.Enum):
                for member in value:
                    found.setdefault(member.name, member.value)
    return found


def shown(value: Any) -> str:
    """A constant as a reader of the stack file writes it (YAML-ish: ``false``, ``10m``, ``gke: ...``)."""
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return ", ".join(f"{k}: {shown(v)}" for k, v in value.items())
    if isinstance(value, (tuple, frozenset)):
        return ", ".join(shown(v) for v in (sorted(value) if isinstance(value, frozenset) else value))
    return str(value)


def with_values(text: str) -> str:
    """``text`` with every ````CONSTANT```` of the argument modules replaced by its value."""
    constants = _constants()

    def value_of(match: re.Match[str]) -> str:
        name = match[1]
        return f"``{shown(constants[name])}``" if name in constants else match[0]

    return _CONSTANT.sub(value_of, text)


def _descriptions_with_values(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: with_values(v) if k == "description" and isinstance(v, str) else _descriptions_with_values(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_descriptions_with_values(v) for v in node]
    return node


SECRET = {
    "type": "object",
    "description": "A Pulumi secret (`pulumi config set --secret`): the ciphertext of a string value.",
    "properties": {"secure": {"type": "string"}},
    "required": ["secure"],
    "additionalProperties": False,
}


def _secrets_allowed(node: Any) -> Any:
    """Every string setting may be written as ``{secure: <ciphertext>}`` in a stack file."""
    if isinstance(node, list):
        return [_secrets_allowed(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _secrets_allowed(v) for k, v in node.items()}
    if out.get("type") == "string":
        outer = {k: out.pop(k) for k in ("description", "title") if k in out}
        return {**outer, "anyOf": [out, {"$ref": "#/$defs/PulumiSecret"}]}
    return out


def json_schema() -> dict[str, Any]:
    """JSON schema of the ``gpu-platform:`` config object (keys without the namespace)."""
    with attribute_docstrings():
        schema = TypeAdapter(StackConfigArgs).json_schema(by_alias=True)
    schema = _descriptions_with_values(schema)
    schema["title"] = f"gpu-platform stack configuration (keys under the '{NAMESPACE}:' namespace)"
    return schema


def stack_file_schema() -> dict[str, Any]:
    """JSON schema of a whole ``Pulumi.<stack>.yaml`` of a project run by the gpu-platform stack program.

    Every ``gpu-platform:<key>`` must be a known setting of the right shape; keys of other namespaces
    (``gcp:project``, the project's own) are left to their providers. The required settings are
    required only when the file sets any ``gpu-platform:`` key and takes no ``environment:`` (a Pulumi
    ESC environment may provide them)."""
    keys = _secrets_allowed(json_schema())
    defs = {**keys.pop("$defs", {}), "PulumiSecret": SECRET}
    prefixed = {f"{NAMESPACE}:{name}": prop for name, prop in keys["properties"].items()}
    required = [f"{NAMESPACE}:{name}" for name in keys.get("required", [])]
    ours = f"^{NAMESPACE}:"
    config = {
        "type": "object",
        "description": f"Stack configuration: `{NAMESPACE}:<setting>` keys (docs/configuration.md) and "
        "other namespaces' keys.",
        "properties": prefixed,
        # Other namespaces' keys pass; a gpu-platform: key must be a known setting (the message lists them).
        "propertyNames": {"if": {"pattern": ours}, "then": {"enum": sorted(prefixed)}},
    }
    return {
        "$schema": DRAFT,
        "$id": "https://github.com/gpu-platform/gpu-platform/schemas/stack-file.json",
        "title": f"Pulumi.<stack>.yaml of a project run by the {NAMESPACE} stack program",
        "type": "object",
        "properties": {
            "config": config,
            "environment": {
                "description": "Pulumi ESC environments whose values are merged into config.",
                "type": "array",
                "items": {"type": "string"},
            },
            "secretsprovider": {"type": "string"},
            "encryptedkey": {"type": "string"},
            "encryptionsalt": {"type": "string"},
        },
        "allOf": [
            {
                "if": {
                    "required": ["config"],
                    "not": {"required": ["environment"]},
                    "properties": {"config": {"not": {"propertyNames": {"not": {"pattern": ours}}}}},
                },
                "then": {"properties": {"config": {"required": required}}},
            }
        ],
        "$defs": defs,
    }
