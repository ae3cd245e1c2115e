"""Isolated fractions end to end: an isolated L4 pool (a T4 on AKS) serving three models in memory slices that
sum to at most its card, with a team queue charged in GPU memory, plans on each cloud and on an existing cluster
with HAMi's release; the same pool time-sliced and reached by two teams is refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gpu_platform.offline.runner import Plan
from gpu_platform.stack import load_platform
from tests.conftest import REPO
from tests.support.kueue import kueue_problems
from tests.support.refusals import config_problems

CLUSTERS: dict[str, dict[str, Any]] = {
    "gke": {"cluster": {"name": "c", "project": "p", "region": "us-central1"}, "gcp:project": "p"},
    "eks": {"cluster": {"name": "c", "region": "us-east-1"}, "aws:region": "us-east-1"},
    "aks": {"cluster": {"name": "c", "region": "eastus", "resourceGroup": "rg"}},
    "existing": {
        "cluster": {"name": "c", "kubeconfig": {"secure": "v1:placeholder"}, "kubernetesVersion": "1.34"}
    },
}
POOL: dict[str, dict[str, Any]] = {
    "gke": {"machineType": "g2-standard-8"},
    "eks": {"machineType": "g6.xlarge"},
    "aks": {"machineType": "Standard_NC4as_T4_v3"},
    "existing": {"gpu": "l4", "gpusPerNode": 1, "cpusPerNode": 8, "memoryGibPerNode": 32},
}
CARD_MIB = {"gke": 24576, "eks": 24576, "aks": 16384, "existing": 24576}


def stack(cloud: str, mode: str = "isolated", teams: int = 1) -> dict[str, Any]:
    """Three models on one pool of 1 node (slices 8 + 8 + 4 GiB of a 24 GiB L4), ``teams`` teams on one queue."""
    extra = {k: v for k, v in CLUSTERS[cloud].items() if k != "cluster"}
    slices = [8192, 8192, 4096] if CARD_MIB[cloud] > 16384 else [8192, 4096, 4096]
    config: dict[str, Any] = {
        "gpu-platform:cloud": cloud,
        "gpu-platform:cluster": CLUSTERS[cloud]["cluster"],
        "gpu-platform:gpuPools": [
            {
                "name": "l4",
                **POOL[cloud],
                "minNodes": 1,
                "maxNodes": 1,
                "sharing": {"mode": mode, "replicas": 4},
            }
        ],
        "gpu-platform:kueue": {
            "clusterQueues": [{"name": "serving"}],
            "teams": [{"name": f"ml-{i}", "clusterQueue": "serving"} for i in range(teams)],
        },
        "gpu-platform:kserve": {
            "enabled": True,
            "services": [
                {
                    "name": f"model-{i}",
                    "namespace": "ml-0",
                    "pool": "l4",
                    "modelFormat": "huggingface",
                    "storageUri": "hf://Qwen/Qwen2.5-0.5B-Instruct",
                    **({"gpuMemoryMib": mib} if mode == "isolated" else {}),
                }
                for i, mib in enumerate(slices)
            ],
        },
        **extra,
    }
    if cloud in ("existing", "aks"):
        config["gpu-platform:gpuOperator"] = {"driver": {"owner": "operator"}}
    return config


def raw(mode: str = "isolated", teams: int = 1) -> dict[str, Any]:
    """The existing cluster's stack as ``load_platform`` reads it (its kubeconfig a plain string, as in tests)."""
    config = {k.split(":", 1)[1]: v for k, v in stack("existing", mode, teams).items()}
    config["cluster"] = {**config["cluster"], "kubeconfig": "apiVersion: v1"}
    return config


def _of(plan: Plan, type_: str) -> list[dict[str, Any]]:
    return [r.inputs for r in plan.by_type(type_)]


@pytest.mark.parametrize("cloud", sorted(CLUSTERS))
def test_an_isolated_pool_serves_three_memory_slices_charged_in_gpu_memory(
    cloud: str, plan_stack: Callable[..., Plan]
) -> None:
    plan = plan_stack("test", REPO, stack(cloud))
    charts = {r["chart"] for r in _of(plan, "kubernetes:helm.sh/v3:Release")}
    assert "hami" in charts
    services = _of(plan, "kubernetes:serving.kserve.io/v1beta1:InferenceService")
    limits = [s["spec"]["predictor"]["model"]["resources"]["limits"] for s in services]
    assert all(lim["nvidia.com/vgpu"] == 1 for lim in limits)
    assert sum(lim["nvidia.com/gpumem"] for lim in limits) <= CARD_MIB[cloud]
    (cq,) = _of(plan, "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue")
    assert kueue_problems(cq) == []
    (group,) = cq["spec"]["resourceGroups"]
    assert {"nvidia.com/vgpu", "nvidia.com/total-gpumem", "nvidia.com/total-gpucores"} <= set(
        group["coveredResources"]
    )
    (flavor,) = [f for f in group["flavors"] if f["name"] == "l4"]
    quota = {r["name"]: r["nominalQuota"] for r in flavor["resources"]}
    assert quota["nvidia.com/total-gpumem"] == CARD_MIB[cloud]  # 1 node x 1 card
    assert quota["nvidia.com/total-gpucores"] == 100 and quota["nvidia.com/vgpu"] == 4


def test_kueue_charges_a_pods_memory_times_its_units(plan_stack: Callable[..., Plan]) -> None:
    import yaml

    plan = plan_stack("test", REPO, stack("gke"))
    (kueue,) = [r for r in _of(plan, "kubernetes:helm.sh/v3:Release") if r["chart"].endswith("/kueue")]
    conf = yaml.safe_load(kueue["values"]["managerConfig"]["controllerManagerConfigYaml"])
    assert conf["resources"]["transformations"] == [
        {
            "input": "nvidia.com/gpucores",
            "strategy": "Replace",
            "multiplyBy": "nvidia.com/vgpu",
            "outputs": {"nvidia.com/total-gpucores": "1"},
        },
        {
            "input": "nvidia.com/gpumem",
            "strategy": "Replace",
            "multiplyBy": "nvidia.com/vgpu",
            "outputs": {"nvidia.com/total-gpumem": "1"},
        },
    ]


def test_hami_is_not_installed_without_an_isolated_pool(plan_stack: Callable[..., Plan]) -> None:
    plan = plan_stack("test", REPO, stack("gke", mode="time-slicing"))
    assert "hami" not in {r["chart"] for r in _of(plan, "kubernetes:helm.sh/v3:Release")}
    (kueue,) = [r for r in _of(plan, "kubernetes:helm.sh/v3:Release") if r["chart"].endswith("/kueue")]
    assert "transformations" not in kueue["values"]["managerConfig"]["controllerManagerConfigYaml"]


@pytest.mark.parametrize("mode", ["time-slicing", "mps"])
def test_an_unisolated_pool_shared_by_two_teams_is_refused(mode: str) -> None:
    config = raw(mode, teams=2)
    found = config_problems(config)
    assert list(found) == ["gpu-platform:gpuPools[0].sharing.mode"]
    reason = found["gpu-platform:gpuPools[0].sharing.mode"]
    assert (
        "pool 'l4'" in reason
        and "ml-0 (team ml-0, service model-0" in reason
        and "ml-1 (team ml-1)" in reason
    )
    assert "'isolated'" in reason
    isolated = raw(teams=2)
    assert [p.sharing.mode for p in load_platform(isolated).pools] == ["isolated"]


def test_memory_slices_beyond_the_pools_cards_are_refused() -> None:
    config = raw()
    config["kserve"]["services"][2]["gpuMemoryMib"] = 16384  # 8 + 8 + 16 GiB > one 24 GiB L4
    found = config_problems(config)
    assert set(found) == {f"gpu-platform:kserve.services[{i}].gpuMemoryMib" for i in range(3)}
    assert "32768 MiB" in found["gpu-platform:kserve.services[0].gpuMemoryMib"]


def test_a_memory_slice_needs_an_isolated_pool_and_half_a_gpu_points_to_it() -> None:
    config = raw("time-slicing")
    config["kserve"]["services"][0]["gpuMemoryMib"] = 8192
    config["kserve"]["services"][1]["gpus"] = 0.5
    found = config_problems(config)
    assert "sharing mode 'isolated'" in found["gpu-platform:kserve.services[0].gpuMemoryMib"]
    assert "gpuMemoryMib" in found["gpu-platform:kserve.services[1].gpus"]
    assert "'isolated'" in found["gpu-platform:kserve.services[1].gpus"]


def test_with_observability_hamis_metrics_are_scraped_by_the_monitoring_stack_not_its_chart(
    plan_stack: Callable[..., Plan],
) -> None:
    """The chart's ServiceMonitors cannot honour the workload's labels, so the observability plan scrapes HAMi
    itself, after the Prometheus Operator CRDs; HAMi no longer waits for the monitoring stack."""
    config = {**stack("existing"), "gpu-platform:observability": {"enabled": True}}
    plan = plan_stack("test", REPO, config)
    hami = plan.one("kubernetes:helm.sh/v3:Release", "hami-helm")
    assert "prometheus" not in hami.inputs["values"]
    monitors = {
        r.inputs["metadata"]["name"]: r
        for r in plan.by_type("kubernetes:monitoring.coreos.com/v1:ServiceMonitor")
    }
    assert {"hami-device-plugin", "hami-scheduler"} <= set(monitors)
    endpoint = monitors["hami-device-plugin"].inputs["spec"]["endpoints"][0]
    assert (endpoint["port"], endpoint["honorLabels"]) == ("monitorport", True)
    crds = plan.one("kubernetes:helm.sh/v3:Release", "observability-crds")
    assert crds.urn in monitors["hami-device-plugin"].depends_on
    off = {**stack("existing"), "gpu-platform:observability": {"enabled": False}}
    without = plan_stack("test", REPO, off)
    assert "prometheus" not in without.one("kubernetes:helm.sh/v3:Release", "hami-helm").inputs["values"]
    assert not without.by_type("kubernetes:monitoring.coreos.com/v1:ServiceMonitor")


def test_a_time_sliced_pool_its_queue_lends_to_no_one_is_one_teams_alone() -> None:
    """A cohort peer reaches a pool only if an owner lends it: with ``lendingLimitPercent: 0`` on the time-sliced
    pool's queue, the other team's queue in the cohort cannot borrow it, so only one namespace reaches it. With
    lending allowed, the same stack is refused."""

    def cohort(lending: int | None) -> dict[str, Any]:
        config = raw("time-slicing")
        config["kserve"] = {"enabled": False}
        config["gpuPools"].append({**config["gpuPools"][0], "name": "l4-b", "sharing": {"mode": "none"}})
        serving: dict[str, Any] = {"name": "serving", "pools": ["l4"], "cohort": "c"}
        if lending is not None:
            serving["lendingLimitPercent"] = lending
        config["kueue"] = {
            "clusterQueues": [serving, {"name": "research", "pools": ["l4-b"], "cohort": "c"}],
            "teams": [
                {"name": "ml-0", "clusterQueue": "serving"},
                {"name": "ml-1", "clusterQueue": "research"},
            ],
        }
        return config

    assert [p.name for p in load_platform(cohort(0)).pools] == ["l4", "l4-b"]
    found = config_problems(cohort(None))
    assert "ml-1 (team ml-1)" in found["gpu-platform:gpuPools[0].sharing.mode"]
