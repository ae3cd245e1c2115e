"""A wrong type in one setting no longer hides the other problems of its section: the section (a pool, a service)
is checked without the setting that has the wrong type, so one run reports both, each once, and nothing said about
the left-out setting follows from it."""

from __future__ import annotations

from typing import Any

from tests.support.refusals import config_problems
from tests.support.stacks import existing


def test_a_kueue_type_error_and_a_team_name_error_are_reported_together() -> None:
    raw = existing()
    kueue = {
        "vmMemoryOverheadPercent": "five",
        "teams": [{"name": "ML_Team", "namespace": "ml", "clusterQueue": "gpu"}],
    }
    problems = config_problems({**raw, "kueue": kueue})
    assert "is not a number" in problems["gpu-platform:kueue.vmMemoryOverheadPercent"]
    assert "is not a valid name" in problems["gpu-platform:kueue.teams[0].name"]


def test_a_pool_type_error_and_a_sharing_error_are_reported_together() -> None:
    raw = existing()
    pools: list[Any] = [dict(p) for p in raw["gpuPools"]]
    pools[1] = {**pools[1], "labels": "team=ml", "sharing": {"mode": "mig", "mig": {"profiles": ["1g.10gb"]}}}
    problems = config_problems({**raw, "gpuPools": pools})
    assert "is not a mapping" in problems["gpu-platform:gpuPools[1].labels"]
    assert "gpu-platform:gpuPools[1].sharing.mode" in problems, problems


def test_a_left_out_switch_says_nothing_about_what_it_switches() -> None:
    raw = existing()
    problems = config_problems({**raw, "slurm": {"enabled": "yes", "pools": ["nope"]}})
    assert "is not true or false" in problems["gpu-platform:slurm.enabled"]
    assert [k for k in problems if k.startswith("gpu-platform:slurm")] == ["gpu-platform:slurm.enabled"]


def test_a_left_out_setting_adds_no_second_line_at_its_key() -> None:
    raw = existing()
    cluster = {**raw["cluster"], "kubeconfigStackReference": {"output": "kubeconfig"}}
    del cluster["kubeconfig"]
    problems = config_problems({**raw, "cluster": cluster})
    assert list(problems) == ["gpu-platform:cluster.kubeconfigStackReference.stack"]
