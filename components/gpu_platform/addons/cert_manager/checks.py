"""``CertManager``'s arguments checked once: its namespace and the user's chart values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_platform.args.operators import CertManagerArgs
from gpu_platform.args.validate import check_arguments
from gpu_platform.errors import Problems
from gpu_platform.mirror import Mirror
from gpu_platform.releases import CERT_MANAGER
from gpu_platform.resolve.kubernetes import namespace_problem
from gpu_platform.resolve.mirror import resolve_mirror


def resolve_cert_manager_args(
    args: CertManagerArgs | None,
) -> tuple[str, Mapping[str, Any] | None, Mirror | None]:
    """``CertManager``'s arguments checked: its namespace, the user's chart values and the mirror."""
    p = Problems()
    checked = check_arguments(CertManagerArgs, args or {}, p)
    namespace = (checked or {}).get("namespace", CERT_MANAGER.namespace)
    if reason := namespace_problem(namespace):
        p.add(("namespace",), reason)
    mirror = resolve_mirror((checked or {}).get("mirror"), p.at("mirror"))
    p.raise_for_arguments()
    assert checked is not None
    return namespace, checked.get("values"), mirror
