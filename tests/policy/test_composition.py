"""``composition-agrees``: pieces composed by hand from different pool lists are caught; the same pieces made
from one list (or by ``GpuPlatform`` and the stack file) pass."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from gpu_platform import EksGpuNodePool, GkeGpuNodePool, GpuOperator, GpuPoolArgs
from gpu_platform.offline import run_plan, run_program
from gpu_platform.policy.offline import check_plan, to_policy_resource
from gpu_platform.policy.rules import composition_agrees
from gpu_platform.policy_model.model import UNKNOWN
from tests.conftest import REPO

SLICED: GpuPoolArgs = {
    "name": "l4",
    "machine_type": "g2-standard-8",
    "max_nodes": 3,
    "sharing": {"mode": "time-slicing", "replicas": 4},
}
OTHER: GpuPoolArgs = {
    "name": "l4b",
    "machine_type": "g2-standard-8",
    "max_nodes": 3,
    "sharing": {"mode": "time-slicing", "replicas": 2},
}


def composed_program(node_pool: GpuPoolArgs, operator_pools: list[Any]) -> None:
    GkeGpuNodePool(node_pool["name"], {"cluster": "c", "location": "europe-west4", "pool": node_pool})
    GpuOperator("gpu-operator", {"cloud": "gke", "pools": operator_pools})


def composed(node_pool: GpuPoolArgs, operator_pools: list[Any]) -> list[tuple[str, str]]:
    """Violations of the composition rule for a GKE node pool and an operator given ``operator_pools``."""
    violations = check_plan(run_program(lambda: composed_program(node_pool, operator_pools)))
    return [(v.level, v.message) for v in violations if v.policy == "composition-agrees"]


def test_one_pool_list_for_both_passes() -> None:
    assert composed(SLICED, [SLICED, OTHER]) == []


def test_time_sliced_node_pool_with_an_unshared_operator_pool_is_mandatory() -> None:
    """The issue's case: the node pool time-slices, the operator was given ``sharing: none`` for it, so the
    nodes name a config that does not exist."""
    [(level, message)] = composed(SLICED, [{**SLICED, "sharing": {"mode": "none"}}, OTHER])
    assert level == "mandatory"
    assert "nvidia.com/device-plugin.config=l4-time-slicing-4" in message
    assert "does not define (it defines l4b-time-slicing-2)" in message


def test_operator_without_any_device_plugin_config() -> None:
    [(_, message)] = composed(SLICED, [{**SLICED, "sharing": {"mode": "none"}}])
    assert "(it defines none: devicePlugin.config is not set)" in message


def test_replicas_that_differ_name_a_config_that_is_not_there() -> None:
    [(_, message)] = composed(SLICED, [{**SLICED, "sharing": {"mode": "time-slicing", "replicas": 2}}])
    assert "l4-time-slicing-4" in message and "it defines l4-time-slicing-2" in message


def _labelled_pool(labels: dict[str, str]) -> None:
    """A node pool made with the cloud SDK, its labels written by hand."""
    import pulumi_gcp.container as gke

    gke.NodePool(
        "hand",
        cluster="c",
        location="europe-west4",
        node_config=gke.NodePoolNodeConfigArgs(
            machine_type="g2-standard-8",
            guest_accelerators=[gke.NodePoolNodeConfigGuestAcceleratorArgs(type="nvidia-l4", count=1)],
            labels={"gke-no-default-nvidia-gpu-device-plugin": "true", **labels},
            taints=[
                gke.NodePoolNodeConfigTaintArgs(key="nvidia.com/gpu", value="present", effect="NO_SCHEDULE")
            ],
        ),
    )


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        # Says time-sliced, points at the operator's unshared config.
        (
            {"gpu-platform.io/sharing": "time-slicing", "nvidia.com/device-plugin.config": "l4-mps-2"},
            "says gpu-platform.io/sharing=time-slicing, but GPU Operator 'gpu-operator-helm' gives its nodes "
            "config 'l4-mps-2', which shares by mps",
        ),
        # Says unshared, but names a time-slicing config: the nodes advertise four per GPU.
        (
            {"gpu-platform.io/sharing": "none", "nvidia.com/device-plugin.config": "l4b-time-slicing-2"},
            "says gpu-platform.io/sharing=none, but GPU Operator 'gpu-operator-helm' gives its nodes config "
            "'l4b-time-slicing-2', which shares by time-slicing",
        ),
        # Says time-sliced, names no config: the built-in one shares nothing.
        (
            {"gpu-platform.io/sharing": "time-slicing"},
            "gives its nodes the device plugin's built-in config, which shares nothing",
        ),
    ],
)
def test_sharing_label_and_chosen_config_disagree(labels: dict[str, str], expected: str) -> None:
    mps: GpuPoolArgs = {**OTHER, "name": "l4", "sharing": {"mode": "mps", "replicas": 2}}

    def program() -> None:
        _labelled_pool(labels)
        GpuOperator("gpu-operator", {"cloud": "gke", "pools": [mps, OTHER]})

    found = [v.message for v in check_plan(run_program(program)) if v.policy == "composition-agrees"]
    assert len(found) == 1 and expected in found[0], found


def test_unknown_labels_stay_silent() -> None:
    """A label known only at deploy time (as in a preview): the rule cannot tell, so it says nothing."""
    plan = run_program(lambda: composed_program(SLICED, [{**SLICED, "sharing": {"mode": "none"}}]))
    resources = [to_policy_resource(r) for r in plan.resources]
    assert [v.policy for v in composition_agrees(resources)] == ["composition-agrees"]
    unknown = []
    for r in resources:
        if r.type == "gcp:container/nodePool:NodePool":
            labels = {**r.props["nodeConfig"]["labels"], "nvidia.com/device-plugin.config": UNKNOWN}
            r = dataclasses.replace(
                r, props={**r.props, "nodeConfig": {**r.props["nodeConfig"], "labels": labels}}
            )
        unknown.append(r)
    assert composition_agrees(unknown) == []


def test_eks_pools_are_checked_too() -> None:
    pool: GpuPoolArgs = {
        "name": "a10",
        "machine_type": "g5.2xlarge",
        "max_nodes": 2,
        "sharing": {"mode": "time-slicing", "replicas": 3},
    }

    def program() -> None:
        EksGpuNodePool(
            "a10",
            {
                "cluster_name": "c",
                "node_role_arn": "arn:aws:iam::123456789012:role/nodes",
                "subnet_ids": ["subnet-0123456789abcdef0"],
                "pool": pool,
            },
        )
        GpuOperator("gpu-operator", {"cloud": "eks", "pools": [{**pool, "sharing": {"mode": "none"}}]})

    [message] = [v.message for v in check_plan(run_program(program)) if v.policy == "composition-agrees"]
    assert "nvidia.com/device-plugin.config=a10-time-slicing-3" in message


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_the_stack_files_pass(stack: str) -> None:
    assert [v for v in check_plan(run_plan(REPO, stack)) if v.policy == "composition-agrees"] == []
