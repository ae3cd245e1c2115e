"""Outputs are accepted where a value need not be known at plan time: the cluster components' access lists
(authorized CIDRs, admin groups) only fill one property of the cloud's cluster resource, so they may come
from other resources (a NAT gateway's address, an ``azuread.Group``). Arguments that decide which resources
exist or what they contain stay plain and refuse an Output, with the reason."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from gpu_platform import AksCluster, ArgumentsError, EksCluster, GkeCluster
from gpu_platform.clouds.cluster_inputs import each, is_known, sequence
from gpu_platform.offline import run_program
from tests.support.provider import served

TOKEN = "gpu-platform:index:"
OUTPUT_INPUTS = {
    ("GkeCluster", "masterAuthorizedCidrs"),
    ("EksCluster", "publicAccessCidrs"),
    ("AksCluster", "adminGroupObjectIds"),
    ("AksCluster", "authorizedIpRanges"),
}
NAT = "203.0.113.7/32"
GROUP = "00000000-0000-0000-0000-000000000001"
CONFIG = {"gcp:project": "p", "aws:region": "us-east-1"}


@pytest.mark.parametrize(("component", "prop"), sorted(OUTPUT_INPUTS))
def test_the_schema_lets_other_languages_pass_outputs(component: str, prop: str) -> None:
    definition = served()["resources"][TOKEN + component]["inputProperties"][prop]
    assert definition["type"] == "array" and definition["items"]["type"] == "string"
    assert "plain" not in definition and "plain" not in definition["items"]


def test_plan_time_inputs_of_the_clusters_stay_plain() -> None:
    """What names resources or sizes the network is needed while planning."""
    inputs = {c: served()["resources"][TOKEN + c]["inputProperties"] for c in ("GkeCluster", "EksCluster")}
    assert inputs["GkeCluster"]["clusterName"]["plain"] is True
    assert inputs["GkeCluster"]["networkCidr"]["plain"] is True
    assert inputs["EksCluster"]["vpcCidr"]["plain"] is True
    assert inputs["EksCluster"]["availabilityZones"]["plain"] is True


def _clusters(make_cidrs: Any, make_groups: Any) -> Any:
    """Plan the three clusters; the values are made inside the program, where Outputs belong."""

    def program() -> None:
        cidrs, groups = make_cidrs(), make_groups()
        GkeCluster("g", {"location": "us-central1", "project": "p", "master_authorized_cidrs": cidrs})
        EksCluster("e", {"region": "us-east-1", "public_access_cidrs": cidrs})
        AksCluster(
            "a", {"location": "westeurope", "admin_group_object_ids": groups, "authorized_ip_ranges": cidrs}
        )

    return run_program(program, config=CONFIG)


@pytest.mark.parametrize(
    ("cidrs", "groups"),
    [
        (lambda: pulumi.Output.from_input([NAT]), lambda: pulumi.Output.from_input([GROUP])),
        (lambda: [pulumi.Output.from_input(NAT)], lambda: [pulumi.Output.from_input(GROUP)]),
        (lambda: [NAT], lambda: [GROUP]),
    ],
    ids=["output-lists", "lists-of-outputs", "known"],
)
def test_outputs_reach_the_cloud_resources(cidrs: Any, groups: Any) -> None:
    plan = _clusters(cidrs, groups)
    gke = plan.one("gcp:container/cluster:Cluster").inputs
    assert gke["masterAuthorizedNetworksConfig"]["cidrBlocks"] == [{"cidrBlock": NAT, "displayName": NAT}]
    assert plan.one("aws:eks/cluster:Cluster").inputs["vpcConfig"]["publicAccessCidrs"] == [NAT]
    aks = plan.one("azure-native:containerservice:ManagedCluster").inputs
    assert aks["aadProfile"]["adminGroupObjectIDs"] == [GROUP]
    assert aks["apiServerAccessProfile"]["authorizedIPRanges"] == [NAT]


def test_absent_and_empty_lists_leave_the_setting_out() -> None:
    plan = _clusters(list, list)
    assert "masterAuthorizedNetworksConfig" not in plan.one("gcp:container/cluster:Cluster").inputs
    assert "publicAccessCidrs" not in plan.one("aws:eks/cluster:Cluster").inputs["vpcConfig"]
    aks = plan.one("azure-native:containerservice:ManagedCluster").inputs
    assert "adminGroupObjectIDs" not in aks["aadProfile"] and "apiServerAccessProfile" not in aks


def test_a_plan_time_argument_given_an_output_is_refused_with_the_reason() -> None:
    def program() -> None:
        # What a program without a type checker could pass: the annotations already say vpc_cidr is plain.
        args: Any = {"region": "us-east-1", "vpc_cidr": pulumi.Output.from_input("10.0.0.0/16")}
        EksCluster("e", args)

    with pytest.raises(ArgumentsError) as err:
        run_program(program, config=CONFIG)
    assert "vpc_cidr: must be known at plan time (a plain value, not an Output)" in str(err.value)


def test_the_helpers() -> None:
    seen: dict[str, Any] = {}

    def program() -> None:
        out = pulumi.Output.from_input(["a"])
        seen["known"] = is_known(["a", "b"]) and not is_known(out)
        seen["nested"] = is_known(["a", pulumi.Output.from_input("b")])
        seen["sequences"] = (sequence(None), sequence([]), sequence(("a",)), sequence(out) is out)
        seen["each"] = each(["a", "b"], str.upper)
        seen["later"] = isinstance(each(out, str.upper), pulumi.Output)

    run_program(program)
    assert seen == {
        "known": True,
        "nested": False,
        "sequences": (None, None, ["a"], True),
        "each": ["A", "B"],
        "later": True,
    }
