"""The control plane script's pure parts, checked without Go: how Kueue's chart objects are pointed at a
process on loopback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.control_plane import control_plane_script as script

HOOK = {"name": "kueue-webhook-service", "namespace": "kueue-system", "path": "/mutate-batch-v1-job"}


def test_webhook_services_become_loopback_urls_with_our_ca() -> None:
    config: dict[str, Any] = {
        "kind": "MutatingWebhookConfiguration",
        "webhooks": [{"name": "mjob.kb.io", "clientConfig": {"service": dict(HOOK)}}],
    }
    out = script._on_loopback(config, "https://127.0.0.1:9443", "Q0E=")
    assert out["webhooks"][0]["clientConfig"] == {
        "url": "https://127.0.0.1:9443/mutate-batch-v1-job",
        "caBundle": "Q0E=",
    }
    assert config["webhooks"][0]["clientConfig"] == {"service": HOOK}  # the chart's object is left alone


def test_crd_conversion_webhooks_become_loopback_urls() -> None:
    service = {"name": "kueue-webhook-service", "namespace": "kueue-system", "path": "/convert"}
    crd = {
        "kind": "CustomResourceDefinition",
        "spec": {"conversion": {"webhook": {"clientConfig": {"service": service}}}},
    }
    out = script._on_loopback(crd, "https://127.0.0.1:1", "Q0E=")
    assert out["spec"]["conversion"]["webhook"]["clientConfig"] == {
        "url": "https://127.0.0.1:1/convert",
        "caBundle": "Q0E=",
    }


def test_kueue_keeps_the_charts_configuration_with_loopback_ports(tmp_path: Path) -> None:
    chart_config = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nintegrations:\n  frameworks: [batch/job]\n"
    config_map = {
        "kind": "ConfigMap",
        "metadata": {"name": "kueue-manager-config"},
        "data": {"controller_manager_config.yaml": chart_config},
    }
    config = script.kueue_config([config_map], 9443, 8081, tmp_path)
    assert config["integrations"] == {"frameworks": ["batch/job"]}
    assert config["webhook"] == {"host": "127.0.0.1", "port": 9443, "certDir": str(tmp_path)}
    assert config["health"] == {"healthProbeBindAddress": "127.0.0.1:8081"}
    assert config["leaderElection"] == {"leaderElect": False}
    assert config["internalCertManagement"]["webhookServiceName"] == "kueue-webhook-service"


def test_each_module_is_cached_under_its_pinned_version() -> None:
    names = {path.parent.name for path in script.binaries().values()}
    assert {n.rsplit("-", 1)[0] for n in names} == {"kubernetes-v1.36.3", "controllers-v0.19.2"}


def test_jobset_serves_its_webhooks_on_loopback_with_our_certificate(tmp_path: Path) -> None:
    chart_config = "apiVersion: config.jobset.x-k8s.io/v1alpha1\nkind: Configuration\nclientConnection:\n  qps: 500\ninternalCertManagement:\n  enable: true\n"
    config_map = {
        "kind": "ConfigMap",
        "metadata": {"name": "jobset-controller-config"},
        "data": {"controller_manager_config.yaml": chart_config},
    }
    config = script.jobset_config([config_map], 9444, 8082, tmp_path)
    assert config["clientConnection"] == {"qps": 500}
    assert config["internalCertManagement"] == {"enable": False}
    assert config["webhook"] == {"host": "127.0.0.1", "port": 9444, "certDir": str(tmp_path)}
    assert config["health"] == {"healthProbeBindAddress": "127.0.0.1:8082"}
    assert config["metrics"] == {"bindAddress": "0"}


def test_the_controllers_module_builds_jobset_at_the_charts_version() -> None:
    from gpu_platform.versions import JOBSET_IMAGE_TAG

    controllers = next(m for m in script.MODULES if m.folder == "controllers")
    assert controllers.packages["jobset"] == "sigs.k8s.io/jobset"
    go_mod = (script.TOOLS / "controllers" / "go.mod").read_text().split()
    assert go_mod[go_mod.index("sigs.k8s.io/jobset") + 1] == JOBSET_IMAGE_TAG


def test_applies_ask_for_strict_field_validation(tmp_path: Path) -> None:
    cp = script.ControlPlane(folder=tmp_path, bin={})
    cp._resources[("v1", "ConfigMap")] = ("configmaps", True)
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "team-a"}}
    assert cp.apply_path(obj, manager="stacks.dev") == (
        "/api/v1/namespaces/team-a/configmaps/c?fieldManager=stacks.dev&force=true&fieldValidation=Strict"
    )
    assert cp.apply_path(obj, dry_run=True).endswith("&fieldValidation=Strict&dryRun=All")
