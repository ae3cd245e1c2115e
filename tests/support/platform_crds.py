"""The CRDs a cloud's cluster serves before the plan is applied, so the local control plane validates the plan's
objects of those APIs (schema, defaulting, CEL) instead of refusing them as unserved.

A managed cluster brings some APIs of its own: OpenShift its Machine API, cluster autoscaler operator, OLM and
cluster monitoring (the Prometheus Operator's ``monitoring.coreos.com``), and through the OperatorHub
subscriptions the plan makes, NFD's and the GPU Operator's CRDs; GKE its multi-networking and managed Prometheus
APIs, and the Gateway API with GKE's Gateway policies where the cluster enables it. The files are the vendored ones ``tests/support/crds.py`` validates offline with
(``tests/upstream/<dir>/SOURCE.yaml`` names repository, commit and path of each).

A CRD this module served for one cloud is removed again (``serve``) when a stack of another cloud follows on the
same control plane, so no stack is validated against an API its own cloud does not serve.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import upstream
from tests.support.control_plane import wait_until

_PROMETHEUS_OPERATOR = ("charts", "kube-prometheus-stack-88.5.3", "charts", "crds", "crds")
"""Prometheus Operator v0.93.1's CRDs (as the vendored kube-prometheus-stack ships them)."""

PLATFORM_CRDS: dict[str, tuple[tuple[str, ...], ...]] = {
    "openshift": (
        # openshift/api release-4.22 (the vendored commit's file is byte-identical to the branch's)
        ("openshift-machine-api", "crds", "machinesets.yaml"),
        # openshift/cluster-autoscaler-operator install/
        ("openshift-autoscaler", "crds", "machineautoscalers.yaml"),
        ("openshift-autoscaler", "crds", "clusterautoscalers.yaml"),
        # operator-framework/api v0.45.0 crds/
        ("operator-framework-api", "crds", "operators.coreos.com_subscriptions.yaml"),
        ("operator-framework-api", "crds", "operators.coreos.com_operatorgroups.yaml"),
        # openshift/cluster-nfd-operator: installed by the NFD Operator the plan subscribes to
        ("openshift-nfd", "crds", "nodefeaturediscoveries.yaml"),
        # NVIDIA/gpu-operator v26.7.0: installed by the certified bundle the plan subscribes to
        ("charts", "gpu-operator-v26.7.0", "crds", "nvidia.com_clusterpolicies.yaml"),
        # OpenShift's cluster monitoring runs the Prometheus Operator (the upstream CRDs stand in for its fork)
        (*_PROMETHEUS_OPERATOR, "crd-servicemonitors.yaml"),
        (*_PROMETHEUS_OPERATOR, "crd-podmonitors.yaml"),
        (*_PROMETHEUS_OPERATOR, "crd-prometheusrules.yaml"),
    ),
    "gke": (
        # GoogleCloudPlatform/gke-networking-api v0.2.0 config/crds/ (multi-networking)
        ("gke-networking-api", "crds", "networking.gke.io_networks.yaml"),
        ("gke-networking-api", "crds", "networking.gke.io_gkenetworkparamsets.yaml"),
        # GoogleCloudPlatform/prometheus-engine v0.17.2 (managed collection, on by default)
        ("gke-managed-prometheus", "crds", "monitoring.googleapis.com_podmonitorings.yaml"),
        ("gke-managed-prometheus", "crds", "monitoring.googleapis.com_clusterpodmonitorings.yaml"),
        ("gke-managed-prometheus", "crds", "monitoring.googleapis.com_clusterrules.yaml"),
    ),
}
"""Cloud (``gpu-platform:cloud``) -> the vendored CRD files of the APIs its clusters serve. GKE's ComputeClass
(``cloud.google.com/v1``) is not here: Google publishes no CRD manifest for it (only a JSON schema extracted from
clusters is vendored, ``gke-computeclass/``)."""

GKE_GATEWAY_API: tuple[tuple[str, ...], ...] = (
    # kubernetes-sigs/gateway-api v1.5.1 config/crd/standard (GKE's CHANNEL_STANDARD installs the standard channel)
    ("gateway-api", "crds", "gateway.networking.k8s.io_gatewayclasses.yaml"),
    ("gateway-api", "crds", "gateway.networking.k8s.io_gateways.yaml"),
    ("gateway-api", "crds", "gateway.networking.k8s.io_httproutes.yaml"),
    # GoogleCloudPlatform/gke-gateway-api config/crd/ (the policies of GKE's Gateway controller)
    ("gke-gateway-api", "crds", "networking.gke.io_healthcheckpolicies.yaml"),
    ("gke-gateway-api", "crds", "networking.gke.io_gcpbackendpolicies.yaml"),
)
"""What a GKE cluster serves once its Gateway API is enabled (``gateway_api_config``), off by default on Standard
clusters: served only where the plan's cluster enables it, or where the plan makes no cluster (an attached
cluster: enabling it is among the serving gateway's ``requires``)."""


PLATFORM_NAMESPACES: dict[str, tuple[str, ...]] = {
    "openshift": ("openshift-machine-api",),
}
"""Cloud -> namespaces its clusters come with that the plan puts objects in without creating them (OpenShift's
Machine API namespace holds every MachineSet and MachineAutoscaler)."""


@functools.cache
def _load(parts: tuple[str, ...]) -> tuple[dict[str, Any], ...]:
    docs = yaml.safe_load_all(upstream(*parts).read_text())
    return tuple(d for d in docs if d and d.get("kind") == "CustomResourceDefinition")


def platform_crds(cloud: str | None, *, gateway_api: bool = False) -> list[dict[str, Any]]:
    """The CRD objects a cluster of ``cloud`` serves by itself (none for a cloud not in ``PLATFORM_CRDS``);
    ``gateway_api``: a GKE cluster with its Gateway API enabled (``GKE_GATEWAY_API``)."""
    files = PLATFORM_CRDS.get(cloud or "", ()) + (GKE_GATEWAY_API if cloud == "gke" and gateway_api else ())
    return [crd for parts in files for crd in _load(parts)]


GKE_CLUSTER = "gcp:container/cluster:Cluster"


def gke_gateway_api(plan_json: Path) -> bool:
    """Whether the plan's GKE cluster serves the Gateway API: every ``gcp.container.Cluster`` of the plan
    (``plan.json``) sets ``gatewayApiConfig.channel`` other than ``CHANNEL_DISABLED``, or the plan makes none."""
    resources = json.loads(plan_json.read_text())["resources"]
    clusters = [r["inputs"] for r in resources if r["type"].startswith(GKE_CLUSTER)]
    channels = [(c.get("gatewayApiConfig") or {}).get("channel") for c in clusters]
    return all(ch not in (None, "CHANNEL_DISABLED") for ch in channels)


def namespaces(cloud: str | None) -> tuple[str, ...]:
    """The namespaces a cluster of ``cloud`` has from the start (``PLATFORM_NAMESPACES``)."""
    return PLATFORM_NAMESPACES.get(cloud or "", ())


_served: dict[int, set[str]] = {}
"""Control plane (``id``) -> names of the platform CRDs ``serve`` put there."""


def serve(cp: Any, cloud: str | None, plan_json: Path) -> bool:
    """Make ``cp`` serve exactly the platform CRDs of ``cloud`` and its plan (``plan.json``) among those this
    module manages, and have the cloud's namespaces: the ones an earlier stack needed and this one does not are
    deleted (waited for, with their objects), this one's are applied and waited for until established. True when
    a CRD was deleted: the caller forgets what it applied since (objects of the deleted APIs, and a chart's CRD of
    the same name, are gone)."""
    crds = platform_crds(cloud, gateway_api=cloud == "gke" and gke_gateway_api(plan_json))
    names = {c["metadata"]["name"] for c in crds}
    gone = sorted(_served.get(id(cp), set()) - names)
    for name in gone:
        cp.request("DELETE", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
    path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    wait_until(
        "platform CRDs deleted",
        lambda: not set(gone) & {i["metadata"]["name"] for i in cp.get(path)["items"]},
        120,
    )
    cp.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}} for n in namespaces(cloud)])
    cp.apply(crds)
    cp.wait_established(crds)  # also refreshes discovery, which still lists a deleted CRD's resources
    _served[id(cp)] = names
    return bool(gone)
