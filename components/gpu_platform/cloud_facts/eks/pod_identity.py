"""EKS Pod Identity: the trust policy a role needs so a Kubernetes service account can assume it through the
Pod Identity agent (EKS user guide, "Create IAM role with trust policy required by EKS Pod Identity",
https://docs.aws.amazon.com/eks/latest/userguide/pod-id-role.html). Read by the Cluster Autoscaler's and
Karpenter's roles and by the Prometheus remote-write role of ``amazon-managed-prometheus``."""

from __future__ import annotations

import json

POD_IDENTITY_PRINCIPAL = "pods.eks.amazonaws.com"
POD_IDENTITY_ACTIONS = ("sts:AssumeRole", "sts:TagSession")
"""What EKS Pod Identity's trust policy allows."""


def pod_identity_trust() -> str:
    """The trust policy (JSON) that lets the Pod Identity agent assume a role for a pod."""
    statement = {
        "Effect": "Allow",
        "Principal": {"Service": POD_IDENTITY_PRINCIPAL},
        "Action": list(POD_IDENTITY_ACTIONS),
    }
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})
