"""The Google service account KEDA's operator reads Managed Service for Prometheus as, created with a cluster the
stack creates: the account, its role on the project (``roles/monitoring.viewer``) and the Workload Identity binding
that lets the operator's Kubernetes service account act as it (Google Cloud, "Authenticate to Google Cloud APIs from
GKE workloads", linking a Kubernetes service account to an IAM service account). What it is granted comes from the
serving plan (``addons.serving.autoscaling.ReaderGrant``, ``cloud_facts.gke.serving.METRICS_READER``)."""

from __future__ import annotations

from typing import Any

import pulumi

from gpu_platform.addons.serving.autoscaling import ReaderGrant
from gpu_platform.cloud_facts.gke.serving import WORKLOAD_IDENTITY_USER


def workload_identity_member(grant: ReaderGrant) -> str:
    """The member a GKE pod's service account is in IAM: ``serviceAccount:<project>.svc.id.goog[<ns>/<name>]``."""
    return f"serviceAccount:{grant.project}.svc.id.goog[{grant.namespace}/{grant.service_account}]"


def create_metrics_reader(
    name: str, grant: ReaderGrant, opts: pulumi.ResourceOptions | None, depends_on: list[Any]
) -> list[Any]:
    """The account, its project role and its Workload Identity binding; ``depends_on``: the cluster (whose
    workload pool, ``<project>.svc.id.goog``, must exist before a member of it is bound)."""
    import pulumi_gcp.projects as projects
    import pulumi_gcp.serviceaccount as serviceaccount

    after = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=depends_on))
    account = serviceaccount.Account(
        f"{name}-keda-metrics",
        project=grant.project,
        account_id=grant.account,
        display_name="KEDA reading Managed Service for Prometheus (gpu-platform serving)",
        opts=opts,
    )
    role = projects.IAMMember(
        f"{name}-keda-metrics-{grant.role.split('/')[-1]}",
        project=grant.project,
        role=grant.role,
        member=account.member,
        opts=opts,
    )
    binding = serviceaccount.IAMMember(
        f"{name}-keda-metrics-workload-identity",
        service_account_id=account.name,
        role=WORKLOAD_IDENTITY_USER,
        member=workload_identity_member(grant),
        opts=after,
    )
    return [account, role, binding]
