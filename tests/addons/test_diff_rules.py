"""Every add-on says what of it ``gpu-platform diff`` flags, next to its own resources: its registry entry cannot be
made without ``diff_rules`` (even empty), its rules name its own charts, and the clouds' rules name their own
resource types. Each rule is well formed (paths the engine's syntax, a known effect)."""

from __future__ import annotations

import dataclasses

import pytest

from gpu_platform import releases
from gpu_platform.addons import registry
from gpu_platform.addons.registry import ADDONS
from gpu_platform.cloud_facts import PROFILES
from gpu_platform.diff_rule import EFFECTS, DiffRule, changes, gone, kind
from gpu_platform.offline.diff_rules import RULES
from gpu_platform.offline.paths import parse_path

PROVIDER = {"gke": "gcp:", "eks": "aws:", "aks": "azure-native:"}


def test_an_addon_entry_without_diff_rules_is_refused() -> None:
    with pytest.raises(TypeError, match="diff_rules"):
        registry.Addon("new", (), None)  # type: ignore[call-arg]
    assert all(isinstance(a.diff_rules, tuple) for a in ADDONS)


def test_addon_rules_name_only_the_addons_own_charts() -> None:
    for a in ADDONS:
        own = {f"chart:{r.chart_name}" for r in a.releases}
        charts = {r.target for r in a.diff_rules if r.target.startswith("chart:")}
        assert charts <= own, (a.name, charts - own)


def test_every_scheduler_and_driver_addon_declares_rules() -> None:
    """What runs or queues GPU work (Kueue, Volcano, Slurm) or loads a node driver (the GPU Operator) costs work
    when it changes: its rules cannot be empty."""
    schedulers = {a.name for a in ADDONS if any(r.gang_scheduler for r in a.releases)}
    driver = {a.name for a in ADDONS if releases.GPU_OPERATOR in a.releases}
    assert schedulers | driver == {"kueue", "volcano", "slurm", "gpu_operator"}
    assert all(a.diff_rules for a in ADDONS if a.name in schedulers | driver)


@pytest.mark.parametrize("cloud", sorted(PROVIDER))
def test_cloud_rules_name_their_own_types_and_cover_every_node_pool(cloud: str) -> None:
    types = PROFILES[cloud].resource_types
    for rule in types.diff_rules:
        assert rule.target.startswith(PROVIDER[cloud]) or ":" not in rule.target, rule.target
    covered = {r.target for r in types.diff_rules if r.effect == "reconfigures GPUs"}
    assert types.node_pools <= covered, "a node pool's MIG layout label repartitions its GPUs"


def test_every_rule_is_well_formed() -> None:
    rules = [r for a in ADDONS for r in a.diff_rules] + [
        r for p in PROFILES.values() for r in p.resource_types.diff_rules
    ]
    assert rules
    for rule in rules:
        assert rule.effect in EFFECTS and rule.reason
        for path in rule.paths:
            assert parse_path(path), path
        assert rule in RULES[rule.target]


def test_a_rule_has_exactly_one_trigger() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        DiffRule("x", "deletes data", "why")
    with pytest.raises(ValueError, match="exactly one"):
        dataclasses.replace(changes(kind("g", "K"), "deletes data", "why", "spec"), gone=True)
    with pytest.raises(ValueError, match="when and when_text"):
        gone("x", "deletes data", "why", when=lambda inputs: True)
