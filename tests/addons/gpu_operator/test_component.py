"""GPU Operator: exact Helm values per cloud and driver owner, every key path real, objects around it.

Values are checked three ways: exact dicts per cloud (driver ownership applied on the operator side
exactly as the node pools apply it), every leaf key path against the chart's upstream values.yaml,
and the ClusterPolicy sections they become against the upstream ClusterPolicy CRD schema.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import kubernetes_validate
import pulumi
import pytest
import yaml

from gpu_platform.addons.deployment import Deployment
from gpu_platform.addons.gpu_operator import wiring as gpu_operator_wiring
from gpu_platform.addons.gpu_operator.checks import resolve_gpu_operator
from gpu_platform.addons.gpu_operator.component import GpuOperator
from gpu_platform.addons.gpu_operator.plan import (
    CONFIG_DIGEST_ENV,
    DEVICE_PLUGIN_CONFIG_MAP,
    MIG_PARTED_CONFIG_MAP,
    config_digest,
    device_plugin_config_data,
    driver_upgrade_policy,
    gpu_operator_plan,
    mig_parted_config_data,
)
from gpu_platform.cloud_facts.aks.profile import SPOT_TAINT as AKS_SPOT_TAINT
from gpu_platform.cloud_facts.gke.critical_pods import gke_resource_quota_spec
from gpu_platform.cloud_facts.gke.driver_installer import gke_driver_installer
from gpu_platform.errors import ArgumentsError
from gpu_platform.plans.node_daemonsets import GPU_NODE_DAEMONSET_REQUESTS
from gpu_platform.pools import GPU_TAINT, GPU_UNHEALTHY_TAINT
from gpu_platform.stack import load_platform
from gpu_platform.versions import (
    GKE_COS_DRIVER_INSTALLER_IMAGE,
    GKE_DRIVER_INSTALLER_PAUSE_IMAGE,
    GKE_PARTITION_GPU_IMAGE,
    GPU_OPERATOR,
)
from tests.support import crds
from tests.support.chart_values import chart_values, missing_upstream

RELEASE = "kubernetes:helm.sh/v3:Release"
GPU_TOL = {"key": GPU_TAINT.key, "operator": "Exists", "effect": "NoSchedule"}
UNHEALTHY_TOL = {"key": GPU_UNHEALTHY_TAINT.key, "operator": "Exists", "effect": "NoSchedule"}
"""Operands keep running on a node the health checks took out of service (they report, reset, validate)."""
SPOT_TOL = {"key": AKS_SPOT_TAINT.key, "operator": "Equal", "value": "spot", "effect": "NoSchedule"}
CP_TOL = {
    "key": "node-role.kubernetes.io/control-plane",
    "operator": "Equal",
    "value": "",
    "effect": "NoSchedule",
}
GKE_DIR = "/home/kubernetes/bin/nvidia"

L4_TS = {
    "name": "l4",
    "machine_type": "g2-standard-8",
    "max_nodes": 3,
    "spot": True,
    "sharing": {"mode": "time-slicing", "replicas": 4},
}
H100_MIG_GKE = {
    "name": "h100",
    "machine_type": "a3-highgpu-8g",
    "max_nodes": 2,
    "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb"}},
}


def without_requests(values: Mapping[str, Any]) -> dict[str, Any]:
    """The values with each operand's ``resources`` taken out where it is exactly the table's requests
    (``test_every_gpu_node_operand_requests_the_table`` checks those); sections left empty are dropped."""
    out: dict[str, Any] = {}
    for key, section in values.items():
        expected = GPU_NODE_DAEMONSET_REQUESTS.get(key)
        if expected is not None and section.get("resources") == {"requests": expected.quantities()}:
            section = {k: v for k, v in section.items() if k != "resources"}
            if not section:
                continue
        out[key] = section
    return out


def values_of(**args: Any) -> dict[str, Any]:
    """The chart values less the operands' requests and the library's driver upgrade policy (exact-value
    tests below; ``tests/addons/gpu_operator/test_plan.py`` checks the policy)."""
    plan = gpu_operator_plan(resolve_gpu_operator(args))  # type: ignore[arg-type]
    values = copy.deepcopy(dict(plan.values))
    if values.get("driver", {}).get("upgradePolicy") == driver_upgrade_policy(plan):
        del values["driver"]["upgradePolicy"]
    return without_requests(values)


def digest_env(data: Mapping[str, str]) -> dict[str, str]:
    return {"name": CONFIG_DIGEST_ENV, "value": config_digest(data)}


def common(tolerations: list[dict[str, str]]) -> dict[str, Any]:
    return {
        "nfd": {"enabled": True},
        "daemonsets": {"tolerations": tolerations},
        "node-feature-discovery": {"worker": {"tolerations": [CP_TOL, *tolerations]}},
        "dcgmExporter": {"enabled": True, "serviceMonitor": {"enabled": False}},
    }


# --- exact values per cloud -------------------------------------------------------------------------


def test_gke_cos_time_slicing_follows_nvidia_path_a() -> None:
    args = {"cloud": "gke", "pools": [L4_TS]}
    plan = gpu_operator_plan(resolve_gpu_operator(args))  # type: ignore[arg-type]
    dp = device_plugin_config_data(plan)
    assert without_requests(plan.values) == {
        **common([GPU_TOL, UNHEALTHY_TOL]),
        "driver": {"enabled": False},
        "toolkit": {
            "enabled": True,
            "installDir": GKE_DIR,
            "env": [{"name": "RUNTIME_CONFIG_SOURCE", "value": "file"}],
        },
        "hostPaths": {"driverInstallDir": GKE_DIR},
        "cdi": {"enabled": True},
        "devicePlugin": {
            "enabled": True,
            "config": {"name": DEVICE_PLUGIN_CONFIG_MAP, "create": False},
            "env": [digest_env(dp)],
        },
        "mig": {"strategy": "single"},
        "migManager": {"enabled": False},
    }
    assert list(dp) == ["l4-time-slicing-4"]


def test_gke_mig_pool_gets_with_reboot_and_custom_config() -> None:
    plan = gpu_operator_plan(resolve_gpu_operator({"cloud": "gke", "pools": [L4_TS, H100_MIG_GKE]}))
    values = without_requests(plan.values)
    assert values["mig"] == {"strategy": "mixed"}
    assert values["migManager"] == {
        "enabled": True,
        "config": {"name": MIG_PARTED_CONFIG_MAP, "create": False, "default": "all-disabled"},
        "env": [{"name": "WITH_REBOOT", "value": "true"}, digest_env(mig_parted_config_data(plan))],
    }


def test_gke_ubuntu_auto_uses_the_operator_driver_manager() -> None:
    pool = {
        "name": "t4",
        "machine_type": "n1-standard-8",
        "gpus_per_node": 1,
        "max_nodes": 2,
        "image": "UBUNTU_CONTAINERD",
    }
    assert values_of(cloud="gke", pools=[pool]) == {
        **common([GPU_TOL, UNHEALTHY_TOL]),
        "driver": {"enabled": True, "version": "595.91.07"},
        "toolkit": {"enabled": True, "env": [{"name": "RUNTIME_CONFIG_SOURCE", "value": "file"}]},
        "cdi": {"enabled": True},
        "devicePlugin": {"enabled": True},
        "mig": {"strategy": "single"},
        "migManager": {"enabled": False},
    }


@pytest.mark.parametrize(("image", "owner"), [("COS_CONTAINERD", "operator"), ("UBUNTU_CONTAINERD", "cloud")])
def test_gke_unsupported_driver_paths_are_refused(image: str, owner: str) -> None:
    pool = {"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 1, "image": image}
    with pytest.raises(ArgumentsError) as err:
        gpu_operator_plan(resolve_gpu_operator({"cloud": "gke", "pools": [pool], "driver": {"owner": owner}}))
    assert [p for p, _ in err.value.problems] == ["driver.owner"]
    assert image in err.value.problems[0][1]


def test_eks_al2023_driver_and_toolkit_on_the_image() -> None:
    pools = [
        {
            "name": "l4",
            "machine_type": "g6.xlarge",
            "max_nodes": 4,
            "sharing": {"mode": "mps", "replicas": 2},
        },
        {
            "name": "h100",
            "machine_type": "p5.48xlarge",
            "max_nodes": 1,
            "sharing": {"mode": "mig", "mig": {"layout": "all-3g.40gb", "strategy": "single"}},
        },
    ]
    plan = gpu_operator_plan(resolve_gpu_operator({"cloud": "eks", "pools": pools}))
    assert without_requests(plan.values) == {
        **common([GPU_TOL, UNHEALTHY_TOL]),
        "driver": {"enabled": False},
        "toolkit": {"enabled": False},
        "devicePlugin": {
            "enabled": True,
            "config": {"name": DEVICE_PLUGIN_CONFIG_MAP, "create": False},
            "env": [digest_env(device_plugin_config_data(plan))],
        },
        "mig": {"strategy": "single"},
        "migManager": {
            "enabled": True,
            "config": {"name": MIG_PARTED_CONFIG_MAP, "create": False, "default": "all-disabled"},
            "env": [{"name": "WITH_REBOOT", "value": "true"}, digest_env(mig_parted_config_data(plan))],
        },
    }


def test_eks_bottlerocket_runs_no_second_device_plugin() -> None:
    pool = {"name": "l4", "machine_type": "g6.xlarge", "max_nodes": 2, "image": "BOTTLEROCKET_x86_64_NVIDIA"}
    assert values_of(cloud="eks", pools=[pool]) == {
        **common([GPU_TOL, UNHEALTHY_TOL]),
        "driver": {"enabled": False},
        "toolkit": {"enabled": False},
        "devicePlugin": {"enabled": False},
        "mig": {"strategy": "single"},
        "migManager": {"enabled": False},
    }


def test_eks_bottlerocket_cannot_take_operator_time_slicing() -> None:
    pool = {
        "name": "l4",
        "machine_type": "g6.xlarge",
        "max_nodes": 2,
        "image": "BOTTLEROCKET_x86_64_NVIDIA",
        "sharing": {"mode": "time-slicing", "replicas": 4},
    }
    with pytest.raises(ArgumentsError) as err:
        gpu_operator_plan(resolve_gpu_operator({"cloud": "eks", "pools": [pool]}))
    assert [p for p, _ in err.value.problems] == ["pools[0].sharing.mode"]


def test_eks_mixed_images_are_refused() -> None:
    pools = [
        {"name": "a", "machine_type": "g6.xlarge", "max_nodes": 1},
        {"name": "b", "machine_type": "g6.xlarge", "max_nodes": 1, "image": "BOTTLEROCKET_x86_64_NVIDIA"},
    ]
    with pytest.raises(ArgumentsError) as err:
        gpu_operator_plan(resolve_gpu_operator({"cloud": "eks", "pools": pools}))
    assert [p for p, _ in err.value.problems] == ["pools"]


def test_aks_default_operator_driver_tolerates_spot() -> None:
    pools = [
        {"name": "a100", "machine_type": "Standard_NC24ads_A100_v4", "max_nodes": 2, "spot": True},
        {
            "name": "t4",
            "machine_type": "Standard_NC4as_T4_v3",
            "max_nodes": 2,
            "taints": [{"key": "team", "value": "ml", "effect": "NoSchedule"}],
        },
    ]
    team = {"key": "team", "operator": "Equal", "value": "ml", "effect": "NoSchedule"}
    assert values_of(cloud="aks", pools=pools) == {
        **common([GPU_TOL, SPOT_TOL, UNHEALTHY_TOL, team]),
        "driver": {"enabled": True, "version": "595.91.07"},
        "toolkit": {"enabled": True},
        "devicePlugin": {"enabled": True},
        "mig": {"strategy": "single"},
        # The A100 is MIG-capable and the MIG manager's: unlabelled nodes are held at all-disabled.
        "migManager": {"enabled": True, "env": [{"name": "WITH_REBOOT", "value": "true"}]},
    }


def test_aks_managed_driver_uses_the_aks_runtime() -> None:
    pool = {"name": "t4", "machine_type": "Standard_NC4as_T4_v3", "max_nodes": 2}
    assert values_of(cloud="aks", pools=[pool], driver={"owner": "cloud"}) == {
        **common([GPU_TOL, UNHEALTHY_TOL]),
        "driver": {"enabled": False},
        "toolkit": {"enabled": False},
        "operator": {"runtimeClass": "nvidia-container-runtime"},
        "devicePlugin": {"enabled": True},
        "mig": {"strategy": "single"},
        "migManager": {"enabled": False},
    }


EXISTING_A100 = {
    "name": "a100",
    "gpu": "a100-80gb",
    "gpus_per_node": 4,
    "max_nodes": 2,
    "sharing": {"mode": "mig", "mig": {"layout": "all-3g.40gb"}},
}


def test_existing_cluster_operator_owned_without_csp_reboot() -> None:
    plan = gpu_operator_plan(
        resolve_gpu_operator(
            {
                "cloud": "existing",
                "pools": [EXISTING_A100],
                "driver": {"owner": "operator", "version": "580.105.08"},
            }
        )
    )
    values = without_requests(plan.values)
    assert values["driver"] == {
        "enabled": True,
        "version": "580.105.08",
        "upgradePolicy": driver_upgrade_policy(plan),
    }
    assert values["toolkit"] == {"enabled": True}
    assert values["mig"] == {"strategy": "mixed"}
    assert values["migManager"] == {
        "enabled": True,
        "config": {"name": MIG_PARTED_CONFIG_MAP, "create": False, "default": "all-disabled"},
        "env": [digest_env(mig_parted_config_data(plan))],
    }
    assert "hostPaths" not in values and "cdi" not in values and "operator" not in values


def test_existing_cluster_preinstalled_driver() -> None:
    values = values_of(
        cloud="existing", pools=[EXISTING_A100], driver={"owner": "cloud", "host_version": "580.95.05"}
    )
    assert values["driver"] == {"enabled": False}
    assert values["toolkit"] == {"enabled": False}


def test_existing_cluster_must_declare_the_owner() -> None:
    with pytest.raises(ArgumentsError) as err:
        gpu_operator_plan(resolve_gpu_operator({"cloud": "existing", "pools": [EXISTING_A100]}))
    assert [p for p, _ in err.value.problems] == ["driver.owner"]
    assert "existing cluster" in err.value.problems[0][1]


def test_cloud_partitioned_pools_get_no_mig_manager() -> None:
    gke = {
        "name": "a100",
        "machine_type": "a2-highgpu-1g",
        "max_nodes": 1,
        "sharing": {"mode": "mig", "managed_by": "cloud", "mig": {"layout": "all-1g.5gb"}},
    }
    values = values_of(cloud="gke", pools=[gke])
    assert values["migManager"] == {"enabled": False}
    assert "config" not in values["devicePlugin"]
    aks = {
        "name": "nd",
        "machine_type": "Standard_ND96asr_v4",
        "max_nodes": 1,
        "sharing": {"mode": "mig", "managed_by": "cloud", "mig": {"layout": "all-1g.5gb"}},
    }
    # AKS partitions GPUs only with the driver it installs itself (the same check as the node pool's).
    values = values_of(cloud="aks", pools=[aks], driver={"owner": "cloud"})
    # AKS partitions the GPUs; the operator's device plugin serves them with the pool's strategy.
    assert values["migManager"] == {"enabled": False}
    assert values["mig"] == {"strategy": "mixed"}


def test_one_mig_strategy_for_the_operator_device_plugin() -> None:
    pools = [
        {
            "name": "nd",
            "machine_type": "Standard_ND96asr_v4",
            "max_nodes": 1,
            "sharing": {
                "mode": "mig",
                "managed_by": "cloud",
                "mig": {"layout": "all-1g.5gb", "strategy": "single"},
            },
        },
        {
            "name": "h100",
            "machine_type": "Standard_ND96isr_H100_v5",
            "max_nodes": 1,
            "sharing": {"mode": "mig", "mig": {"layout": "all-balanced"}},
        },
    ]
    with pytest.raises(ArgumentsError) as err:
        gpu_operator_plan(
            resolve_gpu_operator({"cloud": "aks", "pools": pools, "driver": {"owner": "cloud"}})
        )
    # all-balanced needs 'mixed', so the cluster's strategy is mixed and the 'single' pool is the conflict.
    assert [p for p, _ in err.value.problems] == ["pools[0].sharing.mig.strategy"]
    assert "'single' conflicts with 'mixed'" in err.value.problems[0][1]


def test_aks_cloud_mig_needs_the_aks_installed_driver() -> None:
    pool = {
        "name": "nd",
        "machine_type": "Standard_ND96asr_v4",
        "max_nodes": 1,
        "sharing": {"mode": "mig", "managed_by": "cloud", "mig": {"layout": "all-1g.5gb"}},
    }
    with pytest.raises(ArgumentsError) as err:
        gpu_operator_plan(resolve_gpu_operator({"cloud": "aks", "pools": [pool]}))
    assert [p for p, _ in err.value.problems] == ["driver.owner"]
    assert "gpu_instance_profile" in err.value.problems[0][1] and "'cloud'" in err.value.problems[0][1]


def test_typed_values_win_over_the_escape_hatch() -> None:
    values = values_of(
        cloud="aks",
        pools=[{"name": "t4", "machine_type": "Standard_NC4as_T4_v3", "max_nodes": 1}],
        values={"driver": {"enabled": False, "usePrecompiled": True}, "gfd": {"enabled": False}},
    )
    assert values["driver"] == {"enabled": True, "usePrecompiled": True, "version": "595.91.07"}
    assert values["gfd"]["enabled"] is False  # the escape hatch still reaches the chart


def test_service_monitor_only_when_asked() -> None:
    pool = {"name": "t4", "machine_type": "Standard_NC4as_T4_v3", "max_nodes": 1}
    assert values_of(cloud="aks", pools=[pool])["dcgmExporter"]["serviceMonitor"] == {"enabled": False}
    asked = values_of(cloud="aks", pools=[pool], dcgm_exporter={"service_monitor": True})
    assert asked["dcgmExporter"] == {"enabled": True, "serviceMonitor": {"enabled": True}}
    off = values_of(cloud="aks", pools=[pool], dcgm_exporter={"enabled": False})
    assert off["dcgmExporter"] == {"enabled": False, "serviceMonitor": {"enabled": False}}
    with pytest.raises(ArgumentsError) as err:
        gpu_operator_plan(
            resolve_gpu_operator(
                {
                    "cloud": "aks",
                    "pools": [pool],
                    "dcgm_exporter": {"enabled": False, "service_monitor": True},
                }
            )
        )
    assert [p for p, _ in err.value.problems] == ["dcgm_exporter.service_monitor"]


@pytest.mark.parametrize(
    ("args", "path"),
    [
        ({"cloud": "gcp"}, "cloud"),
        ({"version": "26.7"}, "version"),
        ({"driver": {"owner": "nvidia"}}, "driver.owner"),
        ({"driver": {"version": "r570"}}, "driver.version"),
        ({"driver_owner": "cloud"}, "driver_owner"),
        ({"dcgm_exporter": True}, "dcgm_exporter"),
        ({"pools": []}, "pools"),
    ],
)
def test_bad_args_name_the_argument(args: dict[str, Any], path: str) -> None:
    base = {"cloud": "aks", "pools": [{"name": "t4", "machine_type": "Standard_NC4as_T4_v3", "max_nodes": 1}]}
    with pytest.raises(ArgumentsError) as err:
        gpu_operator_plan(resolve_gpu_operator({**base, **args}))  # type: ignore[typeddict-item]
    assert [p for p, _ in err.value.problems] == [path]


# --- every key path exists upstream -----------------------------------------------------------------

SCENARIOS: dict[str, dict[str, Any]] = {
    "gke-mixed": {"cloud": "gke", "pools": [L4_TS, H100_MIG_GKE], "dcgm_exporter": {"service_monitor": True}},
    "gke-ubuntu": {
        "cloud": "gke",
        "pools": [
            {
                "name": "t4",
                "machine_type": "n1-standard-8",
                "gpus_per_node": 1,
                "max_nodes": 1,
                "image": "UBUNTU_CONTAINERD",
            }
        ],
    },
    "eks-al2023": {
        "cloud": "eks",
        "pools": [
            {
                "name": "h",
                "machine_type": "p5.48xlarge",
                "max_nodes": 1,
                "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb"}},
            },
            {
                "name": "l",
                "machine_type": "g6.xlarge",
                "max_nodes": 1,
                "sharing": {"mode": "time-slicing", "replicas": 3},
            },
        ],
    },
    "eks-bottlerocket": {
        "cloud": "eks",
        "pools": [
            {"name": "l", "machine_type": "g6.xlarge", "max_nodes": 1, "image": "BOTTLEROCKET_x86_64_NVIDIA"}
        ],
    },
    "aks-operator": {
        "cloud": "aks",
        "pools": [{"name": "a", "machine_type": "Standard_ND96isr_H100_v5", "max_nodes": 1, "spot": True}],
    },
    "aks-cloud": {
        "cloud": "aks",
        "driver": {"owner": "cloud"},
        "pools": [{"name": "t", "machine_type": "Standard_NC4as_T4_v3", "max_nodes": 1}],
    },
    "existing": {"cloud": "existing", "driver": {"owner": "operator"}, "pools": [EXISTING_A100]},
}


@pytest.fixture(scope="module")
def operator_chart_values() -> dict[str, Any]:
    return chart_values("gpu-operator", "values.yaml")


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_every_gpu_node_operand_requests_the_table(scenario: str) -> None:
    # Kueue subtracts exactly these per GPU node (plans.node_daemonsets): the operator must get them too.
    values = gpu_operator_plan(resolve_gpu_operator(SCENARIOS[scenario])).values  # type: ignore[arg-type]
    requests = {key: values[key]["resources"] for key in GPU_NODE_DAEMONSET_REQUESTS}
    assert requests == {
        "driver": {"requests": {"cpu": "200m", "memory": "512Mi"}},
        "toolkit": {"requests": {"cpu": "50m", "memory": "64Mi"}},
        "devicePlugin": {"requests": {"cpu": "50m", "memory": "128Mi"}},
        "gfd": {"requests": {"cpu": "50m", "memory": "64Mi"}},
        "dcgmExporter": {"requests": {"cpu": "100m", "memory": "512Mi"}},
        "migManager": {"requests": {"cpu": "50m", "memory": "128Mi"}},
        "validator": {"requests": {"cpu": "10m", "memory": "32Mi"}},
    }


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_every_values_key_exists_in_the_chart(scenario: str, operator_chart_values: dict[str, Any]) -> None:
    values = gpu_operator_plan(resolve_gpu_operator(SCENARIOS[scenario])).values  # type: ignore[arg-type]
    assert missing_upstream(values, operator_chart_values) == []


# Chart values sections that become ClusterPolicy spec sections as they are (chart-only keys dropped).
CHART_ONLY = {("devicePlugin", "config"): {"create", "data"}, ("migManager", "config"): {"create", "data"}}
CLUSTER_POLICY_SECTIONS = (
    "driver",
    "toolkit",
    "gfd",
    "validator",
    "devicePlugin",
    "mig",
    "migManager",
    "dcgmExporter",
    "cdi",
    "hostPaths",
    "daemonsets",
    "operator",
)


@pytest.fixture(scope="module")
def cluster_policy_spec() -> dict[str, Any]:
    _, _, schema = crds.crd_schema(crds.CRDS["nvidia.com/v1", "ClusterPolicy"], "v1")
    return schema["properties"]["spec"]


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_values_fit_the_cluster_policy_schema(scenario: str, cluster_policy_spec: dict[str, Any]) -> None:
    values = gpu_operator_plan(resolve_gpu_operator(SCENARIOS[scenario])).values  # type: ignore[arg-type]
    checked = 0
    for section in CLUSTER_POLICY_SECTIONS:
        if section not in values:
            continue
        doc = yaml.safe_load(yaml.safe_dump(values[section]))
        for (sec, sub), drop in CHART_ONLY.items():
            if sec == section and sub in doc:
                doc[sub] = {k: v for k, v in doc[sub].items() if k not in drop}
        if section == "driver" and "upgradePolicy" in doc:
            # templates/clusterpolicy.yaml writes the chart's gpuPodDeletion as the CR's podDeletion.
            doc["upgradePolicy"]["podDeletion"] = doc["upgradePolicy"].pop("gpuPodDeletion")
        schema = cluster_policy_spec["properties"][section]
        errors = crds.schema_problems(doc, schema, f"ClusterPolicy.spec.{section}")
        assert errors == [], (section, errors)
        checked += 1
    assert checked > 0


def test_schema_check_catches_a_bad_enum(cluster_policy_spec: dict[str, Any]) -> None:
    found = crds.schema_problems({"strategy": "both"}, cluster_policy_spec["properties"]["mig"], "mig")
    assert found == ["mig.strategy: 'both' is not one of ['none', 'single', 'mixed']"], found


# --- resources around the release ------------------------------------------------------------------


def test_release_is_pinned_and_waits_for_its_prerequisites(run_component: Any) -> None:
    plan = run_component(
        lambda: GpuOperator("gpu-operator", {"cloud": "gke", "pools": [L4_TS, H100_MIG_GKE]})
    )
    comp = plan.one("gpu-platform:index:GpuOperator")
    release = plan.one(RELEASE)
    assert release.parent == comp.urn
    assert release.inputs["chart"] == GPU_OPERATOR.chart == "gpu-operator"
    assert release.inputs["version"] == GPU_OPERATOR.version == "v26.7.0"
    assert release.inputs["repositoryOpts"] == {"repo": "https://helm.ngc.nvidia.com/nvidia"}
    assert release.inputs["namespace"] == "gpu-operator"
    assert release.inputs["createNamespace"] is False
    before = {r.urn for r in plan.resources if r.type != RELEASE and r.custom}
    assert before == set(release.depends_on)
    kinds = sorted(r.type for r in plan.resources if r.urn in before)
    assert kinds == [
        "kubernetes:apps/v1:DaemonSet",
        "kubernetes:core/v1:ConfigMap",
        "kubernetes:core/v1:ConfigMap",
        "kubernetes:core/v1:Namespace",
        "kubernetes:core/v1:ResourceQuota",
    ]
    ns = plan.one("kubernetes:core/v1:Namespace")
    assert ns.inputs["metadata"] == {
        "name": "gpu-operator",
        "labels": {
            "pod-security.kubernetes.io/enforce": "privileged",
            "pod-security.kubernetes.io/audit": "privileged",
            "pod-security.kubernetes.io/warn": "privileged",
        },
    }
    # The values that registered are the pure function's values, and name the registered ConfigMaps.
    values = release.inputs["values"]
    assert (
        values
        == gpu_operator_plan(resolve_gpu_operator({"cloud": "gke", "pools": [L4_TS, H100_MIG_GKE]})).values
    )
    cms = {r.inputs["metadata"]["name"]: r for r in plan.by_type("kubernetes:core/v1:ConfigMap")}
    assert values["devicePlugin"]["config"]["name"] in cms
    assert values["migManager"]["config"]["name"] in cms
    assert values["devicePlugin"]["env"] == [digest_env(cms[DEVICE_PLUGIN_CONFIG_MAP].inputs["data"])]


def test_version_override_and_no_gke_objects_elsewhere(run_component: Any) -> None:
    args = {
        "cloud": "aks",
        "version": "v26.3.0",
        "pools": [{"name": "t4", "machine_type": "Standard_NC4as_T4_v3", "max_nodes": 1}],
    }
    plan = run_component(lambda: GpuOperator("op", args))
    release = plan.one(RELEASE)
    assert release.inputs["version"] == "v26.3.0"
    assert release.inputs["values"]["driver"]["version"] == "580.126.20"  # that release's default driver
    assert {r.type for r in plan.resources} == {
        "gpu-platform:index:GpuOperator",
        "kubernetes:core/v1:Namespace",
        RELEASE,
    }


def test_invalid_args_register_nothing(run_component: Any) -> None:
    def program() -> None:
        with pytest.raises(ArgumentsError):
            GpuOperator("op", {"cloud": "gke", "pools": [L4_TS], "driver": {"owner": "operator"}})

    assert run_component(program).resources == []


def test_gke_quota_allows_critical_pods_for_every_gpu_node(run_component: Any) -> None:
    plan = run_component(lambda: GpuOperator("op", {"cloud": "gke", "pools": [L4_TS, H100_MIG_GKE]}))
    quota = plan.one("kubernetes:core/v1:ResourceQuota")
    assert quota.inputs["metadata"] == {"name": "gpu-operator-quota", "namespace": "gpu-operator"}
    assert quota.inputs["spec"] == {
        "hard": {"pods": "150"},  # 100 (NVIDIA's example) + 10 per GPU node at max (3 + 2)
        "scopeSelector": {
            "matchExpressions": [
                {
                    "operator": "In",
                    "scopeName": "PriorityClass",
                    "values": ["system-node-critical", "system-cluster-critical"],
                },
            ]
        },
    }
    manifest = {"apiVersion": "v1", "kind": "ResourceQuota", **quota.inputs}
    kubernetes_validate.validate(manifest, "1.33", strict=True)


def test_gke_google_installer_daemonset(run_component: Any) -> None:
    plan = run_component(lambda: GpuOperator("op", {"cloud": "gke", "pools": [L4_TS]}))
    ds = plan.one("kubernetes:apps/v1:DaemonSet")
    assert ds.inputs["metadata"]["namespace"] == "kube-system"
    pod = ds.inputs["spec"]["template"]["spec"]
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    # As upstream ships it: GKE-installed drivers and confidential nodes are left alone.
    assert terms == [
        {
            "matchExpressions": [
                {"key": "cloud.google.com/gke-accelerator", "operator": "Exists"},
                {"key": "cloud.google.com/gke-gpu-driver-version", "operator": "DoesNotExist"},
                {"key": "cloud.google.com/gke-confidential-nodes-instance-type", "operator": "DoesNotExist"},
            ]
        }
    ]
    assert pod["tolerations"] == [{"operator": "Exists"}]  # tolerate everything, like upstream
    installer, partition = pod["initContainers"]
    assert installer["image"] == GKE_COS_DRIVER_INSTALLER_IMAGE and installer["imagePullPolicy"] == "Never"
    script = installer["command"][-1]
    # The "already installed" guard, then Google's default driver for the node's COS release.
    assert "if lsmod | grep nvidia; then" in script and "/cos-gpu-installer install || exit 1" in script
    assert pod["containers"][0]["image"] == GKE_DRIVER_INSTALLER_PAUSE_IMAGE
    assert ds.inputs["metadata"]["name"] == "gpu-platform-nvidia-driver-installer"
    assert {"name": "NVIDIA_INSTALL_DIR_HOST", "value": GKE_DIR} in installer["env"]
    assert partition["image"] == GKE_PARTITION_GPU_IMAGE
    mounts = {v["name"]: v["hostPath"]["path"] for v in pod["volumes"]}
    assert mounts["nvidia-install-dir-host"] == GKE_DIR
    assert pod["priorityClassName"] == "system-node-critical" and pod["hostPID"] is True
    manifest = {"apiVersion": "apps/v1", "kind": "DaemonSet", **ds.inputs}
    kubernetes_validate.validate(manifest, "1.33", strict=True)


def test_installer_version_is_its_own_key() -> None:
    driver = {"host_version": "570.172.08", "installer_version": "570.172.08"}
    plan = gpu_operator_plan(resolve_gpu_operator({"cloud": "gke", "pools": [L4_TS], "driver": driver}))
    installer = gke_driver_installer(plan.installer_version)["spec"]["template"]["spec"]["initContainers"][0]
    assert installer["command"][:2] == ["bash", "-c"]
    assert "/cos-gpu-installer install --version=570.172.08 || exit 1" in installer["command"][-1]
    assert str(plan.driver.driver_version) == "570.172.08"
    # hostVersion alone feeds the CUDA check and installs nothing.
    plan = gpu_operator_plan(
        resolve_gpu_operator({"cloud": "gke", "pools": [L4_TS], "driver": {"host_version": "570.172.08"}})
    )
    assert plan.installer_version is None


def test_installer_version_is_refused_where_google_does_not_install() -> None:
    with pytest.raises(ArgumentsError) as err:
        gpu_operator_plan(
            resolve_gpu_operator(
                {
                    "cloud": "aks",
                    "pools": [{"name": "a100", "machine_type": "Standard_NC24ads_A100_v4", "max_nodes": 2}],
                    "driver": {"installer_version": "570.172.08"},
                }
            )
        )
    assert [p for p, _ in err.value.problems] == ["driver.installer_version"]


def test_packaged_gke_installer_is_the_pinned_upstream_manifest() -> None:
    from hashlib import sha256
    from importlib import resources

    from gpu_platform.versions import GKE_COS_INSTALLER

    data = resources.files("gpu_platform").joinpath("data", GKE_COS_INSTALLER.file).read_bytes()
    assert sha256(data).hexdigest() == GKE_COS_INSTALLER.sha256
    text = data.decode()
    for image in (GKE_COS_DRIVER_INSTALLER_IMAGE, GKE_PARTITION_GPU_IMAGE, GKE_DRIVER_INSTALLER_PAUSE_IMAGE):
        assert f'image: "{image}"' in text


def test_gke_quota_counts_max_nodes() -> None:
    plan = gpu_operator_plan(resolve_gpu_operator({"cloud": "gke", "pools": [{**L4_TS, "max_nodes": 20}]}))
    assert gke_resource_quota_spec(plan.pools)["hard"] == {"pods": "300"}


def test_stack_config_and_component_args_give_the_same_operator(run_component: Any) -> None:
    raw = {
        "cloud": "aks",
        "cluster": {"name": "c"},
        "cudaVersion": "12.8",
        "gpuPools": [
            {
                "name": "h100",
                "machineType": "Standard_ND96isr_H100_v5",
                "minNodes": 1,
                "maxNodes": 2,
                "spot": True,
                "sharing": {"mode": "mig", "mig": {"profiles": ["3g.40gb", "2g.20gb", "2g.20gb"]}},
            }
        ],
        "gpuOperator": {
            "driver": {"version": "580.105.08"},
            "dcgmExporter": {"serviceMonitor": True},
            "values": {"gfd": {"enabled": False}},
        },
        "kueue": {"enabled": False},
        # The component has no observability section: compare without the metrics path's DCGM settings.
        "observability": {"enabled": False},
    }
    spec = load_platform(raw)
    built: dict[str, Any] = {}
    registered = run_component(lambda: built.__setitem__("op", _deployed(spec, gpu_operator_wiring)))
    plan = built["op"].plan
    assert plan.pools[0].cuda_version == "12.8"  # the stack's cudaVersion reaches the pool's CUDA check
    values = plan.values
    assert registered.one(RELEASE).inputs["values"] == values
    driver = {k: v for k, v in without_requests(values)["driver"].items() if k != "upgradePolicy"}
    assert driver == {"enabled": True, "version": "580.105.08"}
    assert values["driver"]["upgradePolicy"] == driver_upgrade_policy(plan)
    assert values["dcgmExporter"]["serviceMonitor"] == {"enabled": True}
    assert values["gfd"]["enabled"] is False  # the escape hatch still reaches the chart
    assert values["daemonsets"]["tolerations"] == [GPU_TOL, SPOT_TOL, UNHEALTHY_TOL]
    mig = yaml.safe_load(mig_parted_config_data(plan)["config.yaml"])
    assert mig["mig-configs"]["custom-h100"][0]["mig-devices"] == {"2g.20gb": 2, "3g.40gb": 1}
    # The same settings given to the component as arguments make the same chart values and ConfigMaps.
    component = gpu_operator_plan(
        resolve_gpu_operator(
            {
                "cloud": "aks",
                "cuda_version": "12.8",
                "pools": [
                    {
                        "name": "h100",
                        "machine_type": "Standard_ND96isr_H100_v5",
                        "min_nodes": 1,
                        "max_nodes": 2,
                        "spot": True,
                        "sharing": {"mode": "mig", "mig": {"profiles": ["3g.40gb", "2g.20gb", "2g.20gb"]}},
                    }
                ],
                "driver": {"version": "580.105.08"},
                "dcgm_exporter": {"service_monitor": True},
                "values": {"gfd": {"enabled": False}},
            }
        )
    )
    assert component.values == values
    assert mig_parted_config_data(component) == mig_parted_config_data(plan)
    assert component.pools == plan.pools and component.driver == plan.driver


def _deployed(spec: Any, wiring: Any) -> Any:
    """The add-on's component as the stack deploys it (its wiring, with no other add-on on)."""
    deployment = Deployment(spec, pulumi.ResourceOptions(), {})
    wiring.deploy(deployment)
    return deployment.created["gpu_operator"]
