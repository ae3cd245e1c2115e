"""EFA pools on an attached EKS cluster: the interfaces get the given cluster security group, one subnet (the
placement group's zone); without the security groups the pool is refused."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpu_platform.errors import ConfigError
from gpu_platform.offline import Plan, run_plan
from gpu_platform.stack import load_platform
from tests.conftest import REPO

SG = "sg-0123456789abcdef0"
STACK: dict[str, Any] = {
    "cloud": "eks",
    "cluster": {
        "name": "attached",
        "region": "us-east-1",
        "create": False,
        "kubeconfig": {"secure": "v1:placeholder"},
        "existingNodeRoleArn": "arn:aws:iam::111122223333:role/nodes",
        "existingSubnetIds": ["subnet-0a1b2c3d", "subnet-0e1f2a3b"],
        "existingSecurityGroupIds": [SG],
    },
    "gpuPools": [
        {"name": "h100-efa", "machineType": "p5.48xlarge", "maxNodes": 2, "efa": True, "topology": True},
        {"name": "l4", "machineType": "g6.2xlarge", "maxNodes": 2},
    ],
}


@pytest.fixture(scope="module")
def plan() -> Plan:
    return run_plan(REPO, "prod", config_override=copy.deepcopy(STACK))


def _node_group(plan: Plan, pool: str) -> dict[str, Any]:
    (ng,) = [r for r in plan.by_type("aws:eks/nodeGroup:NodeGroup") if r.name == f"{pool}-nodegroup"]
    return ng.inputs


def test_efa_interfaces_carry_the_cluster_security_group(plan: Plan) -> None:
    (lt,) = [r for r in plan.by_type("aws:ec2/launchTemplate:LaunchTemplate") if r.name == "h100-efa-lt"]
    interfaces = lt.inputs["networkInterfaces"]
    assert len(interfaces) == 32
    assert all(i["securityGroups"] == [SG] for i in interfaces)
    assert "placement" in lt.inputs


def test_the_efa_pool_uses_one_subnet_the_others_all(plan: Plan) -> None:
    assert _node_group(plan, "h100-efa")["subnetIds"] == ["subnet-0a1b2c3d"]
    assert _node_group(plan, "l4")["subnetIds"] == ["subnet-0a1b2c3d", "subnet-0e1f2a3b"]


def test_without_security_groups_the_efa_pool_is_refused() -> None:
    cfg = copy.deepcopy(STACK)
    del cfg["cluster"]["existingSecurityGroupIds"]
    cfg["cluster"]["kubeconfig"] = (
        "apiVersion: v1"  # load_platform sees plain values, as Pulumi decrypted them
    )
    with pytest.raises(ConfigError) as err:
        load_platform(cfg)
    assert (
        "gpu-platform:gpuPools[0].efa: EFA on an attached cluster needs cluster.existingSecurityGroupIds"
        in str(err.value)
    )
