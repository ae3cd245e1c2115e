"""Kubernetes semantics the rules need: taints in each cloud's spelling, toleration matching, quantities.

Toleration matching follows the Kubernetes API (``Toleration.ToleratesTaint``): the effect must match
unless the toleration leaves it empty, an empty key with ``Exists`` tolerates everything, ``Exists``
ignores the value, ``Equal`` (the default operator) compares it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from gpu_platform.policy_model.model import as_list, is_unknown
from gpu_platform.pools import Taint

# GKE and EKS spell effects as enums; Kubernetes and AKS use the Kubernetes spelling.
_CLOUD_EFFECTS = {
    "NO_SCHEDULE": "NoSchedule",
    "PREFER_NO_SCHEDULE": "PreferNoSchedule",
    "NO_EXECUTE": "NoExecute",
}
REPELLING_EFFECTS = ("NoSchedule", "NoExecute")
"""Effects that keep pods without a toleration off a node (PreferNoSchedule only discourages)."""

GPU_RESOURCE_PREFIX = "nvidia.com/"
"""``nvidia.com/gpu``, ``nvidia.com/gpu.shared``, ``nvidia.com/mig-<profile>``: integer extended resources."""


def effect_to_cloud(effect: str) -> str:
    """``NoSchedule`` -> ``NO_SCHEDULE`` (GKE and EKS spelling)."""
    return next((k for k, v in _CLOUD_EFFECTS.items() if v == effect), effect)


def effect_from_cloud(effect: Any) -> str:
    text = str(effect)
    return _CLOUD_EFFECTS.get(text, text)


def taint_from_object(obj: Any) -> Taint | None:
    """``{key, value, effect}`` as GKE, EKS or Kubernetes spell it."""
    if not isinstance(obj, Mapping) or is_unknown(obj.get("key")) or is_unknown(obj.get("effect")):
        return None
    value = obj.get("value")
    return Taint(
        str(obj.get("key") or ""),
        "" if value is None or is_unknown(value) else str(value),
        effect_from_cloud(obj.get("effect") or ""),
    )


def taint_from_string(text: Any) -> Taint | None:
    """AKS ``nodeTaints`` entry: ``key=value:Effect`` or ``key:Effect``."""
    if not isinstance(text, str) or is_unknown(text):
        return None
    key_value, _, effect = text.rpartition(":")
    if not key_value:
        return None
    key, _, value = key_value.partition("=")
    return Taint(key.strip(), value.strip(), effect.strip())


def tolerates(toleration: Any, taint: Taint) -> bool:
    if not isinstance(toleration, Mapping):
        return False
    effect = toleration.get("effect") or ""
    if effect and effect != taint.effect:
        return False
    operator = toleration.get("operator") or "Equal"
    key = toleration.get("key") or ""
    if not key:
        return operator == "Exists"
    if key != taint.key:
        return False
    if operator == "Exists":
        return True
    return str(toleration.get("value") or "") == taint.value


def untolerated(tolerations: Any, taints: list[Taint]) -> list[Taint]:
    """Repelling taints that no toleration in the list tolerates."""
    tols = as_list(tolerations)
    return [t for t in taints if t.effect in REPELLING_EFFECTS and not any(tolerates(tol, t) for tol in tols)]


def format_taint(t: Taint) -> str:
    return f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"


_SUFFIX = {
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "": Decimal(1),
    "k": Decimal(10**3),
    "M": Decimal(10**6),
    "G": Decimal(10**9),
    "T": Decimal(10**12),
    "P": Decimal(10**15),
    "E": Decimal(10**18),
    "Ki": Decimal(2**10),
    "Mi": Decimal(2**20),
    "Gi": Decimal(2**30),
    "Ti": Decimal(2**40),
    "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
}


def parse_quantity(value: Any) -> Decimal | None:
    """A Kubernetes quantity (``1``, ``0.5``, ``500m``, ``2k``, ``1e3``) as a number; None if unreadable."""
    if isinstance(value, bool) or value is None or is_unknown(value):
        return None
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    text = str(value).strip()
    try:
        number = Decimal(text)  # plain numbers and exponents (1, 0.5, 1e3)
        return number if number.is_finite() else None
    except InvalidOperation:
        pass
    for suffix in sorted((s for s in _SUFFIX if s), key=len, reverse=True):
        if text.endswith(suffix):
            try:
                return Decimal(text[: -len(suffix)]) * _SUFFIX[suffix]
            except InvalidOperation:
                return None
    return None


def resource_blocks(obj: Any, path: str = "") -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every ``resources: {limits, requests}`` mapping anywhere in a spec, with its property path.

    Found generically so pods, deployments, jobs, JobSets, KServe predictors (``spec.predictor.model``)
    and Helm values are all covered without knowing each schema.
    """
    if isinstance(obj, Mapping):
        for key, value in obj.items():
            sub = f"{path}.{key}" if path else str(key)
            if (
                key == "resources"
                and isinstance(value, Mapping)
                and ("limits" in value or "requests" in value)
            ):
                yield sub, value
            else:
                yield from resource_blocks(value, sub)
    elif isinstance(obj, (list, tuple)):
        for i, value in enumerate(obj):
            yield from resource_blocks(value, f"{path}[{i}]")
