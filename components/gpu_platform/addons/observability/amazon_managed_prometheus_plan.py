"""Amazon Managed Service for Prometheus, planned: the remote-write target and policy of a workspace, and the
GPU rules as the workspace's rule group namespace.

Metrics get there the way AWS documents for a customer-managed collector ("Set up ingestion from an existing
Prometheus server in Kubernetes"): the stack's Prometheus remote-writes with SigV4. Its credentials come from EKS
Pod Identity (``cloud_facts.eks.pod_identity``), so no access key or IRSA annotation exists.
"""

from __future__ import annotations

import json

from gpu_platform.addons.observability.rules import RuleGroup, rule_file

__all__ = [
    "RULE_NAMESPACE",
    "remote_write_policy",
    "remote_write_url",
    "rule_namespace_data",
    "workspace_id",
    "workspace_region",
]

RULE_NAMESPACE = "gpu-platform"
"""The workspace's rule group namespace holding the GPU rules."""
REMOTE_WRITE_PATH = "api/v1/remote_write"
"""Appended to a workspace's Prometheus endpoint (AMP user guide, "remote write")."""


def _arn_parts(arn: str) -> list[str]:
    """``arn:<partition>:aps:<region>:<account>:workspace/<id>`` split on ``:``."""
    parts = arn.split(":", 5)
    if len(parts) != 6 or parts[2] != "aps" or not parts[5].startswith("workspace/"):
        raise ValueError(f"not an AMP workspace ARN: {arn}")
    return parts


def workspace_region(arn: str) -> str:
    """The region a workspace lives in (SigV4 signs for it)."""
    return _arn_parts(arn)[3]


def workspace_id(arn: str) -> str:
    """``ws-...``: what a rule group namespace names its workspace by."""
    return _arn_parts(arn)[5].removeprefix("workspace/")


def remote_write_url(arn: str) -> str:
    """The remote-write URL of an existing workspace (its Prometheus endpoint is
    ``https://aps-workspaces.<region>.<dns suffix>/workspaces/<id>/``)."""
    partition = _arn_parts(arn)[1]
    suffix = "amazonaws.com.cn" if partition == "aws-cn" else "amazonaws.com"
    return f"https://aps-workspaces.{workspace_region(arn)}.{suffix}/workspaces/{workspace_id(arn)}/{REMOTE_WRITE_PATH}"


def endpoint_remote_write_url(endpoint: str) -> str:
    """A created workspace's ``prometheus_endpoint`` -> its remote-write URL."""
    return endpoint.rstrip("/") + "/" + REMOTE_WRITE_PATH


def remote_write_policy(arn: str) -> str:
    """What Prometheus may do: write samples to this workspace, nothing else (the ``aps:RemoteWrite`` action of
    AWS's ``AmazonPrometheusRemoteWriteAccess``, scoped to one workspace)."""
    statement = {"Effect": "Allow", "Action": ["aps:RemoteWrite"], "Resource": arn}
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})


def rule_namespace_data(groups: tuple[RuleGroup, ...]) -> str:
    """Every GPU rule group, as the Prometheus rule file a rule group namespace takes."""
    return rule_file(groups)
