"""KServe's settings checked once, for the stack file's ``kserve`` and the components."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_platform.addons.cert_manager.checks import (
    resolve_cert_manager_args as resolve_cert_manager_args,  # its old home
)
from gpu_platform.args.operators import KServeArgs
from gpu_platform.args.validate import check_arguments
from gpu_platform.errors import Problems
from gpu_platform.releases import KSERVE_RESOURCES
from gpu_platform.resolve.kubernetes import is_dns_subdomain, namespace_problem
from gpu_platform.resolve.mirror import resolve_mirror

LEGACY_MODES = {"RawDeployment": "Standard", "Serverless": "Knative"}


def check_kserve_settings(settings: Mapping[str, Any], p: Problems) -> None:
    """Shared by the stack file's ``kserve`` and ``KServeArgs``."""
    if settings.get("ingress_class_name") and settings.get("deployment_mode") == "Knative":
        p.add(("ingress_class_name",), "Standard mode only; Knative routes through its own network layer")
    domain = settings.get("ingress_domain")
    if domain is not None and not is_dns_subdomain(domain):
        p.add(
            ("ingress_domain",),
            f"'{domain}' is not a domain name like models.example.com (no scheme or path)",
        )


def _legacy_mode(args: Any, p: Problems) -> bool:
    mode = args.get("deployment_mode") if isinstance(args, Mapping) else None
    if isinstance(mode, str) and mode in LEGACY_MODES:
        p.add(
            ("deployment_mode",),
            f"'{mode}' is the deprecated name of '{LEGACY_MODES[mode]}'; valid: Standard, Knative",
        )
        return True
    return False


def resolve_kserve_args(args: KServeArgs | None) -> Mapping[str, Any]:
    """``KServe``'s arguments checked (the settings ``addons.kserve.plan.kserve_plan`` takes); ``ArgumentsError``
    lists every problem with its argument path."""
    p = Problems()
    args = args or {}
    legacy = _legacy_mode(args, p)
    checked = check_arguments(
        KServeArgs, {k: v for k, v in args.items() if not (legacy and k == "deployment_mode")}, p
    )
    if checked is not None:
        check_kserve_settings(checked, p)
        if reason := namespace_problem(checked.get("namespace", KSERVE_RESOURCES.namespace)):
            p.add(("namespace",), reason)
        checked["mirror"] = resolve_mirror(checked.get("mirror"), p.at("mirror"))
    p.raise_for_arguments()
    assert checked is not None
    return checked
