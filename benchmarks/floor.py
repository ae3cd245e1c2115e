"""The floor program: the same registrations as a plan, made directly, with no library logic.

It imports the same Pulumi SDK submodules the library's plan touched (so SDK import cost is on both
sides), then registers every resource with its recorded type, name, parent and inputs through
``pulumi.CustomResource`` / ``pulumi.ComponentResource``.
"""

from __future__ import annotations

import contextlib
import importlib
from typing import Any

import pulumi

_PACKAGES = {
    "gcp": "pulumi_gcp",
    "aws": "pulumi_aws",
    "azure-native": "pulumi_azure_native",
    "kubernetes": "pulumi_kubernetes",
}


def _sdk_module(type_token: str) -> str | None:
    pkg, _, rest = type_token.partition(":")
    if pkg not in _PACKAGES:
        return None
    module = rest.split(":")[0].split("/")[0]
    if pkg == "kubernetes":
        api = rest.split(":")[0]
        group, _, version = api.rpartition("/")
        known = {
            "core": "core",
            "apps": "apps",
            "helm.sh": "helm",
            "batch": "batch",
            "rbac.authorization.k8s.io": "rbac",
            "scheduling.k8s.io": "scheduling",
            "monitoring.coreos.com": "apiextensions",
        }
        return f"pulumi_kubernetes.{known.get(group, 'apiextensions')}" + (
            f".{version}" if group in known and known[group] != "apiextensions" else ""
        )
    return f"{_PACKAGES[pkg]}.{module}"


def _touch_sdk_class(type_token: str) -> None:
    """SDK submodules load lazily on first class access: touch the class so the floor pays too."""
    module = _sdk_module(type_token)
    if module is None:
        return
    with contextlib.suppress(ImportError):
        mod = importlib.import_module(module)
        getattr(mod, type_token.rsplit(":", 1)[-1], None) or getattr(mod, "CustomResource", None)


def floor_program(rows: list[dict[str, Any]]) -> None:
    for token in sorted({r["type"] for r in rows}):
        _touch_sdk_class(token)
    made: dict[str, pulumi.Resource] = {}
    pending = sorted(rows, key=lambda r: r["urn"].count("$"))
    for r in pending:
        parent = made.get(r["parent"])
        opts = pulumi.ResourceOptions(parent=parent) if parent else None
        if r["custom"]:
            if r["type"].startswith("pulumi:providers:"):
                res: pulumi.Resource = pulumi.ProviderResource(
                    r["type"].split(":")[2], r["name"], r["inputs"], opts
                )
            else:
                res = pulumi.CustomResource(r["type"], r["name"], r["inputs"], opts)
        else:
            res = pulumi.ComponentResource(r["type"], r["name"], None, opts)
        made[r["urn"]] = res
