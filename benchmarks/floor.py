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


def _alias(text: str, own_name: str) -> pulumi.Alias | str:
    if text.startswith("urn:"):
        return text
    type_, _, name = text.partition("::")
    return pulumi.Alias(
        type_=None if type_ == "*" else type_, name=own_name if name.startswith("*") else name
    )


def _options(row: dict[str, Any], parent: pulumi.Resource | None) -> pulumi.ResourceOptions:
    """The recorded options (SDK-added aliases included), so both sides register the same thing."""
    o = row.get("options", {})
    return pulumi.ResourceOptions(
        parent=parent,
        protect=o.get("protect") or None,
        ignore_changes=o.get("ignoreChanges") or None,
        delete_before_replace=o.get("deleteBeforeReplace") or None,
        replace_on_changes=o.get("replaceOnChanges") or None,
        aliases=[_alias(a, row["name"]) for a in o.get("aliases", [])] or None,
    )


def floor_program(rows: list[dict[str, Any]]) -> None:
    for token in sorted({r["type"] for r in rows}):
        _touch_sdk_class(token)
    made: dict[str, pulumi.Resource] = {}
    pending = sorted(rows, key=lambda r: r["urn"].count("$"))
    for r in pending:
        opts = _options(r, made.get(r["parent"]))
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
