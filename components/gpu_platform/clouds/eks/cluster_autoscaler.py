"""``ClusterAutoscaler``: what grows and shrinks EKS managed node groups, GPU pools included.

An IAM role with the autoscaler README's full-feature policy (capacity changes limited to Auto Scaling
groups tagged ``k8s.io/cluster-autoscaler/<cluster>=owned``), reached through EKS Pod Identity (the
``eks-pod-identity-agent`` add-on and an association with the service account) or IRSA; then one pinned
``helm.v3.Release`` of the ``cluster-autoscaler`` chart in ``kube-system`` with auto-discovery, the image of
the cluster's minor, on the system pool.
"""

from typing import Any

import pulumi
from pulumi_kubernetes.helm.v3.outputs import ReleaseStatus

from gpu_platform import versions
from gpu_platform.cloud_facts.eks.pod_identity import pod_identity_trust
from gpu_platform.clouds.eks.args import AutoscalerIam, ClusterAutoscalerArgs
from gpu_platform.clouds.eks.autoscaling_plan import (
    ClusterAutoscalerPlan,
    autoscaler_policy,
    cluster_autoscaler_plan,
    cluster_autoscaler_values,
    irsa_trust,
)
from gpu_platform.clouds.eks.checks import cluster_autoscaler_args
from gpu_platform.component import PlannedComponent
from gpu_platform.helm_release import helm_release
from gpu_platform.releases import CLUSTER_AUTOSCALER


class ClusterAutoscaler(PlannedComponent[ClusterAutoscalerPlan]):
    """The Kubernetes Cluster Autoscaler on EKS, with its IAM."""

    _type_token = "gpu-platform:index:ClusterAutoscaler"

    role_arn: pulumi.Output[str]
    """IAM role the autoscaler acts as."""
    status: pulumi.Output[ReleaseStatus]
    """Status of the Helm release."""

    def __init__(
        self, name: str, args: ClusterAutoscalerArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. The Kubernetes
        Cluster Autoscaler on EKS, with its IAM."""
        self._start(name, cluster_autoscaler_plan(*cluster_autoscaler_args(args)), opts)

    def _role(self, name: str, plan: ClusterAutoscalerPlan) -> Any:
        import pulumi_aws as aws

        if plan.iam == AutoscalerIam.IRSA.value:
            trust: Any = pulumi.Output.all(plan.oidc_provider_arn, plan.oidc_issuer).apply(
                lambda v: irsa_trust(v[0], v[1], plan.namespace)
            )
        else:
            trust = pod_identity_trust()
        role = aws.iam.Role(
            f"{name}-role",
            description="Kubernetes Cluster Autoscaler (gpu-platform)",
            assume_role_policy=trust,
            opts=self.child_opts(),
        )
        policy = aws.iam.RolePolicy(
            f"{name}-policy",
            role=role.id,
            policy=pulumi.Output.from_input(plan.cluster_name).apply(autoscaler_policy),
            opts=self.child_opts(),
        )
        return role, policy

    def _pod_identity(self, name: str, plan: ClusterAutoscalerPlan, role: Any) -> list[Any]:
        import pulumi_aws as aws

        made: list[Any] = []
        if plan.pod_identity_agent:
            made.append(
                aws.eks.Addon(
                    f"{name}-pod-identity-agent",
                    cluster_name=plan.cluster_name,
                    addon_name=versions.EKS_POD_IDENTITY_AGENT_ADDON,
                    opts=self.child_opts(),
                )
            )
        made.append(
            aws.eks.PodIdentityAssociation(
                f"{name}-pod-identity",
                cluster_name=plan.cluster_name,
                namespace=plan.namespace,
                service_account=plan.service_account,
                role_arn=role.arn,
                opts=self.child_opts(),
            )
        )
        return made

    def _create(self, name: str, plan: ClusterAutoscalerPlan) -> dict[str, Any]:
        role, policy = self._role(name, plan)
        credentials = [policy]
        if plan.iam == AutoscalerIam.POD_IDENTITY.value:
            credentials += self._pod_identity(name, plan, role)
        release = helm_release(
            self,
            f"{name}-helm",
            CLUSTER_AUTOSCALER.pin,
            CLUSTER_AUTOSCALER.release_name,
            plan.namespace,
            values=cluster_autoscaler_values(plan, role.arn),
            # The pod starts with its credentials in place (policy, agent, association).
            depends_on=[*credentials, *self._dependencies],
            mirror=plan.mirror,
        )
        self.role_arn = role.arn
        self.status = release.status
        return {"role_arn": self.role_arn, "status": self.status}
