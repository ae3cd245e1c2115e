"""A team, inference service or Slurm namespace that the platform owns is refused on that platform, naming the key:
OpenShift's operator, NFD, monitoring and Machine API namespaces and any ``openshift-*``, ``kube-*`` everywhere; the
same names plan as ordinary namespaces where the platform does not own them."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from gpu_platform.stack import load_platform
from tests.conftest import REPO
from tests.support.refusals import config_problems
from tests.support.stacks import existing


def _openshift(**sections: Any) -> dict[str, Any]:
    doc = yaml.safe_load((REPO / "examples" / "openshift-olm" / "Pulumi.example.yaml").read_text())["config"]
    raw = {k.split(":", 1)[1]: v for k, v in doc.items() if k.startswith("gpu-platform:")}
    raw["cluster"] = {**raw["cluster"], "kubeconfig": "apiVersion: v1"}
    return {**raw, **sections}


OPENSHIFT_OWNED = [
    ("nvidia-gpu-operator", "GPU Operator"),
    ("openshift-nfd", "Node Feature Discovery"),
    ("openshift-monitoring", "Prometheus"),
    ("openshift-machine-api", "Machine API"),
    ("openshift-gpu-teams", "'openshift-*'"),
    ("kube-flow", "'kube-*'"),
]


@pytest.mark.parametrize(("namespace", "owner"), OPENSHIFT_OWNED)
def test_a_kueue_team_in_an_openshift_namespace_is_refused(namespace: str, owner: str) -> None:
    kueue = {"teams": [{"name": "ml", "namespace": namespace, "clusterQueue": "gpu"}]}
    reason = config_problems(_openshift(kueue=kueue))["gpu-platform:kueue.teams[0].namespace"]
    assert namespace in reason and owner in reason, reason


def test_a_team_named_like_the_platform_namespace_names_the_name_key() -> None:
    kueue = {"teams": [{"name": "openshift-nfd", "clusterQueue": "gpu"}]}
    assert "gpu-platform:kueue.teams[0].name" in config_problems(_openshift(kueue=kueue))


def test_an_inference_service_in_an_openshift_namespace_is_refused() -> None:
    kserve = {
        "enabled": True,
        "services": [
            {
                "name": "llm",
                "namespace": "openshift-monitoring",
                "pool": "l4",
                "gpus": 1,
                "storageUri": "hf://m/m",
            }
        ],
    }
    problems = config_problems(_openshift(kserve=kserve))
    assert "openshift-monitoring" in problems["gpu-platform:kserve.services[0].namespace"]


def test_the_same_names_are_ordinary_namespaces_elsewhere() -> None:
    raw = existing()
    spec = load_platform(
        {
            **raw,
            "kueue": {
                **raw["kueue"],
                "teams": [{"name": "ml", "namespace": "nvidia-gpu-operator", "clusterQueue": "gpu"}],
            },
        }
    )
    assert spec.kueue is not None and spec.kueue.teams[0].namespace == "nvidia-gpu-operator"


def test_kube_prefixed_team_namespaces_are_refused_on_every_platform() -> None:
    raw = existing()
    kueue = {**raw["kueue"], "teams": [{"name": "ml", "namespace": "kube-flow", "clusterQueue": "gpu"}]}
    assert "'kube-*'" in config_problems({**raw, "kueue": kueue})["gpu-platform:kueue.teams[0].namespace"]
