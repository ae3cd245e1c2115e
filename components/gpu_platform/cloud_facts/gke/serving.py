"""What LLM serving needs of GKE beyond the cluster: a proxy-only subnet for the managed Gateway's regional load
balancers, and a Google service account that lets KEDA's operator read Managed Service for Prometheus.

Proxy-only subnet (Google Cloud, "Proxy-only subnets for Envoy-based load balancers"): the regional external and
internal Application Load Balancers (``gke-l7-regional-external-managed``, ``gke-l7-rilb``) run their Envoy proxies
in one subnet per region and VPC with ``purpose: REGIONAL_MANAGED_PROXY`` and ``role: ACTIVE``. Its primary range
must be /26 or larger (Google recommends a /23) and may not overlap any other range of the VPC. The default is the
/23 just after the node and Service ranges ``GkeCluster`` carves out of ``vpc_cidr`` (nodes the first /20,
Services the second, Pods the upper half: ``clouds.gke.cluster_plan.split_network``), so it never overlaps them.

Metrics reader: Managed Service for Prometheus answers PromQL at
``https://monitoring.googleapis.com/v1/projects/<project>/location/global/prometheus`` (Google Cloud, "Query using
the Prometheus API") to an identity with ``roles/monitoring.viewer``. KEDA's ``gcp`` pod identity takes the token
of the operator's Workload Identity (KEDA v2.20 docs, "GCP Workload Identity"); the chart annotates the operator's
service account with the Google service account (kedacore/charts v2.20.2 ``keda/values.yaml``
``podIdentity.gcp.enabled`` and ``gcpIAMServiceAccount``, ``templates/manager/serviceaccount.yaml``), which grants
``roles/iam.workloadIdentityUser`` to ``<project>.svc.id.goog[<namespace>/<service account>]``.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from gpu_platform.cloud_facts.parts.services import MetricsReader
from gpu_platform.formats.network import private_network_problem

PROXY_SUBNET_PURPOSE = "REGIONAL_MANAGED_PROXY"
PROXY_SUBNET_ROLE = "ACTIVE"
PROXY_SUBNET_PREFIX = 23
"""Google's recommended size of a proxy-only subnet."""
LONGEST_PROXY_SUBNET_PREFIX = 26
"""The smallest proxy-only subnet Google accepts."""
NODES_PREFIX = 20
"""``split_network``'s node and Service ranges: the first and second /20 of ``vpc_cidr``."""


def cluster_ranges(vpc_cidr: str) -> dict[str, ipaddress.IPv4Network]:
    """The node, Service and Pod ranges ``GkeCluster`` makes of ``vpc_cidr`` (as ``split_network`` does)."""
    net = ipaddress.IPv4Network(vpc_cidr)
    small = list(net.subnets(new_prefix=NODES_PREFIX))
    return {"node": small[0], "Service": small[1], "Pod": list(net.subnets(prefixlen_diff=1))[1]}


def default_proxy_subnet(vpc_cidr: str) -> str:
    """The /23 at the start of the third /20 of ``vpc_cidr``: inside the VPC's lower half, past the node and
    Service ranges, below the Pods' upper half."""
    third = list(ipaddress.IPv4Network(vpc_cidr).subnets(new_prefix=NODES_PREFIX))[2]
    return str(next(third.subnets(new_prefix=PROXY_SUBNET_PREFIX)))


def proxy_subnet_problem(cidr: str, vpc_cidr: str | None) -> str | None:
    """Why ``cidr`` cannot be the proxy-only subnet of a cluster on ``vpc_cidr`` (``None``: it can): a private
    /26 or larger that overlaps none of the cluster's node, Service and Pod ranges."""
    if reason := private_network_problem(cidr, "10.0.32.0/23"):
        return reason
    net = ipaddress.IPv4Network(cidr)
    if net.prefixlen > LONGEST_PROXY_SUBNET_PREFIX:
        return (
            f"'{cidr}' is too small: a proxy-only subnet is a /{LONGEST_PROXY_SUBNET_PREFIX} or larger "
            f"(Google recommends a /{PROXY_SUBNET_PREFIX})"
        )
    if vpc_cidr is None:
        return None
    for what, taken in cluster_ranges(vpc_cidr).items():
        if net.overlaps(taken):
            return (
                f"'{cidr}' overlaps the cluster's {what} range {taken} (carved out of {{{{vpc_cidr}}}} {vpc_cidr}): "
                f"give a private /{LONGEST_PROXY_SUBNET_PREFIX} or larger outside the node, Service and Pod ranges, "
                f"such as the default {default_proxy_subnet(vpc_cidr)}"
            )
    return None


def _keda_values(identity: Any) -> dict[str, Any]:
    return {"podIdentity": {"gcp": {"enabled": True, "gcpIAMServiceAccount": identity}}}


METRICS_READER = MetricsReader(
    backend="gke-managed-prometheus",
    pod_identity="gcp",
    account="{cluster:.25}-keda",
    role="roles/monitoring.viewer",
    query_url="https://monitoring.googleapis.com/v1/projects/{project}/location/global/prometheus",
    identity="{account}@{project}.iam.gserviceaccount.com",
    scope_setting="cluster.project",
    grant_commands=(
        "gcloud iam service-accounts create {account} --project={project}",
        "gcloud projects add-iam-policy-binding {project} --role={role} --member=serviceAccount:{identity}",
        "gcloud iam service-accounts add-iam-policy-binding {identity} --project={project} "
        "--role=roles/iam.workloadIdentityUser --member=serviceAccount:{project}.svc.id.goog[{namespace}/{service_account}]",
    ),
    keda_values=_keda_values,
)
"""KEDA's operator reading Managed Service for Prometheus as the Google service account ``<cluster>-keda`` (an
account ID is 6 to 30 characters, unique in the project: the cluster's name, cut to 25, keeps clusters apart)."""
WORKLOAD_IDENTITY_USER = "roles/iam.workloadIdentityUser"
