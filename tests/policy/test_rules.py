"""Each policy rule fails on a bad resource and passes on a good one, across the clouds' own shapes.

Resources are written as the Pulumi engine sees them (type token + camelCase properties), the way
any Pulumi program on GKE, EKS or AKS presents them to a policy pack.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gpu_platform.cloud_facts.aks.profile import SPOT_TAINT as AKS_SPOT_TAINT
from gpu_platform.cloud_facts.gke.profile import (
    NO_DEFAULT_DEVICE_PLUGIN_LABEL as GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL,
)
from gpu_platform.policy import RULES, PolicyResource, Violation
from gpu_platform.policy import rules as R
from gpu_platform.policy.operators import chart_name
from gpu_platform.policy_model.kube import parse_quantity, taint_from_string, tolerates
from gpu_platform.policy_model.model import UNKNOWN, path_is_ignored
from gpu_platform.pools import GPU_TAINT, Taint
from gpu_platform.scheduling import ISOLATION_LABEL
from gpu_platform.versions import ALL_CHARTS
from tests.support.policy import GPU_TAINT_GKE, eks_group, only, res

GPU_TAINT_AKS = "nvidia.com/gpu=present:NoSchedule"
EXISTS_ALL = [{"operator": "Exists"}]
DRA_LABELS = {"nvidia.com/dra-kubelet-plugin": "true", "nvidia.com/gpu.deploy.device-plugin": "false"}


def gke_pool(
    name: str = "gpu",
    taints: Any = (GPU_TAINT_GKE,),
    labels: dict[str, str] | None = None,
    driver: str | None = "INSTALLATION_DISABLED",
    machine: str = "g2-standard-8",
    sharing: str | None = None,
    **extra: Any,
) -> PolicyResource:
    acc: dict[str, Any] = {"type": "nvidia-l4", "count": 1}
    if driver is not None:
        acc["gpuDriverInstallationConfig"] = {"gpuDriverVersion": driver}
    if sharing:
        acc["gpuSharingConfig"] = {"gpuSharingStrategy": sharing, "maxSharedClientsPerGpu": 4}
    node_config = {"machineType": machine, "guestAccelerators": [acc], "labels": labels or {}}
    if taints is not None:
        node_config["taints"] = list(taints) if not isinstance(taints, type(UNKNOWN)) else taints
    return res("gcp:container/nodePool:NodePool", {"cluster": "c", "nodeConfig": node_config, **extra}, name)


def aks_pool(
    name: str = "gpu",
    taints: Any = (GPU_TAINT_AKS,),
    size: str = "Standard_NC24ads_A100_v4",
    driver: str | None = "None",
    spot: bool = False,
    labels: dict[str, str] | None = None,
    type_: str = "azure-native:containerservice:AgentPool",
    ignore: tuple[str, ...] = ("count",),
    autoscale: bool = True,
) -> PolicyResource:
    props: dict[str, Any] = {
        "resourceName": "cl",
        "vmSize": size,
        "nodeTaints": list(taints),
        "nodeLabels": labels or {},
        "enableAutoScaling": autoscale,
        "count": 1,
        "minCount": 0,
        "maxCount": 2,
    }
    if driver is not None:
        props["gpuProfile"] = {"driver": driver}
    if spot:
        props["scaleSetPriority"] = "Spot"
    return res(type_, props, name, ignore)


def operator(values: dict[str, Any] | None = None, name: str = "gpu-operator-helm") -> PolicyResource:
    return res(
        "kubernetes:helm.sh/v3:Release",
        {"chart": "gpu-operator", "version": "v26.7.0", "namespace": "gpu-operator", "values": values or {}},
        name,
    )


def deployment(resources: dict[str, Any]) -> PolicyResource:
    container = {"name": "app", "image": "vllm/vllm-openai:v0.11.0", "resources": resources}
    return res(
        "kubernetes:apps/v1:Deployment",
        {"spec": {"template": {"spec": {"containers": [container]}}}},
        "llm",
    )


# --- gpu-pool-taint ---------------------------------------------------------------------------------


def test_gke_gpu_pool_without_taint_fails_with_the_fix() -> None:
    v = only(R.gpu_pool_taint(gke_pool(taints=[])), "gpu-pool-taint")
    assert v.level == "mandatory"
    assert "'gpu'" in v.message and "g2-standard-8" in v.message
    assert (
        'nodeConfig.taints: [{key: "nvidia.com/gpu", value: "present", effect: "NO_SCHEDULE"}]' in v.message
    )


def test_gke_gpu_pool_with_taint_passes() -> None:
    assert R.gpu_pool_taint(gke_pool()) == []


def test_gpu_taint_weakened_to_prefer_no_schedule_fails() -> None:
    weak = {**GPU_TAINT_GKE, "effect": "PREFER_NO_SCHEDULE"}
    v = only(R.gpu_pool_taint(gke_pool(taints=[weak])), "gpu-pool-taint")
    assert "only PreferNoSchedule" in v.message


def test_gke_non_gpu_and_bare_n1_pools_are_not_gpu_pools() -> None:
    cpu = res("gcp:container/nodePool:NodePool", {"nodeConfig": {"machineType": "e2-standard-4"}})
    bare_n1 = res("gcp:container/nodePool:NodePool", {"nodeConfig": {"machineType": "n1-standard-8"}})
    assert R.gpu_pool_taint(cpu) == [] and R.gpu_pool_taint(bare_n1) == []
    n1_t4 = res(
        "gcp:container/nodePool:NodePool",
        {
            "nodeConfig": {
                "machineType": "n1-standard-8",
                "guestAccelerators": [{"type": "nvidia-tesla-t4", "count": 1}],
            }
        },
    )
    only(R.gpu_pool_taint(n1_t4), "gpu-pool-taint")


def test_gke_gpu_shape_without_accelerator_block_is_a_gpu_pool() -> None:
    a3 = res("gcp:container/nodePool:NodePool", {"nodeConfig": {"machineType": "a3-highgpu-8g"}})
    assert only(R.gpu_pool_taint(a3), "gpu-pool-taint").level == "mandatory"
    cpu = res("gcp:container/nodePool:NodePool", {"nodeConfig": {"machineType": "e2-standard-4"}})
    assert R.gpu_pool_taint(cpu) == []


def test_eks_gpu_node_group_without_taint_fails_and_with_taint_passes() -> None:
    v = only(R.gpu_pool_taint(eks_group(taints=[])), "gpu-pool-taint")
    assert 'taints: [{key: "nvidia.com/gpu", value: "present", effect: "NO_SCHEDULE"}]' in v.message
    assert R.gpu_pool_taint(eks_group()) == []


def test_eks_gpu_detected_from_ami_type_or_family_outside_the_catalog() -> None:
    by_ami = eks_group(taints=[], ami="AL2023_x86_64_NVIDIA", instance="x99.large")
    by_family = eks_group(taints=[], ami="AL2023_x86_64_STANDARD", instance="p6-b200.48xlarge")
    cpu = eks_group(taints=[], ami="AL2023_x86_64_STANDARD", instance="m6i.large")
    assert len(R.gpu_pool_taint(by_ami)) == len(R.gpu_pool_taint(by_family)) == 1
    assert R.gpu_pool_taint(cpu) == []


def test_aks_agent_pool_without_taint_fails_and_with_taint_passes() -> None:
    v = only(R.gpu_pool_taint(aks_pool(taints=[])), "gpu-pool-taint")
    assert 'nodeTaints: ["nvidia.com/gpu=present:NoSchedule"]' in v.message
    assert R.gpu_pool_taint(aks_pool()) == []
    versioned = aks_pool(taints=[], type_="azure-native:containerservice/v20250901:AgentPool")
    only(R.gpu_pool_taint(versioned), "gpu-pool-taint")


def test_aks_sizes_outside_the_catalog_and_amd_sizes() -> None:
    assert len(R.gpu_pool_taint(aks_pool(taints=[], size="Standard_NV36ads_A10_v5"))) == 1
    assert R.gpu_pool_taint(aks_pool(taints=[], size="Standard_NV32as_v4")) == []  # AMD MI25
    assert R.gpu_pool_taint(aks_pool(taints=[], size="Standard_D4s_v5")) == []


def test_inline_pools_of_managed_clusters_are_checked() -> None:
    mc = res(
        "azure-native:containerservice:ManagedCluster",
        {
            "agentPoolProfiles": [
                {"name": "system", "vmSize": "Standard_D4s_v5", "mode": "System"},
                {"name": "gpu", "vmSize": "Standard_NC4as_T4_v3", "mode": "User"},
            ]
        },
    )
    v = only(R.gpu_pool_taint(mc), "gpu-pool-taint")
    assert "agentPoolProfiles[1]" in v.message and "'gpu'" in v.message
    gke = res(
        "gcp:container/cluster:Cluster",
        {
            "nodePools": [
                {"name": "l4", "nodeConfig": {"machineType": "g2-standard-4", "taints": [GPU_TAINT_GKE]}}
            ]
        },
    )
    assert R.gpu_pool_taint(gke) == []


def test_unknown_taints_during_preview_are_not_guessed() -> None:
    assert R.gpu_pool_taint(gke_pool(taints=UNKNOWN)) == []


# --- gpu-request-whole-number -----------------------------------------------------------------------


@pytest.mark.parametrize("qty", [0.5, "0.5", "500m", "1.5"])
def test_fractional_gpu_limit_fails(qty: Any) -> None:
    v = only(
        R.gpu_request_whole_number(deployment({"limits": {"nvidia.com/gpu": qty}})),
        "gpu-request-whole-number",
    )
    assert "spec.template.spec.containers[0].resources.limits" in v.message
    assert "must be an integer" in v.message


@pytest.mark.parametrize("qty", [1, "2", "1e0"])
def test_whole_gpu_limit_passes(qty: Any) -> None:
    assert (
        R.gpu_request_whole_number(
            deployment({"limits": {"nvidia.com/gpu": qty}, "requests": {"cpu": "500m"}})
        )
        == []
    )


def test_gpu_request_different_from_limit_fails() -> None:
    d = deployment({"limits": {"nvidia.com/gpu": 2}, "requests": {"nvidia.com/gpu": 1}})
    v = only(R.gpu_request_whole_number(d), "gpu-request-whole-number")
    assert "must equal limits" in v.message
    assert (
        R.gpu_request_whole_number(
            deployment({"limits": {"nvidia.com/gpu": 2}, "requests": {"nvidia.com/gpu": "2"}})
        )
        == []
    )


def test_gpu_request_without_limit_fails() -> None:
    v = only(
        R.gpu_request_whole_number(deployment({"requests": {"nvidia.com/gpu": 1}})),
        "gpu-request-whole-number",
    )
    assert "without a limit" in v.message


def test_requests_in_kserve_predictors_and_jobsets_are_found() -> None:
    isvc = res(
        "kubernetes:serving.kserve.io/v1beta1:InferenceService",
        {
            "spec": {
                "predictor": {
                    "model": {
                        "modelFormat": {"name": "huggingface"},
                        "resources": {"limits": {"nvidia.com/mig-1g.10gb": 0.5}},
                    }
                }
            }
        },
    )
    v = only(R.gpu_request_whole_number(isvc), "gpu-request-whole-number")
    assert v.message.startswith("spec.predictor.model.resources.limits")
    jobset = res(
        "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet",
        {
            "spec": {
                "replicatedJobs": [
                    {
                        "template": {
                            "spec": {
                                "template": {
                                    "spec": {
                                        "containers": [
                                            {"name": "w", "resources": {"limits": {"nvidia.com/gpu": 8}}}
                                        ]
                                    }
                                }
                            }
                        }
                    }
                ]
            }
        },
    )
    assert R.gpu_request_whole_number(jobset) == []


def test_cpu_fractions_and_non_kubernetes_resources_are_ignored() -> None:
    assert R.gpu_request_whole_number(deployment({"limits": {"cpu": "500m", "memory": "1.5Gi"}})) == []
    other = res("gcp:compute/instance:Instance", {"resources": {"limits": {"nvidia.com/gpu": 0.5}}})
    assert R.gpu_request_whole_number(other) == []
    assert R.gpu_request_whole_number(deployment({"limits": {"nvidia.com/gpu": UNKNOWN}})) == []


# --- helm-chart-pinned ------------------------------------------------------------------------------


def helm(chart: str, version: Any = None, type_: str = "kubernetes:helm.sh/v3:Release") -> PolicyResource:
    props = {"chart": chart, **({"version": version} if version is not None else {})}
    return res(type_, props, "rel")


@pytest.mark.parametrize("version", [None, "", "^0.19", "~1.2.0", ">=1.0", "1.x", "latest", "1.2.*"])
def test_unpinned_helm_chart_fails(version: Any) -> None:
    v = only(
        R.helm_chart_pinned(helm("oci://registry.k8s.io/kueue/charts/kueue", version)), "helm-chart-pinned"
    )
    assert "kueue" in v.message


def test_pinned_and_local_helm_charts_pass() -> None:
    assert R.helm_chart_pinned(helm("gpu-operator", "v26.7.0")) == []
    assert R.helm_chart_pinned(helm("./charts/mine")) == []
    assert R.helm_chart_pinned(helm("cert-manager", "1.2.3", "kubernetes:helm.sh/v4:Chart")) == []
    only(R.helm_chart_pinned(helm("cert-manager", None, "kubernetes:helm.sh/v4:Chart")), "helm-chart-pinned")


@pytest.mark.parametrize("pin", ALL_CHARTS, ids=lambda p: p.chart.rsplit("/", 1)[-1])
def test_the_library_chart_pins_pass(pin: Any) -> None:
    assert R.helm_chart_pinned(helm(pin.chart, pin.version)) == []


# --- autoscaled-pool-ignores-size -------------------------------------------------------------------


def test_eks_autoscaled_group_must_ignore_desired_size() -> None:
    v = only(R.autoscaled_pool_ignores_size(eks_group(ignore=())), "autoscaled-pool-ignores-size")
    assert 'ignore_changes=["scalingConfig.desiredSize"]' in v.message
    for ignore in (
        ("scalingConfig.desiredSize",),
        ("scalingConfig",),
        ('scalingConfig["desiredSize"]',),
        ("*",),
    ):
        assert R.autoscaled_pool_ignores_size(eks_group(ignore=ignore)) == [], ignore
    assert R.autoscaled_pool_ignores_size(eks_group(scaling=(2, 2, 2), ignore=())) == []  # fixed size


def test_aks_autoscaled_pool_must_ignore_count() -> None:
    v = only(R.autoscaled_pool_ignores_size(aks_pool(ignore=())), "autoscaled-pool-ignores-size")
    assert 'ignore_changes=["count"]' in v.message
    assert R.autoscaled_pool_ignores_size(aks_pool()) == []
    assert R.autoscaled_pool_ignores_size(aks_pool(ignore=(), autoscale=False)) == []


def test_gke_autoscaled_pool_with_node_count() -> None:
    autoscaling = {"minNodeCount": 0, "maxNodeCount": 3}
    bad = gke_pool(autoscaling=autoscaling, nodeCount=1)
    v = only(R.autoscaled_pool_ignores_size(bad), "autoscaled-pool-ignores-size")
    assert "ignore_node_count_changes=True" in v.message
    assert (
        R.autoscaled_pool_ignores_size(
            gke_pool(autoscaling=autoscaling, nodeCount=1, ignoreNodeCountChanges=True)
        )
        == []
    )
    assert R.autoscaled_pool_ignores_size(gke_pool(autoscaling=autoscaling, initialNodeCount=1)) == []
    ignored = res(bad.type, dict(bad.props), "gpu", ("nodeCount",))
    assert R.autoscaled_pool_ignores_size(ignored) == []


def test_inline_aks_pools_accept_wildcard_ignore_paths() -> None:
    props = {
        "agentPoolProfiles": [
            {"name": "gpu", "vmSize": "Standard_NC4as_T4_v3", "enableAutoScaling": True, "count": 1}
        ]
    }
    v = only(
        R.autoscaled_pool_ignores_size(res("azure-native:containerservice:ManagedCluster", props)),
        "autoscaled-pool-ignores-size",
    )
    assert "agentPoolProfiles[0].count" in v.message
    ok = res("azure-native:containerservice:ManagedCluster", props, ignore=("agentPoolProfiles[*].count",))
    assert R.autoscaled_pool_ignores_size(ok) == []


# --- gpu-operator-tolerations -----------------------------------------------------------------------


def test_operator_defaults_do_not_tolerate_the_aks_spot_taint() -> None:
    found = R.gpu_operator_tolerations([aks_pool(spot=True), operator()])
    assert {v.policy for v in found} == {"gpu-operator-tolerations"}
    keys = sorted(v.message.split(": ")[1].split(" do not")[0] for v in found)
    assert keys == ["daemonsets.tolerations", "node-feature-discovery.worker.tolerations"]
    assert all("kubernetes.azure.com/scalesetpriority=spot:NoSchedule" in v.message for v in found)
    assert all(v.urn == operator().urn and v.level == "mandatory" for v in found)


def test_operator_tolerating_every_pool_taint_passes() -> None:
    tols = [
        {"key": GPU_TAINT.key, "operator": "Exists", "effect": "NoSchedule"},
        {"key": AKS_SPOT_TAINT.key, "operator": "Equal", "value": "spot", "effect": "NoSchedule"},
    ]
    values = {
        "daemonsets": {"tolerations": tols},
        "node-feature-discovery": {"worker": {"tolerations": tols}},
    }
    assert R.gpu_operator_tolerations([aks_pool(spot=True), operator(values)]) == []
    assert R.gpu_operator_tolerations([aks_pool(spot=False), operator()]) == []


def test_user_taints_and_tolerate_everything() -> None:
    dedicated = {"key": "dedicated", "value": "ml", "effect": "NO_EXECUTE"}
    soft = {"key": "soft", "value": "x", "effect": "PREFER_NO_SCHEDULE"}
    pool = eks_group(taints=[GPU_TAINT_GKE, dedicated, soft])
    found = R.gpu_operator_tolerations([pool, operator({"nfd": {"enabled": False}})])
    v = only(found, "gpu-operator-tolerations")
    assert "dedicated=ml:NoExecute" in v.message and "soft" not in v.message
    values = {"daemonsets": {"tolerations": EXISTS_ALL}, "nfd": {"enabled": False}}
    assert R.gpu_operator_tolerations([pool, operator(values)]) == []


def test_standalone_device_plugin_daemonset_without_tolerations_fails() -> None:
    ds = res(
        "kubernetes:apps/v1:DaemonSet",
        {
            "spec": {
                "template": {
                    "spec": {
                        "containers": [{"name": "p", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.20.0"}]
                    }
                }
            }
        },
        "nvidia-device-plugin",
    )
    v = only(R.gpu_operator_tolerations([gke_pool(), ds]), "gpu-operator-tolerations")
    assert "Device plugin 'nvidia-device-plugin'" in v.message
    tolerated = res(
        ds.type,
        {"spec": {"template": {"spec": {**ds.props["spec"]["template"]["spec"], "tolerations": EXISTS_ALL}}}},
    )
    assert R.gpu_operator_tolerations([gke_pool(), tolerated]) == []


# --- single-driver-owner ----------------------------------------------------------------------------


def test_aks_driver_plus_operator_driver_fails() -> None:
    v = only(R.single_driver_owner([aks_pool(driver=None), operator()]), "single-driver-owner")
    assert "AKS installs it" in v.message and 'gpuProfile.driver "None"' in v.message
    assert v.urn == aks_pool().urn


def test_one_driver_owner_passes() -> None:
    assert R.single_driver_owner([aks_pool(driver="None"), operator()]) == []
    assert R.single_driver_owner([aks_pool(driver="Install"), operator({"driver": {"enabled": False}})]) == []


def test_eks_nvidia_ami_plus_operator_driver_fails() -> None:
    v = only(R.single_driver_owner([eks_group(), operator()]), "single-driver-owner")
    assert "AL2023_x86_64_NVIDIA AMI ships it" in v.message
    assert R.single_driver_owner([eks_group(), operator({"driver": {"enabled": "false"}})]) == []


def test_gke_driver_install_plus_operator_driver_fails() -> None:
    for driver in ("DEFAULT", "LATEST", None):
        only(R.single_driver_owner([gke_pool(driver=driver), operator()]), "single-driver-owner")
    assert R.single_driver_owner([gke_pool(driver="INSTALLATION_DISABLED"), operator()]) == []


def test_cluster_policy_resource_counts_as_the_operator() -> None:
    cp = res(
        "kubernetes:nvidia.com/v1:ClusterPolicy", {"spec": {"driver": {"enabled": True}}}, "cluster-policy"
    )
    only(R.single_driver_owner([eks_group(), cp]), "single-driver-owner")
    no_cr = operator({"clusterPolicy": {"deployCR": False}})
    assert R.single_driver_owner([eks_group(), no_cr]) == []


# --- bottlerocket-single-device-plugin --------------------------------------------------------------

BOTTLEROCKET_RULE = RULES["bottlerocket-single-device-plugin"].check
GKE_RULE = RULES["gke-single-device-plugin"].check


def test_each_clouds_device_plugin_rule_keeps_its_name_place_and_old_function() -> None:
    names = list(RULES)
    assert names[names.index("single-driver-owner") + 1 : names.index("time-slicing-isolation")] == [
        "bottlerocket-single-device-plugin",
        "gke-single-device-plugin",
    ]
    with pytest.warns(DeprecationWarning, match=r"RULES\['gke-single-device-plugin'\]\.check"):
        assert R.gke_single_device_plugin is GKE_RULE


def test_bottlerocket_messages_name_the_ami_and_bottlerocket() -> None:
    pool = eks_group(ami="BOTTLEROCKET_x86_64_NVIDIA")
    plugin = res(
        "kubernetes:helm.sh/v3:Release", {"chart": "nvidia-device-plugin", "version": "0.20.0", "values": {}}
    )
    message = only(BOTTLEROCKET_RULE([pool, plugin]), "bottlerocket-single-device-plugin").message
    assert message.endswith(
        "(BOTTLEROCKET_x86_64_NVIDIA), which ships its own device plugin. Keep it off Bottlerocket nodes."
    )
    dra = eks_group(ami="BOTTLEROCKET_x86_64_NVIDIA", labels={"nvidia.com/dra-kubelet-plugin": "true"})
    found = [v.message for v in R.dra_without_device_plugin([dra]) if "AMI" in v.message]
    assert len(found) == 1 and found[0].endswith(
        "is a DRA pool on BOTTLEROCKET_x86_64_NVIDIA, which runs its own NVIDIA device plugin; use the AL2023 "
        "NVIDIA AMI for DRA pools."
    )


def test_bottlerocket_plus_operator_device_plugin_fails() -> None:
    pool = eks_group(ami="BOTTLEROCKET_x86_64_NVIDIA")
    v = only(BOTTLEROCKET_RULE([pool, operator()]), "bottlerocket-single-device-plugin")
    assert "nvidia.com/gpu.deploy.device-plugin=false" in v.message


def test_bottlerocket_without_a_second_plugin_passes() -> None:
    labelled = eks_group(
        ami="BOTTLEROCKET_x86_64_NVIDIA", labels={"nvidia.com/gpu.deploy.device-plugin": "false"}
    )
    assert BOTTLEROCKET_RULE([labelled, operator()]) == []
    pool = eks_group(ami="BOTTLEROCKET_x86_64_NVIDIA")
    assert BOTTLEROCKET_RULE([pool, operator({"devicePlugin": {"enabled": False}})]) == []
    assert BOTTLEROCKET_RULE([eks_group(ami="AL2023_x86_64_NVIDIA"), operator()]) == []


def test_bottlerocket_plus_standalone_device_plugin_chart_fails() -> None:
    plugin = res(
        "kubernetes:helm.sh/v3:Release", {"chart": "nvidia-device-plugin", "version": "0.20.0", "values": {}}
    )
    pool = eks_group(ami="BOTTLEROCKET_x86_64_NVIDIA")
    only(BOTTLEROCKET_RULE([pool, plugin]), "bottlerocket-single-device-plugin")
    pinned = res(plugin.type, {**plugin.props, "values": {"nodeSelector": {"gpu-os": "ubuntu"}}})
    assert BOTTLEROCKET_RULE([pool, pinned]) == []


# --- gke-single-device-plugin -----------------------------------------------------------------------


def test_gke_pool_without_no_default_plugin_label_fails_with_operator() -> None:
    v = only(GKE_RULE([gke_pool(), operator()]), "gke-single-device-plugin")
    assert GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL in v.message and "nodeConfig.labels" in v.message
    assert v.message.startswith("GKE GPU pool ") and v.message.endswith(
        "=false to keep GKE's plugin, e.g. for GKE-managed time-sharing)."
    )
    assert "so GKE's device plugin runs next to the one GPU Operator" in v.message


def test_gke_pool_with_label_or_without_operator_passes() -> None:
    labelled = gke_pool(labels={GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL: "true"})
    assert GKE_RULE([labelled, operator()]) == []
    assert GKE_RULE([gke_pool()]) == []
    keeps_gke = gke_pool(labels={"nvidia.com/gpu.deploy.device-plugin": "false"}, sharing="TIME_SHARING")
    assert GKE_RULE([keeps_gke, operator()]) == []


# --- time-slicing-isolation -------------------------------------------------------------------------

TIME_SLICING = (
    "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n"
)
NO_SHARING = "version: v1\nflags:\n  migStrategy: none\n"


def test_gke_time_sharing_on_isolation_pool_is_an_advisory() -> None:
    pool = gke_pool(labels={ISOLATION_LABEL: "required"}, sharing="TIME_SHARING")
    v = only(R.time_slicing_isolation([pool]), "time-slicing-isolation")
    assert v.level == "advisory" and "GKE gpuSharingConfig TIME_SHARING" in v.message
    assert R.time_slicing_isolation([gke_pool(labels={ISOLATION_LABEL: "required"}, sharing="MPS")]) == []
    assert R.time_slicing_isolation([gke_pool(sharing="TIME_SHARING")]) == []


def test_operator_time_slicing_config_on_isolation_pool_is_an_advisory() -> None:
    labels = {ISOLATION_LABEL: "required", "nvidia.com/device-plugin.config": "a100-ts"}
    values = {"devicePlugin": {"config": {"create": True, "name": "dp", "data": {"a100-ts": TIME_SLICING}}}}
    v = only(R.time_slicing_isolation([aks_pool(labels=labels), operator(values)]), "time-slicing-isolation")
    assert "device-plugin config 'a100-ts'" in v.message
    calm = {"devicePlugin": {"config": {"create": True, "name": "dp", "data": {"a100-ts": NO_SHARING}}}}
    assert R.time_slicing_isolation([aks_pool(labels=labels), operator(calm)]) == []


def test_time_slicing_default_config_from_a_config_map() -> None:
    cm = res("kubernetes:core/v1:ConfigMap", {"metadata": {"name": "dp"}, "data": {"any": TIME_SLICING}})
    values = {"devicePlugin": {"config": {"name": "dp", "default": "any"}}}
    pool = aks_pool(labels={ISOLATION_LABEL: "required"})
    only(R.time_slicing_isolation([pool, cm, operator(values)]), "time-slicing-isolation")
    assert R.time_slicing_isolation([aks_pool(), cm, operator(values)]) == []


# --- time-slicing-across-teams ----------------------------------------------------------------------


def _l4(mode: str) -> PolicyResource:
    return gke_pool(labels={"gpu-platform.io/pool": "l4", "gpu-platform.io/sharing": mode})


def _queues(*namespaces: str) -> list[PolicyResource]:
    """A ClusterQueue listing the ``l4`` flavor, and a LocalQueue on it in each namespace."""
    cq = res(
        "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue",
        {"metadata": {"name": "cq"}, "spec": {"resourceGroups": [{"flavors": [{"name": "l4"}]}]}},
        "cq",
    )
    lqs = [
        res(
            "kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue",
            {"metadata": {"name": "default", "namespace": ns}, "spec": {"clusterQueue": "cq"}},
            f"lq-{ns}",
        )
        for ns in namespaces
    ]
    return [cq, *lqs]


def _service(namespace: str) -> PolicyResource:
    predictor = {"nodeSelector": {"gpu-platform.io/pool": "l4"}}
    return res(
        "kubernetes:serving.kserve.io/v1beta1:InferenceService",
        {"metadata": {"name": "chat", "namespace": namespace}, "spec": {"predictor": predictor}},
        "chat",
    )


def test_a_time_sliced_pool_reached_from_two_namespaces_is_refused() -> None:
    v = only(
        R.time_slicing_across_teams([_l4("time-slicing"), *_queues("ml-a"), _service("ml-b")]),
        "time-slicing-across-teams",
    )
    assert v.level == "mandatory" and "ml-a, ml-b" in v.message and "'isolated'" in v.message
    assert len(R.time_slicing_across_teams([_l4("mps"), *_queues("ml-a", "ml-b")])) == 1
    assert R.time_slicing_across_teams([_l4("isolated"), *_queues("ml-a"), _service("ml-b")]) == []
    assert R.time_slicing_across_teams([_l4("time-slicing"), *_queues("ml-a"), _service("ml-a")]) == []


# --- every rule: one failing and one passing subject -------------------------------------------------

CASES: dict[str, tuple[Any, Any]] = {
    "gpu-pool-taint": (gke_pool(taints=[]), gke_pool()),
    "gpu-request-whole-number": (
        deployment({"limits": {"nvidia.com/gpu": 0.5}}),
        deployment({"limits": {"nvidia.com/gpu": 1}}),
    ),
    "helm-chart-pinned": (helm("gpu-operator"), helm("gpu-operator", "v26.7.0")),
    "mirror-required": (
        deployment({"limits": {"nvidia.com/gpu": 1}}),
        res(
            "kubernetes:apps/v1:Deployment",
            {
                "spec": {
                    "template": {"spec": {"containers": [{"name": "c", "image": "registry.acme/m/cuda:12"}]}}
                }
            },
        ),
    ),
    "autoscaled-pool-ignores-size": (eks_group(ignore=()), eks_group()),
    "gpu-operator-tolerations": ([aks_pool(spot=True), operator()], [aks_pool(), operator()]),
    "single-driver-owner": ([aks_pool(driver="Install"), operator()], [aks_pool(driver="None"), operator()]),
    "bottlerocket-single-device-plugin": (
        [eks_group(ami="BOTTLEROCKET_x86_64_NVIDIA"), operator()],
        [eks_group(ami="BOTTLEROCKET_x86_64_NVIDIA"), operator({"devicePlugin": {"enabled": False}})],
    ),
    "gke-single-device-plugin": (
        [gke_pool(), operator()],
        [gke_pool(labels={GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL: "true"}), operator()],
    ),
    "time-slicing-isolation": (
        [gke_pool(labels={ISOLATION_LABEL: "required"}, sharing="TIME_SHARING")],
        [gke_pool(labels={ISOLATION_LABEL: "required"})],
    ),
    "time-slicing-across-teams": (
        [_l4("time-slicing"), *_queues("ml-a", "ml-b")],
        [_l4("mig"), *_queues("ml-a", "ml-b")],
    ),
    "dra-without-device-plugin": (
        [eks_group(labels={"nvidia.com/dra-kubelet-plugin": "true"}), operator()],
        [eks_group(labels=DRA_LABELS), operator()],
    ),
    "fabric-resources-agree": (
        [res("kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor", {"spec": {"topologyName": "gce-topology"}})],
        [
            res(
                "kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor", {"spec": {"topologyName": "gce-topology"}}
            ),
            res("kubernetes:kueue.x-k8s.io/v1beta2:Topology", {"metadata": {"name": "gce-topology"}}, "t"),
        ],
    ),
    "composition-agrees": (
        [
            aks_pool(
                labels={
                    "nvidia.com/device-plugin.config": "a100-ts",
                    "gpu-platform.io/sharing": "time-slicing",
                }
            ),
            operator(
                {"devicePlugin": {"config": {"create": True, "name": "dp", "data": {"other": TIME_SLICING}}}}
            ),
        ],
        [
            aks_pool(
                labels={
                    "nvidia.com/device-plugin.config": "a100-ts",
                    "gpu-platform.io/sharing": "time-slicing",
                }
            ),
            operator(
                {
                    "devicePlugin": {
                        "config": {"create": True, "name": "dp", "data": {"a100-ts": TIME_SLICING}}
                    }
                }
            ),
        ],
    ),
}


def test_every_registered_rule_has_a_case() -> None:
    assert set(CASES) == set(RULES)
    assert {r.level for r in RULES.values()} == {"mandatory", "advisory"}
    assert all(r.description for r in RULES.values())


CONFIGS: dict[str, dict[str, Any]] = {"mirror-required": {"images": "registry.acme/m"}}
"""The configuration of the rules that take one (``Rule.config_schema``) for their case above."""


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_fails_on_bad_and_passes_on_good(name: str) -> None:
    bad, good = CASES[name]
    rule = RULES[name]
    assert (rule.config_schema is not None) == (name in CONFIGS)
    check: Callable[[Any], list[Violation]] = (
        (lambda subject: rule.check(subject, CONFIGS[name])) if name in CONFIGS else rule.check
    )
    found = check(bad)
    assert found and all(v.policy == name and v.level == RULES[name].level and v.message for v in found)
    assert check(good) == []


# --- helpers ----------------------------------------------------------------------------------------


def test_toleration_matching_follows_kubernetes() -> None:
    t = Taint("nvidia.com/gpu", "present", "NoSchedule")
    assert tolerates({"key": "nvidia.com/gpu", "operator": "Exists"}, t)
    assert tolerates({"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}, t)
    assert not tolerates({"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}, t)
    assert not tolerates({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute"}, t)
    assert tolerates({"operator": "Exists"}, t)
    assert not tolerates({"key": "", "operator": "Equal"}, t)


def test_quantities_paths_and_names() -> None:
    assert parse_quantity("500m") == parse_quantity(0.5)
    assert parse_quantity("2k") == 2000 and parse_quantity("1Ki") == 1024 and parse_quantity("x") is None
    assert taint_from_string("nvidia.com/gpu=present:NoSchedule") == GPU_TAINT
    assert taint_from_string("dedicated:NoExecute") == Taint("dedicated", "", "NoExecute")
    assert path_is_ignored(["nodePools[*].nodeCount"], "nodePools[2].nodeCount")
    assert not path_is_ignored(["scalingConfig.minSize"], "scalingConfig.desiredSize")
    assert (
        chart_name("oci://ghcr.io/nvidia/gpu-operator") == chart_name("nvidia/gpu-operator") == "gpu-operator"
    )
    assert chart_name("gpu-operator-v26.7.0.tgz") == "gpu-operator"


# --- Karpenter and AKS NAP NodePools (issue 16) ------------------------------------------------------------

KARPENTER_GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}


def karpenter_pool(
    requirements: list[dict[str, Any]] | None = None,
    taints: Any = (KARPENTER_GPU_TAINT,),
    group: str = "karpenter.k8s.aws",
    limits: dict[str, str] | None = None,
    name: str = "gpu",
) -> PolicyResource:
    reqs = (
        requirements
        if requirements is not None
        else [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6.2xlarge"]}]
    )
    spec: dict[str, Any] = {
        "template": {
            "metadata": {"labels": {"gpu-platform.io/pool": name}},
            "spec": {
                "nodeClassRef": {"group": group, "kind": "EC2NodeClass", "name": name},
                "requirements": reqs,
                "taints": list(taints) if not isinstance(taints, type(UNKNOWN)) else taints,
            },
        }
    }
    if limits is not None:
        spec["limits"] = limits
    props = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name}, "spec": spec}
    return res("kubernetes:karpenter.sh/v1:NodePool", props, name)


def test_karpenter_gpu_node_pool_without_taint_fails_with_the_nodepool_fix() -> None:
    v = only(R.gpu_pool_taint(karpenter_pool(taints=[])), "gpu-pool-taint")
    assert "'gpu' (g6.2xlarge)" in v.message
    assert (
        'spec.template.spec.taints: [{key: "nvidia.com/gpu", value: "present", effect: "NoSchedule"}]'
        in v.message
    )
    assert R.gpu_pool_taint(karpenter_pool()) == []
    weak = {**KARPENTER_GPU_TAINT, "effect": "PreferNoSchedule"}
    assert (
        "only PreferNoSchedule"
        in only(R.gpu_pool_taint(karpenter_pool(taints=[weak])), "gpu-pool-taint").message
    )


@pytest.mark.parametrize(
    "requirement",
    [
        {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["p5", "p5e"]},
        {"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["g"]},
        {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["0"]},
        {"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["l4"]},
        {"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "Exists"},
        {
            "key": "node.kubernetes.io/instance-type",
            "operator": "In",
            "values": ["x99.large", "p4d.24xlarge"],
        },
    ],
)
def test_karpenter_gpu_detection(requirement: dict[str, Any]) -> None:
    violation = only(R.gpu_pool_taint(karpenter_pool([requirement], taints=[])), "gpu-pool-taint")
    assert "nvidia.com/gpu" in violation.message


def test_karpenter_cpu_pools_are_not_gpu_pools() -> None:
    cpu = [
        {"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["c", "m", "r"]},
        {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "DoesNotExist"},
    ]
    assert R.gpu_pool_taint(karpenter_pool(cpu, taints=[])) == []
    # A GPU limit alone marks a GPU pool (Karpenter counts nvidia.com/gpu of the instance types).
    only(R.gpu_pool_taint(karpenter_pool([], taints=[], limits={"nvidia.com/gpu": "8"})), "gpu-pool-taint")
    assert R.gpu_pool_taint(karpenter_pool(taints=UNKNOWN)) == []


def test_aks_nap_gpu_node_pool_is_checked_too() -> None:
    nap = [{"key": "karpenter.azure.com/sku-name", "operator": "In", "values": ["Standard_NC24ads_A100_v4"]}]
    v = only(R.gpu_pool_taint(karpenter_pool(nap, taints=[], group="karpenter.azure.com")), "gpu-pool-taint")
    assert "spec.template.spec.taints" in v.message
    gpu_count = [{"key": "karpenter.azure.com/sku-gpu-count", "operator": "Gt", "values": ["0"]}]
    only(
        R.gpu_pool_taint(karpenter_pool(gpu_count, taints=[], group="karpenter.azure.com")), "gpu-pool-taint"
    )
    amd = [{"key": "karpenter.azure.com/sku-name", "operator": "In", "values": ["Standard_NV32as_v4"]}]
    assert R.gpu_pool_taint(karpenter_pool(amd, taints=[], group="karpenter.azure.com")) == []


def test_the_librarys_karpenter_and_nap_pools_pass() -> None:
    from gpu_platform.clouds.aks import nap_plan as nap
    from gpu_platform.clouds.eks import karpenter_plan as kp
    from tests.support.plans import plan_aks_nap_pool, plan_eks_karpenter_pool

    eks = plan_eks_karpenter_pool(
        {
            "pool": {"name": "l4", "machine_type": "g6.2xlarge", "max_nodes": 2},
            "node_role_name": "r",
            "discovery": "c",
        }
    )
    aks = plan_aks_nap_pool(
        {
            "pool": {"name": "a100", "machine_type": "Standard_NC24ads_A100_v4", "max_nodes": 1},
            "driver": {"owner": "cloud"},
        }
    )
    for obj in (kp.eks_node_pool(eks), nap.aks_node_pool(aks)):
        resource = res("kubernetes:karpenter.sh/v1:NodePool", obj, obj["metadata"]["name"])
        assert R.gpu_pool_taint(resource) == []
        stripped = res("kubernetes:karpenter.sh/v1:NodePool", obj, obj["metadata"]["name"])
        stripped.props["spec"]["template"]["spec"]["taints"] = []
        only(R.gpu_pool_taint(stripped), "gpu-pool-taint")


def test_operator_must_tolerate_karpenter_pool_taints() -> None:
    training = {"key": "workload", "value": "training", "effect": "NoSchedule"}
    pool = karpenter_pool(taints=[KARPENTER_GPU_TAINT, training])
    found = R.gpu_operator_tolerations([pool, operator()])
    # The daemonsets and the NFD worker, each once.
    assert len(found) == 2 and all("workload=training:NoSchedule" in v.message for v in found)
    tolerant = operator(
        {
            "daemonsets": {"tolerations": EXISTS_ALL},
            "node-feature-discovery": {"worker": {"tolerations": EXISTS_ALL}},
        }
    )
    assert R.gpu_operator_tolerations([pool, tolerant]) == []


# --- dra-without-device-plugin (issue 16) -------------------------------------------------------------------


def dra_release(
    values: dict[str, Any] | None = None,
    chart: str = "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu",
) -> PolicyResource:
    return res(
        "kubernetes:helm.sh/v3:Release",
        {"chart": chart, "version": "0.4.1", "namespace": "dra-driver-nvidia-gpu", "values": values or {}},
        "dra-helm",
    )


def test_device_plugin_on_a_dra_pool_fails_and_the_label_or_switch_fixes_it() -> None:
    dra_pool = eks_group(labels={"nvidia.com/dra-kubelet-plugin": "true"})
    v = only(R.dra_without_device_plugin([dra_pool, operator()]), "dra-without-device-plugin")
    assert "allocated twice" in v.message and "nvidia.com/gpu.deploy.device-plugin=false" in v.message
    assert R.dra_without_device_plugin([eks_group(labels=DRA_LABELS), operator()]) == []
    assert R.dra_without_device_plugin([dra_pool, operator({"devicePlugin": {"enabled": False}})]) == []


def test_dra_on_bottlerocket_and_gke_without_the_no_default_label() -> None:
    br = eks_group(ami="BOTTLEROCKET_x86_64_NVIDIA", labels=DRA_LABELS)
    assert (
        "its own NVIDIA device plugin"
        in only(R.dra_without_device_plugin([br]), "dra-without-device-plugin").message
    )
    gke = gke_pool(labels=DRA_LABELS)
    only(R.dra_without_device_plugin([gke]), "dra-without-device-plugin")
    ok = gke_pool(labels={**DRA_LABELS, GKE_NO_DEFAULT_DEVICE_PLUGIN_LABEL: "true"})
    assert R.dra_without_device_plugin([ok]) == []


def test_dra_driver_without_node_selector_next_to_device_plugin_pools() -> None:
    pools = [eks_group(name="dra", labels=DRA_LABELS), eks_group(name="plugin")]
    v = only(R.dra_without_device_plugin([*pools, dra_release()]), "dra-without-device-plugin")
    assert "kubeletPlugin.nodeSelector is empty" in v.message and "'plugin'" in v.message
    selected = dra_release({"kubeletPlugin": {"nodeSelector": {"nvidia.com/dra-kubelet-plugin": "true"}}})
    assert R.dra_without_device_plugin([*pools, selected]) == []
    compute_domains_only = dra_release({"resources": {"gpus": {"enabled": False}}})
    assert R.dra_without_device_plugin([*pools, compute_domains_only]) == []
    legacy = dra_release(chart="nvidia/nvidia-dra-driver-gpu")
    only(R.dra_without_device_plugin([*pools, legacy]), "dra-without-device-plugin")


def test_the_librarys_dra_plan_passes_the_rule() -> None:
    from gpu_platform.addons.dra import plan as d
    from gpu_platform.addons.dra.args_checks import resolve_dra_driver
    from gpu_platform.addons.gpu_operator.checks import resolve_gpu_operator
    from gpu_platform.addons.gpu_operator.plan import gpu_operator_plan

    pools = [
        {"name": "l4", "machine_type": "g6.12xlarge", "max_nodes": 2, "allocation": "dra"},
        {
            "name": "l4-ts",
            "machine_type": "g6.2xlarge",
            "max_nodes": 2,
            "sharing": {"mode": "time-slicing", "replicas": 2},
        },
    ]
    plan = d.dra_plan(resolve_dra_driver({"cloud": "eks", "kubernetes_version": "1.34", "pools": pools}))
    from gpu_platform.scheduling import pool_labels

    groups = [eks_group(name=p.name, labels=pool_labels(p, plan.driver)) for p in plan.pools]
    op = operator(gpu_operator_plan(resolve_gpu_operator({"cloud": "eks", "pools": pools})).values)
    assert R.dra_without_device_plugin([*groups, op, dra_release(plan.values)]) == []
