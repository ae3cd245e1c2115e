"""``stack.program``: ``deploy_on_cluster`` is the full program's Kubernetes half, resource for resource.

The ``pulumi up`` test of a cloud stack (``tests/control_plane/test_pulumi_up_cloud.py``) runs only that half
against a local control plane; this shows, under mocks, that what it creates is what the full GKE program
creates on its cluster (same URNs, same inputs), and that the full program adds only the cloud's half."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from gpu_platform.offline.runner import Registration, run_plan, run_program
from tests.support.kubernetes_half import KUBECONFIG_KEY, kubernetes_half

REPO = Path(__file__).resolve().parents[2]
DEV = yaml.safe_load((REPO / "stacks" / "Pulumi.dev.yaml").read_text())["config"]
KUBECONFIG = "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n"


def _by_urn(resources: list[Registration]) -> dict[str, Registration]:
    return {r.urn: r for r in resources}


def _plans() -> tuple[dict[str, Registration], dict[str, Registration]]:
    full = run_plan(REPO, "dev", config_override=DEV)
    config: dict[str, Any] = {**DEV, KUBECONFIG_KEY: KUBECONFIG}
    half = run_program(
        kubernetes_half, config, project=full.project, stack="dev", secret_keys=[KUBECONFIG_KEY]
    )
    return _by_urn(full.resources), _by_urn(half.resources)


def test_the_kubernetes_half_is_the_full_programs_on_its_cluster() -> None:
    full, half = _plans()
    provider = [urn for urn, r in half.items() if r.type == "pulumi:providers:kubernetes"]
    assert len(provider) == 1
    created = set(half) - set(provider)
    # Every add-on, namespace and object of the half, with the URN and inputs the full program gives it.
    assert created <= set(full), sorted(created - set(full))
    assert {urn: half[urn].inputs for urn in created} == {urn: full[urn].inputs for urn in created}
    kinds = {r.type for r in (half[urn] for urn in created)}
    assert {
        "kubernetes:helm.sh/v3:Release",
        "kubernetes:apps/v1:DaemonSet",
        "kubernetes:core/v1:ConfigMap",
    } <= kinds
    # What only the full program creates is the cloud's half: the GKE cluster, its pools and their children.
    cloud_half = set(full) - created
    assert cloud_half, "the full program creates the cluster"
    assert all(any(t in urn for t in ("gcp:", "GkeCluster", "GkeGpuNodePool")) for urn in cloud_half), sorted(
        u for u in cloud_half if not any(t in u for t in ("gcp:", "GkeCluster", "GkeGpuNodePool"))
    )


def test_the_half_talks_to_the_given_cluster_only() -> None:
    _, half = _plans()
    (provider,) = [r for r in half.values() if r.type == "pulumi:providers:kubernetes"]
    assert provider.name == f"{DEV['gpu-platform:cluster']['name']}-k8s"
    kubernetes = [r for r in half.values() if r.custom and r.type.startswith("kubernetes:")]
    assert kubernetes
    assert {r.provider.rsplit("::", 1)[0] for r in kubernetes} == {provider.urn}
