"""``gpu-platform plan --policy``: the rules run on the offline plan of any program and gate the exit code."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gpu_platform.cli import main
from gpu_platform.offline import Plan, run_plan, run_program
from gpu_platform.policy.offline import check_plan
from tests.conftest import REPO, planned_stack

FIXTURE = REPO / "tests" / "fixtures" / "policy-eks-nodegroup"
Capture = pytest.CaptureFixture[str]
STACKS = sorted(p.name.split(".")[1] for p in (REPO / "stacks").glob("Pulumi.*.yaml"))


def _gpu_node_group(tainted: bool) -> None:
    import pulumi
    import pulumi_aws.eks as eks

    eks.NodeGroup(
        "gpu",
        cluster_name="ml",
        node_role_arn="arn:aws:iam::000000000000:role/nodes",
        subnet_ids=["subnet-01234567"],
        instance_types=["p4d.24xlarge"],
        scaling_config=eks.NodeGroupScalingConfigArgs(min_size=0, max_size=2, desired_size=0),
        taints=[eks.NodeGroupTaintArgs(key="nvidia.com/gpu", value="present", effect="NO_SCHEDULE")]
        if tainted
        else None,
        opts=pulumi.ResourceOptions(ignore_changes=["scalingConfig.desiredSize"]),
    )


def test_untainted_gpu_node_group_made_with_the_cloud_sdk_is_a_mandatory_violation() -> None:
    violations = check_plan(run_program(lambda: _gpu_node_group(tainted=False)))
    assert [(v.policy, v.level) for v in violations] == [("gpu-pool-taint", "mandatory")]
    assert violations[0].urn.endswith("aws:eks/nodeGroup:NodeGroup::gpu")
    assert "p4d.24xlarge" in violations[0].message


def test_tainted_gpu_node_group_passes() -> None:
    assert check_plan(run_program(lambda: _gpu_node_group(tainted=True))) == []


def plan_cli(stack: str, out: Path, *extra: str) -> int:
    return main(["plan", "--project", str(FIXTURE), "--stack", stack, "--out", str(out), *extra])


def test_cli_policy_exits_1_on_a_mandatory_violation(tmp_path: Path, capsys: Capture) -> None:
    rc = plan_cli("bad", tmp_path / "bad", "--policy")
    err = capsys.readouterr().err
    assert rc == 1
    assert "mandatory: [gpu-pool-taint]" in err
    assert "mandatory: [autoscaled-pool-ignores-size]" in err
    assert (tmp_path / "bad" / "plan.json").exists(), "the plan is still written for review"


def test_cli_policy_exits_0_when_the_rules_pass(tmp_path: Path, capsys: Capture) -> None:
    from gpu_platform.policy.rules import RULES

    assert plan_cli("good", tmp_path / "good", "--policy") == 0
    err = capsys.readouterr().err
    assert "mandatory" not in err
    # A clean run says so: one line, naming how much was checked.
    resources = len(run_plan(FIXTURE, "good").resources)
    assert (
        err.splitlines()[-1] == f"policy: passed, no violations ({len(RULES)} rules on {resources} resources)"
    )


def test_cli_policy_closes_with_the_counts_of_each_level(tmp_path: Path, capsys: Capture) -> None:
    assert plan_cli("bad", tmp_path / "bad", "--policy") == 1
    lines = capsys.readouterr().err.splitlines()
    mandatory = sum(1 for line in lines if line.startswith("mandatory: "))
    advisory = sum(1 for line in lines if line.startswith("advisory: "))
    assert mandatory >= 2
    assert lines[-1].startswith(f"policy: failed, {mandatory} mandatory and {advisory} advisory violations (")


def test_cli_without_policy_prints_no_policy_line(tmp_path: Path, capsys: Capture) -> None:
    assert plan_cli("bad", tmp_path / "p") == 0
    assert "policy:" not in capsys.readouterr().err


def test_cli_without_policy_does_not_gate(tmp_path: Path) -> None:
    assert plan_cli("bad", tmp_path / "p") == 0


@pytest.fixture(scope="module", params=STACKS)
def stack_plan(request: pytest.FixtureRequest) -> Plan:
    return planned_stack(request.param)


def test_the_library_stacks_pass_their_own_policy(stack_plan: Plan) -> None:
    mandatory = [v for v in check_plan(stack_plan) if v.level == "mandatory"]
    assert mandatory == []


def test_the_rules_see_the_library_gpu_pools(stack_plan: Plan) -> None:
    """Strip the GPU taint from the library's own GPU pools: the rule must notice, so it really reads them."""
    from gpu_platform.policy.node_pool_readers import gpu_pools
    from gpu_platform.policy.offline import to_policy_resource

    pools = gpu_pools([to_policy_resource(r) for r in stack_plan.resources])
    assert pools, "every stack has GPU pools"
    gpu_urns = {p.resource.urn for p in pools}
    stripped = []
    for r in stack_plan.resources:
        if r.urn in gpu_urns:
            inputs = {k: v for k, v in r.inputs.items() if k not in ("taints", "nodeTaints")}
            if "nodeConfig" in inputs:
                inputs["nodeConfig"] = {k: v for k, v in inputs["nodeConfig"].items() if k != "taints"}
            r = dataclasses.replace(r, inputs=inputs)
        stripped.append(r)
    flagged = {
        v.urn
        for v in check_plan(dataclasses.replace(stack_plan, resources=stripped))
        if v.policy == "gpu-pool-taint"
    }
    assert flagged == gpu_urns
