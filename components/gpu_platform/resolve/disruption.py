"""Karpenter disruption settings checked against the NodePool CRD's patterns and CEL rules, shared by every
cloud that runs Karpenter (EKS, AKS Node Auto Provisioning): a bad duration or budget is refused at its key
before anything is planned, instead of failing at ``pulumi up`` in the API server."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpu_platform.args.autoprovisioning import (
    DEFAULT_BUDGET_NODES,
    DEFAULT_CONSOLIDATE_AFTER,
    DEFAULT_EXPIRE_AFTER,
)
from gpu_platform.errors import Problems

_DURATION = re.compile(r"^(([0-9]+(s|m|h))+|Never)$")
"""``consolidateAfter``/``expireAfter`` (karpenter.sh_nodepools.yaml)."""
_GRACE = re.compile(r"^([0-9]+(s|m|h))+$")
_BUDGET_NODES = re.compile(r"^((100|[0-9]{1,2})%|[0-9]+)$")
_BUDGET_DURATION = re.compile(r"^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$")
_CRON = re.compile(
    r"^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$"
)


@dataclass(frozen=True)
class Disruption:
    """A NodePool's disruption settings, checked; the defaults never consolidate a node running a job."""

    consolidate_after: str = DEFAULT_CONSOLIDATE_AFTER
    expire_after: str = DEFAULT_EXPIRE_AFTER
    termination_grace_period: str | None = None
    budgets: tuple[Mapping[str, Any], ...] = ({"nodes": DEFAULT_BUDGET_NODES},)


def resolve_disruption(args: Mapping[str, Any], p: Problems) -> Disruption:
    """``KarpenterDisruptionArgs`` checked against the NodePool CRD's patterns and CEL rules."""
    for key in ("consolidate_after", "expire_after"):
        if key in args and not _DURATION.match(args[key]):
            p.add((key,), f"{args[key]!r} is not a duration like '5m', '1h30m' or 'Never'")
    grace = args.get("termination_grace_period")
    if grace is not None and not _GRACE.match(grace):
        p.add(("termination_grace_period",), f"{grace!r} is not a duration like '24h'")
    budgets = []
    for i, b in enumerate(args.get("budgets", ({"nodes": DEFAULT_BUDGET_NODES},))):
        if not _BUDGET_NODES.match(b["nodes"]):
            p.add(
                ("budgets", i, "nodes"), f"{b['nodes']!r} is not a node count ('1') or a percentage ('10%')"
            )
        if ("schedule" in b) != ("duration" in b):
            p.add(("budgets", i), "'schedule' and 'duration' go together")
        if "schedule" in b and not _CRON.match(b["schedule"]):
            p.add(("budgets", i, "schedule"), f"{b['schedule']!r} is not a cron schedule")
        if "duration" in b and not _BUDGET_DURATION.match(b["duration"]):
            p.add(("budgets", i, "duration"), f"{b['duration']!r} is not a duration like '8h' or '1h30m'")
        budgets.append(dict(b))
    if not budgets:
        p.add(("budgets",), "at least one budget; '0' nodes forbids voluntary disruption")
    return Disruption(
        args.get("consolidate_after", DEFAULT_CONSOLIDATE_AFTER),
        args.get("expire_after", DEFAULT_EXPIRE_AFTER),
        grace,
        tuple(budgets),
    )
