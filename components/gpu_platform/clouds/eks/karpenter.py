"""``EksKarpenter``: Karpenter on EKS with its IAM (EKS Pod Identity), interruption queue and discovery tags.

Everything of Karpenter's getting-started template at v1.14.1 (``plans.karpenter``): a node role with an
EKS access entry of type ``EC2_LINUX`` (self-managed EC2 nodes; Karpenter creates and rotates the instance
profiles from the role, as ``EC2NodeClass.spec.role``), the controller role with the six policies bound to
the ``karpenter`` service account through a Pod Identity association, the SQS interruption queue with its
policy and the five EventBridge rules, the ``karpenter.sh/discovery`` tags on the given subnets and
security groups, then two pinned releases: ``karpenter-crd`` (CRDs as templates, so upgrades update them;
kept when the component is removed) and ``karpenter`` with ``skipCrds``. The controller runs only on
non-Karpenter capacity (and on ``system_node_group`` when named).
"""

import functools
import json
from typing import Any

import pulumi
from pulumi_kubernetes.helm.v3.outputs import ReleaseStatus

from gpu_platform import versions
from gpu_platform.cloud_facts.eks.pod_identity import pod_identity_trust
from gpu_platform.clouds.eks import karpenter_plan as kp
from gpu_platform.clouds.eks.args import DISCOVERY_TAG, EksKarpenterArgs
from gpu_platform.clouds.eks.checks import karpenter_args
from gpu_platform.component import PlannedComponent
from gpu_platform.helm_release import helm_release
from gpu_platform.releases import KARPENTER, KARPENTER_CRD

AWS_POLICY = "arn:{partition}:iam::aws:policy/"


def _managed_policy_arn(policy: str, ctx: kp.AwsContext) -> str:
    return AWS_POLICY.format(partition=ctx.partition) + policy


def _policy_json(name: str, docs: dict[str, Any]) -> str:
    return json.dumps(docs[name])


class EksKarpenter(PlannedComponent[kp.EksKarpenterPlan]):
    """Karpenter's controller, IAM and interruption handling on an EKS cluster."""

    _type_token = "gpu-platform:index:EksKarpenter"

    node_role_name: pulumi.Output[str]
    """IAM role of Karpenter's nodes (``EksKarpenterGpuNodePool``'s ``node_role_name``)."""
    node_role_arn: pulumi.Output[str]
    """Its ARN."""
    controller_role_arn: pulumi.Output[str]
    """Role of the controller (Pod Identity)."""
    interruption_queue: pulumi.Output[str]
    """Name of the SQS interruption queue."""
    discovery: pulumi.Output[str]
    """Value of the ``karpenter.sh/discovery`` tag (the cluster name)."""
    status: pulumi.Output[ReleaseStatus]
    """The controller release status."""

    def __init__(self, name: str, args: EksKarpenterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. Karpenter's
        controller, IAM and interruption handling on an EKS cluster."""
        self._start(name, kp.eks_karpenter_plan(karpenter_args(args)), opts)

    def _context(self) -> pulumi.Output[kp.AwsContext]:
        import pulumi_aws as aws

        invoke = pulumi.InvokeOptions(parent=self)
        partition = aws.get_partition_output(opts=invoke)
        region = aws.get_region_output(opts=invoke)
        caller = aws.get_caller_identity_output(opts=invoke)
        return pulumi.Output.all(
            partition.partition, partition.dns_suffix, region.region, caller.account_id
        ).apply(lambda v: kp.AwsContext(partition=v[0], url_suffix=v[1], region=v[2], account=v[3]))

    def _node_role(self, name: str, ctx: pulumi.Output[kp.AwsContext], cluster: Any) -> tuple[Any, list[Any]]:
        import pulumi_aws as aws

        role = aws.iam.Role(
            f"{name}-node-role",
            assume_role_policy=ctx.apply(lambda c: json.dumps(kp.node_role_trust(c))),
            description="Karpenter GPU nodes",
            opts=self.child_opts(),
        )
        attached = [
            aws.iam.RolePolicyAttachment(
                f"{name}-node-{policy}",
                role=role.name,
                policy_arn=ctx.apply(functools.partial(_managed_policy_arn, policy)),
                opts=self.child_opts(),
            )
            for policy in kp.NODE_POLICIES
        ]
        # Nodes Karpenter launches are self-managed EC2 nodes: they join through an access entry of type
        # EC2_LINUX (EKS CreateAccessEntry), not the aws-auth ConfigMap.
        entry = aws.eks.AccessEntry(
            f"{name}-node-access",
            cluster_name=cluster,
            principal_arn=role.arn,
            type="EC2_LINUX",
            opts=self.child_opts(),
        )
        return role, [*attached, entry]

    def _queue(self, name: str) -> Any:
        import pulumi_aws as aws

        queue = aws.sqs.Queue(
            f"{name}-interruption",
            message_retention_seconds=kp.QUEUE_RETENTION_SECONDS,
            sqs_managed_sse_enabled=True,
            opts=self.child_opts(),
        )
        aws.sqs.QueuePolicy(
            f"{name}-interruption",
            queue_url=queue.url,
            policy=queue.arn.apply(lambda arn: json.dumps(kp.queue_policy(arn))),
            opts=self.child_opts(),
        )
        for rule_name, pattern in kp.INTERRUPTION_RULES.items():
            rule = aws.cloudwatch.EventRule(
                f"{name}-{rule_name}",
                event_pattern=json.dumps(pattern),
                description=f"Karpenter interruption handling: {pattern['detail-type'][0]}",
                opts=self.child_opts(),
            )
            aws.cloudwatch.EventTarget(
                f"{name}-{rule_name}",
                rule=rule.name,
                target_id=kp.EVENT_TARGET_ID,
                arn=queue.arn,
                opts=self.child_opts(),
            )
        return queue

    def _controller_role(
        self,
        name: str,
        ctx: pulumi.Output[kp.AwsContext],
        cluster: Any,
        node_role: Any,
        queue: Any,
        plan: kp.EksKarpenterPlan,
    ) -> tuple[Any, list[Any]]:
        import pulumi_aws as aws

        role = aws.iam.Role(
            f"{name}-controller-role",
            assume_role_policy=pod_identity_trust(),
            description="Karpenter controller (EKS Pod Identity)",
            opts=self.child_opts(),
        )
        docs = pulumi.Output.all(ctx, cluster, node_role.arn, queue.arn).apply(
            lambda v: kp.controller_policies(v[0], v[1], v[2], v[3])
        )
        attached = []
        for policy_name in (
            "NodeLifecyclePolicy",
            "IAMIntegrationPolicy",
            "EKSIntegrationPolicy",
            "InterruptionPolicy",
            "ZonalShiftPolicy",
            "ResourceDiscoveryPolicy",
        ):
            policy = aws.iam.Policy(
                f"{name}-{policy_name}",
                description=f"Karpenter controller: {policy_name} (getting-started template v1.14.1)",
                policy=docs.apply(functools.partial(_policy_json, policy_name)),
                opts=self.child_opts(),
            )
            attached.append(
                aws.iam.RolePolicyAttachment(
                    f"{name}-{policy_name}", role=role.name, policy_arn=policy.arn, opts=self.child_opts()
                )
            )
        deps: list[Any] = list(attached)
        if plan.pod_identity_agent:
            deps.append(
                aws.eks.Addon(
                    f"{name}-pod-identity-agent",
                    cluster_name=cluster,
                    addon_name=versions.EKS_POD_IDENTITY_AGENT_ADDON,
                    opts=self.child_opts(),
                )
            )
        deps.append(
            aws.eks.PodIdentityAssociation(
                f"{name}-pod-identity",
                cluster_name=cluster,
                namespace=plan.namespace,
                service_account=kp.SERVICE_ACCOUNT,
                role_arn=role.arn,
                opts=self.child_opts(),
            )
        )
        return role, deps

    def _discovery_tags(self, name: str, plan: kp.EksKarpenterPlan, cluster: Any) -> list[Any]:
        import pulumi_aws as aws

        if not plan.tag_discovery:
            return []
        ids = [("subnet", i, s) for i, s in enumerate(plan.inputs["subnet_ids"])]
        ids += [("sg", i, s) for i, s in enumerate(plan.inputs["security_group_ids"])]
        return [
            aws.ec2.Tag(
                f"{name}-discovery-{kind}-{i}",
                resource_id=rid,
                key=DISCOVERY_TAG,
                value=cluster,
                opts=self.child_opts(),
            )
            for kind, i, rid in ids
        ]

    def _create(self, name: str, plan: kp.EksKarpenterPlan) -> dict[str, Any]:
        cluster = plan.inputs["cluster_name"]
        ctx = self._context()
        node_role, node_deps = self._node_role(name, ctx, cluster)
        queue = self._queue(name)
        controller_role, controller_deps = self._controller_role(name, ctx, cluster, node_role, queue, plan)
        tags = self._discovery_tags(name, plan, cluster)
        crds = helm_release(
            self,
            f"{name}-crd",
            KARPENTER_CRD.pin,
            KARPENTER_CRD.release_name,
            plan.namespace,
            create_namespace=None,
            depends_on=list(self._dependencies),
            retain_on_delete=KARPENTER_CRD.release_holds_crds,
            mirror=plan.mirror,
        )
        release = helm_release(
            self,
            f"{name}-helm",
            KARPENTER.pin,
            KARPENTER.release_name,
            plan.namespace,
            values=kp.controller_values(plan, cluster, queue.name),
            create_namespace=None,
            skip_crds=True,
            depends_on=[crds, *node_deps, *controller_deps, *tags, *self._dependencies],
            mirror=plan.mirror,
        )
        self.node_role_name = node_role.name
        self.node_role_arn = node_role.arn
        self.controller_role_arn = controller_role.arn
        self.interruption_queue = queue.name
        self.discovery = pulumi.Output.from_input(cluster)
        self.status = release.status
        self.crd_release = crds
        self.release = release
        return {
            "node_role_name": self.node_role_name,
            "node_role_arn": self.node_role_arn,
            "controller_role_arn": self.controller_role_arn,
            "interruption_queue": self.interruption_queue,
            "discovery": self.discovery,
            "status": self.status,
        }
