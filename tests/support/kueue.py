"""Kueue objects as Kueue's API server takes them: the vendored CRD (``tests.support.crds``) and, on top of
it, the ClusterQueue webhook's own checks (resource names in covered order, no resource or flavor twice,
non-negative quotas, lending <= nominal, limits only with a cohort)."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from gpu_platform.addons.kueue.checks import MAX_TOTAL_FLAVORS
from tests.support import crds


def resource_flavor(**spec: Any) -> dict[str, Any]:
    """A ResourceFlavor named ``f`` with this spec."""
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ResourceFlavor",
        "metadata": {"name": "f"},
        "spec": spec,
    }


def _quantity(q: int | str) -> Decimal:
    if isinstance(q, int):
        return Decimal(q)
    suffixes = {
        "m": Decimal("0.001"),
        "Ki": 1024,
        "Mi": 1024**2,
        "Gi": 1024**3,
        "Ti": 1024**4,
        "k": 1000,
        "M": 10**6,
        "G": 10**9,
    }
    for suffix, factor in sorted(suffixes.items(), key=lambda kv: -len(kv[0])):
        if q.endswith(suffix):
            return Decimal(q[: -len(suffix)]) * Decimal(factor)
    return Decimal(q)


def webhook_problems(cq: dict[str, Any]) -> Iterator[str]:
    """Kueue's ClusterQueue webhook (pkg/webhooks/clusterqueue_webhook.go) on create."""
    spec = cq["spec"]
    cohort = "cohortName" in spec
    seen_resources: set[str] = set()
    seen_flavors: set[str] = set()
    for i, group in enumerate(spec.get("resourceGroups", [])):
        for name in group["coveredResources"]:
            if name in seen_resources:
                yield f"resourceGroups[{i}]: resource {name} in more than one group"
            seen_resources.add(name)
        for flavor in group["flavors"]:
            if flavor["name"] in seen_flavors:
                yield f"flavor {flavor['name']} in more than one group"
            seen_flavors.add(flavor["name"])
            names = [r["name"] for r in flavor["resources"]]
            if names != group["coveredResources"]:
                yield f"flavor {flavor['name']}: resources {names} must match coveredResources in order"
            for r in flavor["resources"]:
                nominal = _quantity(r["nominalQuota"])
                if nominal < 0:
                    yield f"{flavor['name']}/{r['name']}: negative nominalQuota"
                for limit in ("borrowingLimit", "lendingLimit"):
                    if limit in r and not cohort:
                        yield f"{flavor['name']}/{r['name']}: {limit} must be nil when cohort is empty"
                    if limit in r and _quantity(r[limit]) < 0:
                        yield f"{flavor['name']}/{r['name']}: negative {limit}"
                if "lendingLimit" in r and _quantity(r["lendingLimit"]) > nominal:
                    yield f"{flavor['name']}/{r['name']}: lendingLimit must be <= nominalQuota"
    total = sum(len(g["flavors"]) for g in spec.get("resourceGroups", []))
    if total > MAX_TOTAL_FLAVORS:
        yield f"{total} flavors"


def kueue_problems(obj: dict[str, Any]) -> list[str]:
    """The CRD's problems (``tests.support.crds``) plus, for a ClusterQueue, the webhook's."""
    assert obj["apiVersion"] == "kueue.x-k8s.io/v1beta2"
    found = crds.problems_of(obj)
    if obj["kind"] == "ClusterQueue":
        found += list(webhook_problems(obj))
    return found
