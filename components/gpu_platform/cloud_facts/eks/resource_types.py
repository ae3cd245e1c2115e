"""The AWS resource types the library creates, as the offline plan and ``gpu-platform diff`` must know them:
what the provider cannot change in place, what holds state, and the outputs a mock must return."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gpu_platform.cloud_facts.karpenter import NODE_POOL_RULES, node_class_rules
from gpu_platform.diff_rule import SHARING_CHANGE, DiffRule, changes, gone

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
CLUSTER = "aws:eks/cluster:Cluster"
AMP_WORKSPACE = "aws:amp/workspace:Workspace"

FORCE_NEW: dict[str, tuple[str, ...]] = {
    # terraform-provider-aws internal/service/ec2/vpc_subnet.go: cidr_block, availability_zone(_id),
    # vpc_id are ForceNew.
    "aws:ec2/subnet:Subnet": ("cidrBlock", "availabilityZone", "availabilityZoneId", "vpcId"),
    # terraform-provider-aws internal/service/ec2/vpc_.go: cidr_block is ForceNew.
    "aws:ec2/vpc:Vpc": ("cidrBlock",),
    # terraform-provider-aws internal/service/eks/cluster.go: name and role_arn are ForceNew.
    CLUSTER: ("name", "roleArn"),
    # terraform-provider-aws internal/service/eks/node_group.go: these arguments are ForceNew.
    NODE_GROUP: (
        "clusterName",
        "nodeGroupName",
        "nodeGroupNamePrefix",
        "amiType",
        "instanceTypes",
        "capacityType",
        "subnetIds",
        "nodeRoleArn",
        "diskSize",
    ),
    # terraform-provider-aws internal/service/amp/workspace.go: kms_key_arn is ForceNew (and removing the
    # alias forces a new workspace, CustomizeDiff; the library always sets one).
    AMP_WORKSPACE: ("kmsKeyArn",),
}
IN_PLACE_IF: dict[tuple[str, str], Callable[[Any, Any], bool]] = {}
INSTANCE = "aws:ec2/instance:Instance"
"""A ``GpuDockerHost``'s VM."""

DIFF_RULES: tuple[DiffRule, ...] = (
    changes(
        NODE_GROUP,
        "reconfigures GPUs",
        "the GPU Operator's MIG manager repartitions the GPUs of every node of the group, evicting their pods",
        'labels["nvidia.com/mig.config"]',
        field="nvidia.com/mig.config",
    ),
    changes(
        NODE_GROUP,
        "strands queued work",
        SHARING_CHANGE,
        'labels["gpu-platform.io/sharing"]',
        field="gpu-platform.io/sharing",
    ),
    # terraform-provider-aws internal/service/ec2/ec2_instance.go: a new instance_type is applied by stopping and
    # starting the instance.
    changes(
        INSTANCE,
        "restarts workloads",
        "EC2 stops the instance to change its type and starts it again: its Compose services restart at boot",
        "instanceType",
    ),
    # terraform-provider-aws: user_data_replace_on_change (the Docker host sets it: cloud-init runs only on first
    # boot) replaces the instance when its user data changes.
    changes(
        INSTANCE,
        "replaces nodes",
        "EC2 replaces the instance (user_data_replace_on_change): its services stop, and a new instance boots the "
        "new Compose file",
        "userData",
        when=lambda inputs: inputs.get("userDataReplaceOnChange") is True,
        when_text="with user_data_replace_on_change",
    ),
    gone(
        INSTANCE,
        "deletes data",
        "its root volume goes with it (delete_on_termination): whatever the Compose services wrote to the host "
        "(model caches, volumes) is lost",
    ),
    *NODE_POOL_RULES,
    *node_class_rules("karpenter.k8s.aws", "EC2NodeClass"),
)
"""What ``gpu-platform diff`` flags in these resources beyond their replacement (``gpu_platform.diff_rule``)."""
STATEFUL = frozenset({CLUSTER, "aws:ec2/vpc:Vpc", "aws:ec2/subnet:Subnet", NODE_GROUP, AMP_WORKSPACE})
"""An AMP workspace holds the metrics written to it."""
NODE_POOLS = frozenset({NODE_GROUP})


def mock_state(type_: str, name: str, inputs: Mapping[str, Any]) -> dict[str, Any]:
    """Outputs the provider would add, which later code reads."""
    if type_.startswith(CLUSTER):
        return {
            "endpoint": f"https://{name}.eks.example",
            "certificateAuthority": {"data": "Q0E="},
            "identities": [{"oidcs": [{"issuer": f"https://oidc.eks.example/id/{name}"}]}],
            "arn": f"arn:aws:eks:region:000000000000:cluster/{name}",
            "vpcConfig": {**inputs.get("vpcConfig", {}), "clusterSecurityGroupId": f"sg-{name}"},
        }
    if type_.startswith(NODE_GROUP):
        group = f"eks-{inputs.get('nodeGroupName', name)}-mock-asg"
        return {"resources": [{"autoscalingGroups": [{"name": group}]}]}
    if type_.startswith("aws:ec2/launchTemplate:LaunchTemplate"):
        return {"latestVersion": 1, "defaultVersion": 1}
    if type_.startswith("aws:iam/role:Role") or type_.startswith("aws:iam/openIdConnectProvider"):
        return {"arn": f"arn:aws:iam::000000000000:role/{name}"}
    if type_.startswith("aws:sqs/queue:Queue"):
        return {
            "arn": f"arn:aws:sqs:mock-region-1:000000000000:{name}",
            "url": f"https://sqs.mock-region-1.amazonaws.com/000000000000/{name}",
        }
    if type_.startswith(AMP_WORKSPACE):
        arn = f"arn:aws:aps:mock-region-1:000000000000:workspace/ws-{name}"
        endpoint = f"https://aps-workspaces.mock-region-1.amazonaws.com/workspaces/ws-{name}/"
        return {"arn": arn, "prometheusEndpoint": endpoint}
    if type_.startswith("aws:iam/policy:Policy"):
        return {"arn": f"arn:aws:iam::000000000000:policy/{name}"}
    return {}


def mock_call(token: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
    if token == "aws:index/getCallerIdentity:getCallerIdentity":
        return {"accountId": "000000000000", "arn": "arn:aws:iam::000000000000:user/mock", "userId": "mock"}
    if token == "aws:index/getPartition:getPartition":
        return {
            "id": "aws",
            "partition": "aws",
            "dnsSuffix": "amazonaws.com",
            "reverseDnsPrefix": "com.amazonaws",
        }
    if token == "aws:index/getRegion:getRegion":
        region = args.get("region") or "mock-region-1"
        return {"id": region, "name": region, "region": region, "description": "mock", "endpoint": ""}
    if token == "aws:ssm/getParameter:getParameter":
        return {"value": "1.33.0-20260101", "name": args.get("name", ""), "type": "String"}
    if token == "aws:index/getAvailabilityZones:getAvailabilityZones":
        region = args.get("region") or "mock-region-1"
        names = [f"{region}{suffix}" for suffix in "abc"]
        return {"id": region, "names": names, "zoneIds": [f"mock1-az{i}" for i in (1, 2, 3)]}
    return None
