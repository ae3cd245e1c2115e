"""Karpenter on EKS: the controller with its IAM and interruption queue, and per GPU pool an ``EC2NodeClass`` beside
the ``karpenter.sh/v1`` NodePool (``plans.karpenter``).

Sources (tests/upstream/NEW_COMPONENTS_NOTES.md sections 7 and 8, files under tests/upstream/karpenter-*):
the getting-started CloudFormation template at v1.14.1 (node role, the six controller policies, the SQS
queue, its policy and the five EventBridge rules; reproduced statement for statement and compared with the
template by the tests), the chart's values.yaml, concepts/disruption.md, and the CRDs the objects are
validated against.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_platform import scheduling, versions
from gpu_platform.args.autoprovisioning import DEFAULT_KARPENTER_REPLICAS
from gpu_platform.cloud_facts.eks.profile import AL2023, BOTTLEROCKET, karpenter_ami_alias
from gpu_platform.clouds.eks.args import DEFAULT_AMI_VERSION, DISCOVERY_TAG
from gpu_platform.clouds.eks.instance_store_plan import RAID0
from gpu_platform.driver import DriverPlan
from gpu_platform.mirror import Mirror
from gpu_platform.plans.helm import deep_merge
from gpu_platform.plans.karpenter import (
    DO_NOT_DISRUPT,
    capacity_types,
    node_pool,
    pool_base,
    requirement,
)
from gpu_platform.plans.node_pool_plan import NodePoolPlan
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.disruption import Disruption

EC2NODECLASS_API = "karpenter.k8s.aws/v1"
RELEASE_NAME = "karpenter"
"""Fixed: the chart names its ServiceAccount after the release, and Pod Identity binds that name."""
CRD_RELEASE_NAME = "karpenter-crd"
SERVICE_ACCOUNT = "karpenter"
CONTROLLER_RESOURCES = {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}
"""Karpenter's getting-started (step08-apply-helm-chart.sh)."""
NODE_POLICIES = ("AmazonEKS_CNI_Policy", "AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryPullOnly")
"""The getting-started node role's managed policies, without AmazonSSMManagedInstanceCore (Session Manager
access to GPU nodes; the library's node roles carry only what nodes need, like ``EksCluster``'s)."""
INTERRUPTION_RULES: dict[str, dict[str, list[str]]] = {
    "scheduled-change": {"source": ["aws.health"], "detail-type": ["AWS Health Event"]},
    "spot-interruption": {"source": ["aws.ec2"], "detail-type": ["EC2 Spot Instance Interruption Warning"]},
    "rebalance": {"source": ["aws.ec2"], "detail-type": ["EC2 Instance Rebalance Recommendation"]},
    "instance-state-change": {
        "source": ["aws.ec2"],
        "detail-type": ["EC2 Instance State-change Notification"],
    },
    "capacity-reservation-interruption": {
        "source": ["aws.ec2"],
        "detail-type": ["EC2 Capacity Reservation Instance Interruption Warning"],
    },
}
"""EventBridge rules feeding the interruption queue (getting-started CloudFormation, v1.14.1)."""
QUEUE_RETENTION_SECONDS = 300
EVENT_TARGET_ID = "KarpenterInterruptionQueueTarget"


@dataclass(frozen=True)
class EksKarpenterPoolPlan(NodePoolPlan):
    ami_alias: str = f"al2023@{DEFAULT_AMI_VERSION}"
    disruption: Disruption = field(default_factory=Disruption)

    @property
    def pod_annotations(self) -> dict[str, str]:
        """Annotations a job's pods should carry on this pool."""
        return dict(DO_NOT_DISRUPT)


def eks_karpenter_pool_plan(
    pool: GpuPool, driver: DriverPlan, inputs: Mapping[str, Any], disruption: Disruption
) -> EksKarpenterPoolPlan:
    """A GPU pool's NodePool and EC2NodeClass, from the stack's pools or ``checks.karpenter_pool_args``."""
    alias = karpenter_ami_alias(pool, inputs.get("ami_version"))
    assert alias is not None, "a Karpenter pool without an AMI release is refused by its checks"
    return EksKarpenterPoolPlan(
        **pool_base(pool, driver, inputs),
        ami_alias=alias,
        disruption=disruption,
    )


def eks_requirements(pool: GpuPool) -> list[dict[str, Any]]:
    assert pool.machine is not None
    out = [
        requirement("node.kubernetes.io/instance-type", pool.machine.name),
        requirement("karpenter.sh/capacity-type", *capacity_types(pool)),
        requirement("kubernetes.io/arch", "amd64"),
        requirement("kubernetes.io/os", "linux"),
    ]
    if pool.zones:
        out.append(requirement("topology.kubernetes.io/zone", *pool.zones))
    return out


def eks_node_pool(plan: EksKarpenterPoolPlan) -> dict[str, Any]:
    ref = {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": plan.pool.name}
    return node_pool(plan, ref, eks_requirements(plan.pool), plan.disruption)


def ec2_node_class(plan: EksKarpenterPoolPlan, role: Any, discovery: Any) -> dict[str, Any]:
    """The pool's ``EC2NodeClass``: the NVIDIA AMI by alias (Karpenter picks the accelerated variant for GPU
    instance types), Karpenter-managed instance profiles from ``role``, subnets and security groups by the
    discovery tag, an encrypted gp3 disk where images live, IMDSv2 with one hop (as the managed pools), and with
    ``local_ssds`` the instance store as one RAID0 array under the kubelet and containerd."""
    pool = plan.pool
    disk = {
        "volumeSize": f"{pool.disk_size_gb}Gi",
        "volumeType": "gp3",
        "encrypted": True,
        "deleteOnTermination": True,
    }
    mappings: list[dict[str, Any]]
    if plan.ami_alias.startswith("bottlerocket"):
        # Bottlerocket: a small OS volume and the data volume for images (Karpenter's own defaults shape).
        mappings = [
            {"deviceName": "/dev/xvda", "ebs": {**disk, "volumeSize": "4Gi"}},
            {"deviceName": BOTTLEROCKET.root_device, "ebs": disk},
        ]
    else:
        mappings = [{"deviceName": AL2023.root_device, "rootVolume": True, "ebs": disk}]
    spec: dict[str, Any] = {
        "role": role,
        "amiSelectorTerms": [{"alias": plan.ami_alias}],
        "subnetSelectorTerms": [{"tags": {DISCOVERY_TAG: discovery}}],
        "securityGroupSelectorTerms": [{"tags": {DISCOVERY_TAG: discovery}}],
        "blockDeviceMappings": mappings,
        "metadataOptions": {
            "httpEndpoint": "enabled",
            "httpProtocolIPv6": "disabled",
            "httpPutResponseHopLimit": 1,
            "httpTokens": "required",
        },
        "tags": {scheduling.POOL_LABEL: pool.name},
    }
    if pool.local_ssds:  # Karpenter writes the RAID0 settings for either family; new nodes (drift)
        spec["instanceStorePolicy"] = RAID0
    reserved = [s.reservation for s in pool.sources if s.reserved and s.reservation]
    if reserved:
        # ODCRs and Capacity Blocks alike, by ID: Karpenter launches ``reserved`` capacity only from these.
        spec["capacityReservationSelectorTerms"] = [{"id": r} for r in reserved]
    return {
        "apiVersion": EC2NODECLASS_API,
        "kind": "EC2NodeClass",
        "metadata": {"name": pool.name, "labels": {"app.kubernetes.io/managed-by": "gpu-platform"}},
        "spec": spec,
    }


# --- EKS: the controller ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class EksKarpenterPlan:
    namespace: str = versions.KARPENTER.namespace
    replicas: int = DEFAULT_KARPENTER_REPLICAS
    system_node_group: str | None = None
    pod_identity_agent: bool = True
    tag_discovery: bool = True
    user_values: Mapping[str, Any] = field(default_factory=dict)
    inputs: Mapping[str, Any] = field(default_factory=dict)
    mirror: Mirror | None = None
    """Where the charts and the controller's image come from instead of upstream."""


def controller_affinity(plan: EksKarpenterPlan) -> dict[str, Any]:
    """Never on Karpenter's own nodes (the chart's rule), and on the system node group when named."""
    match: list[dict[str, Any]] = [{"key": "karpenter.sh/nodepool", "operator": "DoesNotExist"}]
    if plan.system_node_group:
        match.append(
            {"key": "eks.amazonaws.com/nodegroup", "operator": "In", "values": [plan.system_node_group]}
        )
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": match}]
            }
        },
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "kubernetes.io/hostname"}]
        },
    }


def controller_values(plan: EksKarpenterPlan, cluster_name: Any, queue_name: Any) -> dict[str, Any]:
    """``karpenter`` chart values (``cluster_name``/``queue_name`` may be Outputs, set after the merge)."""
    typed: dict[str, Any] = {
        "settings": {
            # The chart's default, pinned so it cannot change under the library: Karpenter ignores DRA claims
            # in its simulation until its DRA support is GA, which is why DRA pools are refused here.
            "ignoreDRARequests": True,
        },
        "controller": {
            "image": {"tag": versions.KARPENTER_IMAGE_TAG, "digest": versions.KARPENTER_IMAGE_DIGEST},
            "resources": CONTROLLER_RESOURCES,
        },
        "replicas": plan.replicas,
        "affinity": controller_affinity(plan),
        "serviceAccount": {"create": True, "name": SERVICE_ACCOUNT},
    }
    values = deep_merge(plan.user_values, typed)
    values["settings"].update(clusterName=cluster_name, interruptionQueue=queue_name)
    return values


def eks_karpenter_plan(checked: Mapping[str, Any]) -> EksKarpenterPlan:
    """The controller from ``EksKarpenter``'s checked arguments (``checks.karpenter_args``)."""
    return EksKarpenterPlan(
        namespace=checked.get("namespace", versions.KARPENTER.namespace),
        replicas=checked.get("replicas", DEFAULT_KARPENTER_REPLICAS),
        system_node_group=checked.get("system_node_group"),
        pod_identity_agent=checked.get("pod_identity_agent", True),
        tag_discovery=checked.get("tag_discovery", True),
        user_values=dict(checked.get("values", {})),
        inputs=dict(checked),
        mirror=checked.get("mirror"),
    )


# --- EKS: IAM and the interruption queue (getting-started CloudFormation at v1.14.1) ---------------------------


@dataclass(frozen=True)
class AwsContext:
    partition: str
    region: str
    account: str
    url_suffix: str = "amazonaws.com"


def node_role_trust(ctx: AwsContext) -> dict[str, Any]:
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": f"ec2.{ctx.url_suffix}"},
                "Action": ["sts:AssumeRole"],
            }
        ],
    }


def _stmt(sid: str, resource: Any, action: Any, condition: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"Sid": sid, "Effect": "Allow", "Resource": resource, "Action": action}
    if condition is not None:
        out["Condition"] = condition
    return out


def _doc(*statements: dict[str, Any]) -> dict[str, Any]:
    return {"Version": "2012-10-17", "Statement": list(statements)}


def _ec2(ctx: AwsContext, resource: str, account: str = "*") -> str:
    return f"arn:{ctx.partition}:ec2:{ctx.region}:{account}:{resource}"


def _owned(cluster: str, kind: str = "ResourceTag") -> dict[str, str]:
    return {f"aws:{kind}/kubernetes.io/cluster/{cluster}": "owned"}


def node_lifecycle_policy(ctx: AwsContext, cluster: str) -> dict[str, Any]:
    """Launch, tag and terminate only what carries this cluster's ownership tags."""
    any_pool = {"aws:ResourceTag/karpenter.sh/nodepool": "*"}
    req_pool = {"aws:RequestTag/karpenter.sh/nodepool": "*"}
    requested = {**_owned(cluster, "RequestTag"), "aws:RequestTag/eks:eks-cluster-name": cluster}
    kinds = ("fleet", "instance", "volume", "network-interface", "launch-template", "spot-instances-request")
    tagged = [_ec2(ctx, f"{k}/*") for k in kinds]
    launch = ["ec2:RunInstances", "ec2:CreateFleet"]
    shared = ["image/*", "snapshot/*"]
    regional = ["security-group/*", "subnet/*", "capacity-reservation/*", "placement-group/*"]
    return _doc(
        _stmt(
            "AllowScopedEC2InstanceAccessActions",
            [*(_ec2(ctx, r, "") for r in shared), *(_ec2(ctx, r) for r in regional)],
            launch,
        ),
        _stmt(
            "AllowScopedEC2LaunchTemplateAccessActions",
            _ec2(ctx, "launch-template/*"),
            launch,
            {"StringEquals": _owned(cluster), "StringLike": any_pool},
        ),
        _stmt(
            "AllowScopedEC2InstanceActionsWithTags",
            tagged,
            [*launch, "ec2:CreateLaunchTemplate"],
            {"StringEquals": requested, "StringLike": req_pool},
        ),
        _stmt(
            "AllowScopedResourceCreationTagging",
            tagged,
            "ec2:CreateTags",
            {
                "StringEquals": {
                    **requested,
                    "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"],
                },
                "StringLike": req_pool,
            },
        ),
        _stmt(
            "AllowScopedResourceTagging",
            _ec2(ctx, "instance/*"),
            "ec2:CreateTags",
            {
                "StringEquals": _owned(cluster),
                "StringLike": any_pool,
                "StringEqualsIfExists": {"aws:RequestTag/eks:eks-cluster-name": cluster},
                "ForAllValues:StringEquals": {
                    "aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"]
                },
            },
        ),
        _stmt(
            "AllowScopedDeletion",
            [_ec2(ctx, "instance/*"), _ec2(ctx, "launch-template/*")],
            ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
            {"StringEquals": _owned(cluster), "StringLike": any_pool},
        ),
    )


def iam_integration_policy(ctx: AwsContext, cluster: str, node_role_arn: str) -> dict[str, Any]:
    """Pass the node role to EC2, and manage the instance profiles Karpenter creates for it."""
    profile = f"arn:{ctx.partition}:iam::{ctx.account}:instance-profile/*"
    requested = {
        **_owned(cluster, "RequestTag"),
        "aws:RequestTag/eks:eks-cluster-name": cluster,
        "aws:RequestTag/topology.kubernetes.io/region": ctx.region,
    }
    existing = {**_owned(cluster), "aws:ResourceTag/topology.kubernetes.io/region": ctx.region}
    any_class = {"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*"}
    req_class = {"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"}
    return _doc(
        _stmt(
            "AllowPassingInstanceRole",
            node_role_arn,
            "iam:PassRole",
            {"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"]}},
        ),
        _stmt(
            "AllowScopedInstanceProfileCreationActions",
            profile,
            ["iam:CreateInstanceProfile"],
            {"StringEquals": requested, "StringLike": req_class},
        ),
        _stmt(
            "AllowScopedInstanceProfileTagActions",
            profile,
            ["iam:TagInstanceProfile"],
            {"StringEquals": {**existing, **requested}, "StringLike": {**any_class, **req_class}},
        ),
        _stmt(
            "AllowScopedInstanceProfileActions",
            profile,
            [
                "iam:AddRoleToInstanceProfile",
                "iam:RemoveRoleFromInstanceProfile",
                "iam:DeleteInstanceProfile",
            ],
            {"StringEquals": existing, "StringLike": any_class},
        ),
    )


DISCOVERY_ACTIONS = [
    "ec2:DescribeCapacityReservations",
    "ec2:DescribeImages",
    "ec2:DescribeInstances",
    "ec2:DescribeInstanceStatus",
    "ec2:DescribeInstanceTypeOfferings",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeLaunchTemplates",
    "ec2:DescribePlacementGroups",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeSpotPriceHistory",
    "ec2:DescribeSubnets",
]


def resource_discovery_policy(ctx: AwsContext) -> dict[str, Any]:
    """Read-only discovery: instance types, prices, AMIs (SSM), subnets, security groups, profiles."""
    return _doc(
        _stmt(
            "AllowRegionalReadActions",
            "*",
            DISCOVERY_ACTIONS,
            {"StringEquals": {"aws:RequestedRegion": ctx.region}},
        ),
        _stmt(
            "AllowSSMReadActions",
            f"arn:{ctx.partition}:ssm:{ctx.region}::parameter/aws/service/*",
            "ssm:GetParameter",
        ),
        _stmt("AllowPricingReadActions", "*", "pricing:GetProducts"),
        _stmt("AllowUnscopedInstanceProfileListAction", "*", "iam:ListInstanceProfiles"),
        _stmt(
            "AllowInstanceProfileReadActions",
            f"arn:{ctx.partition}:iam::{ctx.account}:instance-profile/*",
            "iam:GetInstanceProfile",
        ),
    )


def controller_policies(
    ctx: AwsContext, cluster: str, node_role_arn: str, queue_arn: str
) -> dict[str, dict[str, Any]]:
    """The six controller policies of Karpenter's getting-started template, by their template names."""
    cluster_arn = f"arn:{ctx.partition}:eks:{ctx.region}:{ctx.account}:cluster/{cluster}"
    return {
        "NodeLifecyclePolicy": node_lifecycle_policy(ctx, cluster),
        "IAMIntegrationPolicy": iam_integration_policy(ctx, cluster, node_role_arn),
        "EKSIntegrationPolicy": _doc(
            _stmt("AllowAPIServerEndpointDiscovery", cluster_arn, "eks:DescribeCluster")
        ),
        "InterruptionPolicy": _doc(
            _stmt(
                "AllowInterruptionQueueActions",
                queue_arn,
                ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"],
            )
        ),
        "ZonalShiftPolicy": _doc(
            _stmt(
                "AllowZonalShiftStatusReadOnly",
                "*",
                ["arc-zonal-shift:GetManagedResource"],
                {"StringEquals": {"arc-zonal-shift:ResourceIdentifier": cluster_arn}},
            )
        ),
        "ResourceDiscoveryPolicy": resource_discovery_policy(ctx),
    }


def queue_policy(queue_arn: str) -> dict[str, Any]:
    """Who may send to the interruption queue: EventBridge and SQS; nothing over plain HTTP."""
    return {
        "Id": "EC2InterruptionPolicy",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": ["events.amazonaws.com", "sqs.amazonaws.com"]},
                "Action": "sqs:SendMessage",
                "Resource": queue_arn,
            },
            {
                "Sid": "DenyHTTP",
                "Effect": "Deny",
                "Action": "sqs:*",
                "Resource": queue_arn,
                "Condition": {"Bool": {"aws:SecureTransport": False}},
                "Principal": "*",
            },
        ],
    }
