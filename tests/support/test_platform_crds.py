"""``platform_crds``: the CRDs each cloud's cluster serves by itself, and when GKE's Gateway API is among them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.platform_crds import gke_gateway_api, platform_crds


def _names(cloud: str, **kwargs: bool) -> set[str]:
    return {c["metadata"]["name"] for c in platform_crds(cloud, **kwargs)}


def test_openshift_serves_machine_api_olm_nfd_gpu_operator_and_monitoring() -> None:
    assert _names("openshift") == {
        "machinesets.machine.openshift.io",
        "machineautoscalers.autoscaling.openshift.io",
        "clusterautoscalers.autoscaling.openshift.io",
        "subscriptions.operators.coreos.com",
        "operatorgroups.operators.coreos.com",
        "nodefeaturediscoveries.nfd.openshift.io",
        "clusterpolicies.nvidia.com",
        "servicemonitors.monitoring.coreos.com",
        "podmonitors.monitoring.coreos.com",
        "prometheusrules.monitoring.coreos.com",
    }
    assert all(c["kind"] == "CustomResourceDefinition" for c in platform_crds("openshift"))


def test_gke_serves_the_gateway_api_only_when_enabled() -> None:
    base = {
        "networks.networking.gke.io",
        "gkenetworkparamsets.networking.gke.io",
        "podmonitorings.monitoring.googleapis.com",
        "clusterpodmonitorings.monitoring.googleapis.com",
        "clusterrules.monitoring.googleapis.com",
    }
    assert _names("gke") == base
    assert _names("gke", gateway_api=True) - base == {
        "gatewayclasses.gateway.networking.k8s.io",
        "gateways.gateway.networking.k8s.io",
        "httproutes.gateway.networking.k8s.io",
        "healthcheckpolicies.networking.gke.io",
        "gcpbackendpolicies.networking.gke.io",
    }


def test_other_clouds_serve_none() -> None:
    assert platform_crds("eks") == []
    assert platform_crds("existing", gateway_api=True) == []
    assert platform_crds(None) == []


def _plan(tmp_path: Path, *clusters: dict[str, object]) -> Path:
    resources = [{"type": "gcp:container/cluster:Cluster", "inputs": c} for c in clusters]
    path = tmp_path / "plan.json"
    path.write_text(json.dumps({"resources": [*resources, {"type": "kubernetes:core/v1:Namespace"}]}))
    return path


def test_gke_gateway_api_follows_the_plans_cluster(tmp_path: Path) -> None:
    assert gke_gateway_api(_plan(tmp_path, {"name": "c"})) is False
    assert gke_gateway_api(_plan(tmp_path, {"gatewayApiConfig": {"channel": "CHANNEL_DISABLED"}})) is False
    assert gke_gateway_api(_plan(tmp_path, {"gatewayApiConfig": {"channel": "CHANNEL_STANDARD"}})) is True
    assert gke_gateway_api(_plan(tmp_path)) is True  # no cluster made: an attached one, enabled by its owner
