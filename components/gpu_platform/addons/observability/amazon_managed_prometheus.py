"""The cloud side of ``observability.backend: amazon-managed-prometheus``: the workspace (unless an existing one
is named), the IAM role Prometheus writes with and its Pod Identity association, and the GPU rules in the
workspace's ruler. Created by ``GpuObservability`` as its children (``install``)."""

from __future__ import annotations

from typing import Any

import pulumi

from gpu_platform.addons.observability import amazon_managed_prometheus_plan as mp
from gpu_platform.addons.observability.plan import PROMETHEUS_SERVICE_ACCOUNT, ObservabilityPlan, remote_write
from gpu_platform.cloud_facts.eks.pod_identity import pod_identity_trust
from gpu_platform.cloud_facts.eks.profile import PROFILE
from gpu_platform.component import PlannedComponent


def install(owner: PlannedComponent[Any], name: str, plan: ObservabilityPlan) -> dict[str, Any]:
    """Create the cloud side; returns ``values`` (the stack's remote write), ``depends_on`` (what the
    Prometheus pod needs before it starts) and ``workspace`` (the workspace's ARN)."""
    PROFILE.sdk(owner)  # one line naming the extra when the SDK is missing
    import pulumi_aws as aws

    spec = plan.spec
    if spec.workspace:
        arn: Any = spec.workspace
        ws_id: Any = mp.workspace_id(spec.workspace)
        url: Any = mp.remote_write_url(spec.workspace)
    else:
        workspace = aws.amp.Workspace(
            f"{name}-workspace", alias=spec.cluster["name"], opts=owner.child_opts()
        )
        arn, ws_id = workspace.arn, workspace.id
        url = workspace.prometheus_endpoint.apply(mp.endpoint_remote_write_url)
    role = aws.iam.Role(
        f"{name}-prometheus",
        description="Prometheus remote write to Amazon Managed Service for Prometheus (gpu-platform)",
        assume_role_policy=pod_identity_trust(),
        opts=owner.child_opts(),
    )
    policy = aws.iam.RolePolicy(
        f"{name}-remote-write",
        role=role.id,
        policy=pulumi.Output.from_input(arn).apply(mp.remote_write_policy),
        opts=owner.child_opts(),
    )
    association = aws.eks.PodIdentityAssociation(
        f"{name}-pod-identity",
        cluster_name=spec.cluster["name"],
        namespace=plan.namespace,
        service_account=PROMETHEUS_SERVICE_ACCOUNT,
        role_arn=role.arn,
        opts=owner.child_opts(),
    )
    aws.amp.RuleGroupNamespace(
        f"{name}-rules",
        name=mp.RULE_NAMESPACE,
        workspace_id=ws_id,
        data=mp.rule_namespace_data(plan.groups),
        opts=owner.child_opts(),
    )
    region = pulumi.Output.from_input(arn).apply(mp.workspace_region)
    return {"values": remote_write(url, region), "depends_on": [policy, association], "workspace": arn}
