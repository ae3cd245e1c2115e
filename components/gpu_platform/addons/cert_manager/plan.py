"""cert-manager's plan: the pinned jetstack chart with the CRD settings KServe and Slinky rely on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpu_platform.mirror import Mirror
from gpu_platform.plans.helm import deep_merge


@dataclass(frozen=True)
class CertManagerPlan:
    namespace: str
    values: dict[str, Any]
    mirror: Mirror | None = None
    """Where the chart and its images come from instead of upstream."""


def cert_manager_values(extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Chart values: the user's, with the CRD settings KServe relies on laid over them (``crds.keep``
    keeps the CRDs, and every Certificate, if the release is ever removed)."""
    return deep_merge(dict(extra or {}), {"crds": {"enabled": True, "keep": True}})


def cert_manager_plan(
    namespace: str, values: Mapping[str, Any] | None = None, mirror: Mirror | None = None
) -> CertManagerPlan:
    """cert-manager in ``namespace`` with its final chart values, from ``mirror`` when one is set."""
    return CertManagerPlan(namespace, cert_manager_values(values), mirror)
