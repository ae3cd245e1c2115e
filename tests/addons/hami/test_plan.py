"""HAMi's values rendered by its own chart at the pin: its device plugin only on the isolated pools, tolerating
their taints, splitting each card as the pools ask, its count resource apart from nvidia.com/gpu, images pinned."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_platform import versions
from gpu_platform.addons.hami.plan import hami_plan, kube_scheduler_tag
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cluster_pools import resolve_pools
from gpu_platform.scheduling import pool_labels
from tests.support.helm import of_kind, render_chart

CHART = f"hami-{versions.HAMI.version}"


def _pools() -> list[GpuPool]:
    return resolve_pools(
        "aks",
        [
            {
                "name": "t4",
                "machine_type": "Standard_NC4as_T4_v3",
                "max_nodes": 2,
                "min_nodes": 1,
                "sharing": {"mode": "isolated", "replicas": 4},
            },
            {"name": "a100", "machine_type": "Standard_NC24ads_A100_v4", "max_nodes": 1},
        ],
    )


def _rendered(pools: list[GpuPool], version: str | None = "1.34") -> list[dict[str, Any]]:
    plan = hami_plan(pools, version)
    return render_chart(CHART, plan.values, "hami", plan.namespace)


def test_the_device_plugin_runs_on_the_isolated_pools_only() -> None:
    pools = _pools()
    (plugin,) = [
        d for d in of_kind(_rendered(pools), "DaemonSet") if "device-plugin" in d["metadata"]["name"]
    ]
    spec = plugin["spec"]["template"]["spec"]
    assert spec["nodeSelector"] == {"gpu-platform.io/sharing": "isolated"}
    assert pool_labels(pools[0])["gpu-platform.io/sharing"] == "isolated"
    assert pool_labels(pools[1])["gpu-platform.io/sharing"] == "none"
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in spec["tolerations"]
    # The operator's toolkit is ready before HAMi's plugin starts (its init container waits for it).
    assert any(
        "toolkit-ready" in " ".join(c.get("command", []) + c.get("args", [])) for c in spec["initContainers"]
    )
    images = {c["image"] for c in spec["containers"]}
    assert images == {"docker.io/projecthami/hami:v2.10.0"}


def test_the_operator_device_plugin_stays_off_isolated_nodes() -> None:
    labels = pool_labels(_pools()[0])
    assert labels["nvidia.com/gpu.deploy.device-plugin"] == "false"
    assert "nvidia.com/gpu.deploy.driver" not in labels  # the driver and toolkit stay the operator's
    gke = resolve_pools(
        "gke",
        [
            {
                "name": "l4",
                "machine_type": "g2-standard-8",
                "max_nodes": 1,
                "min_nodes": 1,
                "sharing": {"mode": "isolated"},
            }
        ],
    )[0]
    assert pool_labels(gke)["gke-no-default-nvidia-gpu-device-plugin"] == "true"


def test_each_card_is_split_as_the_pools_ask_under_its_own_resource_name() -> None:
    objects = _rendered(_pools())
    config = "\n".join(str(cm.get("data")) for cm in of_kind(objects, "ConfigMap"))
    assert "resourceCountName: nvidia.com/vgpu" in config
    assert "resourceMemoryName: nvidia.com/gpumem" in config
    assert "deviceSplitCount: 4" in config


@pytest.mark.parametrize(
    ("version", "tag"), [("1.34", "v1.34.0"), ("1.30.2", "v1.30.0"), (None, "v1.33.0"), ("1.99", "v1.33.0")]
)
def test_the_scheduler_runs_a_pinned_kube_scheduler(version: str | None, tag: str) -> None:
    assert kube_scheduler_tag(version) == tag
    (deployment,) = of_kind(_rendered(_pools(), version), "Deployment")
    images = {c["image"] for c in deployment["spec"]["template"]["spec"]["containers"]}
    assert images == {f"registry.k8s.io/kube-scheduler:{tag}", "docker.io/projecthami/hami:v2.10.0"}
