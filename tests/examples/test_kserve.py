"""The KServe examples plan offline: what each model requests, where it runs, what the node offers."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
import yaml

from gpu_platform.offline import Plan, run_plan
from tests.conftest import REPO
from tests.support.crds import problems_of

EXAMPLES = REPO / "examples"
ISVC = "kubernetes:serving.kserve.io/v1beta1:InferenceService"
RELEASE = "kubernetes:helm.sh/v3:Release"
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


@pytest.fixture(scope="module")
def l4() -> Plan:
    return run_plan(EXAMPLES / "kserve-l4-shared", "example")


@pytest.fixture(scope="module")
def h100() -> Plan:
    return run_plan(EXAMPLES / "kserve-h100-mig", "example")


def services(plan: Plan) -> dict[str, Any]:
    return {r.inputs["metadata"]["name"]: r for r in plan.by_type(ISVC)}


def check_wiring(plan: Plan, pool: str, gpu: str) -> None:
    """Common to both: the cluster provider, ordering after the operator and KServe, placement."""
    provider = plan.one("pulumi:providers:kubernetes")
    assert provider.inputs["kubeconfig"] == "[secret]"
    after = {plan.one(RELEASE, n).urn for n in ("gpu-operator-helm", "kserve-helm", "kserve-runtimes")}
    assert plan.one(RELEASE, "cert-manager-helm").urn in plan.one(RELEASE, "kserve-helm").depends_on
    for name, r in services(plan).items():
        assert r.provider.startswith(provider.urn), name
        assert after <= set(r.depends_on), name
        p = r.inputs["spec"]["predictor"]
        assert p["nodeSelector"] == {"gpu-platform.io/pool": pool, "gpu-platform.io/gpu": gpu}
        assert GPU_TOLERATION in p["tolerations"]
        assert r.inputs["metadata"]["annotations"] == {"serving.kserve.io/deploymentMode": "Standard"}
        assert r.inputs["metadata"]["namespace"] == "llm"


def test_l4_three_models_each_take_one_time_slice(l4: Plan) -> None:
    isvcs = services(l4)
    assert set(isvcs) == {"qwen25-05b", "qwen25-15b", "smollm2-17b"}
    for name, r in isvcs.items():
        resources = r.inputs["spec"]["predictor"]["model"]["resources"]
        expected = {"nvidia.com/gpu": 1, "cpu": "2", "memory": "8Gi"}
        assert resources == {"limits": expected, "requests": expected}, name
    check_wiring(l4, "l4-shared", "l4")
    # The node's side: 4 replicas of its one L4, and requests for more than one are refused.
    data = l4.one("kubernetes:core/v1:ConfigMap", "gpu-operator-device-plugin-config").inputs["data"]
    ts = yaml.safe_load(data["l4-shared-time-slicing-4"])["sharing"]["timeSlicing"]
    assert ts["resources"] == [{"name": "nvidia.com/gpu", "replicas": 4}]
    assert ts["failRequestsGreaterThanOne"] is True
    assert len(isvcs) < 4  # a spare replica for rolling updates


def test_l4_models_cap_their_gpu_memory(l4: Plan) -> None:
    """No memory isolation with time-slicing: every vLLM caps itself so all replicas fit at once."""
    fractions = []
    for r in services(l4).values():
        args = r.inputs["spec"]["predictor"]["model"]["args"]
        caps = [
            float(m.group(1)) for a in args if (m := re.fullmatch(r"--gpu-memory-utilization=([0-9.]+)", a))
        ]
        assert len(caps) == 1, args
        fractions.append(caps[0])
    assert fractions == [0.22] * 3
    assert 4 * max(fractions) <= 0.9  # even four processes (3 models + 1 rolling update) leave headroom


def test_h100_one_model_per_mig_slice(h100: Plan) -> None:
    isvcs = services(h100)
    limits = {n: r.inputs["spec"]["predictor"]["model"]["resources"]["limits"] for n, r in isvcs.items()}
    assert limits == {
        "qwen25-7b": {"nvidia.com/mig-3g.40gb": 1, "cpu": "8", "memory": "48Gi"},
        "qwen25-3b": {"nvidia.com/mig-2g.20gb": 1, "cpu": "4", "memory": "24Gi"},
        "phi35-mini": {"nvidia.com/mig-2g.20gb": 1, "cpu": "4", "memory": "24Gi"},
    }
    for n, r in isvcs.items():
        assert r.inputs["spec"]["predictor"]["model"]["resources"]["requests"] == limits[n]
    check_wiring(h100, "h100-mig", "h100-80gb")
    # What the node offers after MIG Manager applies the layout covers exactly what is requested.
    data = h100.one("kubernetes:core/v1:ConfigMap", "gpu-operator-mig-parted-config").inputs["data"]
    layout = yaml.safe_load(data["config.yaml"])["mig-configs"]["custom-h100-mig"]
    assert [e["mig-devices"] for e in layout] == [{"2g.20gb": 2, "3g.40gb": 1}]
    requested = Counter(k.removeprefix("nvidia.com/mig-") for v in limits.values() for k in v if "mig-" in k)
    assert requested == Counter(layout[0]["mig-devices"])


def test_example_inference_services_validate_against_the_crd(l4: Plan, h100: Plan) -> None:
    checked = 0
    for plan in (l4, h100):
        for r in services(plan).values():
            assert problems_of(r.inputs) == [], r.name
            checked += 1
    assert checked == 6
