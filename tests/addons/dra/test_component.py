"""DRA (issue 16): DRA pools, the NVIDIA DRA driver (standalone chart v0.4.1), DeviceClasses and claim templates.

Every object is checked against what upstream accepts: the pinned chart rendered offline, the
``resource.k8s.io/v1`` schemas of Kubernetes 1.34 (kubernetes-validate), Kueue 0.19's deviceClassMappings
rules and the KServe v0.20 InferenceService CRD.
"""

from __future__ import annotations

import re
from typing import Any

import kubernetes_validate
import pytest
import yaml

from gpu_platform import versions
from gpu_platform.addons.dra import plan as d
from gpu_platform.addons.dra.args_checks import resolve_dra_driver
from gpu_platform.addons.dra.checks import kubernetes_version_problem
from gpu_platform.addons.dra.component import DraDriver
from gpu_platform.addons.gpu_operator.checks import resolve_gpu_operator
from gpu_platform.addons.gpu_operator.plan import (
    device_plugin_config_data,
    gpu_operator_plan,
    mig_parted_config_data,
)
from gpu_platform.errors import ArgumentsError
from gpu_platform.resolve.cluster_pools import resolve_pools
from gpu_platform.scheduling import pool_labels
from gpu_platform.sharing import advertised_resources
from tests.conftest import load_yaml_docs, upstream
from tests.support.chart_values import missing_upstream
from tests.support.crds import problems_of
from tests.support.helm import rendered_documents
from tests.support.refusals import arg_problems
from tests.support.stacks import existing, with_compute_domains

# AKS partitions the A100s when it provisions the node (gpu_instance_profile), with the driver it installs.
A100_MIG_DRA = {
    "name": "a100-mig",
    "machine_type": "Standard_ND96asr_v4",
    "max_nodes": 2,
    "allocation": "dra",
    "sharing": {"mode": "mig", "managed_by": "cloud", "mig": {"layout": "all-1g.5gb"}},
}
T4_PLUGIN = {"name": "t4", "machine_type": "Standard_NC4as_T4_v3", "max_nodes": 2, "spot": True}
AKS_DRIVER = {"owner": "cloud", "host_version": "580.95.05"}
L4_DRA_EKS = {"name": "l4", "machine_type": "g6.12xlarge", "max_nodes": 3, "allocation": "dra"}
L4_PLUGIN_EKS = {
    "name": "l4-shared",
    "machine_type": "g6.2xlarge",
    "max_nodes": 2,
    "sharing": {"mode": "time-slicing", "replicas": 4},
}


def aks_args(**extra: Any) -> dict[str, Any]:
    return {
        "cloud": "aks",
        "kubernetes_version": "1.34",
        "driver": AKS_DRIVER,
        "pools": [A100_MIG_DRA, T4_PLUGIN],
        "claim_namespaces": ["default", "ml-team"],
        **extra,
    }


def problems(args: dict[str, Any]) -> dict[str, str]:
    return arg_problems(lambda a: d.dra_plan(resolve_dra_driver(a)), args)


# --- the pool: DRA or device plugin, never both ---------------------------------------------------------


def test_dra_pool_labels_keep_the_device_plugin_and_mig_manager_off() -> None:
    dra, plugin = resolve_pools("aks", [A100_MIG_DRA, T4_PLUGIN])
    labels = pool_labels(dra)
    assert labels["nvidia.com/dra-kubelet-plugin"] == "true"
    assert labels["nvidia.com/gpu.deploy.device-plugin"] == "false"
    assert labels["nvidia.com/gpu.deploy.mig-manager"] == "false"
    assert labels["gpu-platform.io/allocation"] == "dra"
    assert "nvidia.com/mig.config" not in labels and "nvidia.com/device-plugin.config" not in labels
    other = pool_labels(plugin)
    assert "nvidia.com/dra-kubelet-plugin" not in other
    assert "nvidia.com/gpu.deploy.device-plugin" not in other


def test_gke_dra_pool_also_keeps_gkes_device_plugin_off() -> None:
    (pool,) = resolve_pools(
        "gke", [{"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 1, "allocation": "dra"}]
    )
    labels = pool_labels(pool)
    assert labels["gke-no-default-nvidia-gpu-device-plugin"] == "true"
    assert labels["nvidia.com/gpu.deploy.device-plugin"] == "false"


def test_operator_sharing_config_never_covers_a_dra_pool() -> None:
    mixed = gpu_operator_plan(resolve_gpu_operator({"cloud": "eks", "pools": [L4_DRA_EKS, L4_PLUGIN_EKS]}))
    assert list(device_plugin_config_data(mixed)) == ["l4-shared-time-slicing-4"]
    values = mixed.values
    assert values["devicePlugin"]["enabled"] is True  # the device-plugin pool still needs it
    assert "manager" not in values["driver"]  # AL2023 ships the driver: no driver manager to tell
    only_dra = gpu_operator_plan(resolve_gpu_operator({"cloud": "eks", "pools": [L4_DRA_EKS]}))
    assert only_dra.values["devicePlugin"]["enabled"] is False
    assert device_plugin_config_data(only_dra) == {}


def test_operator_driver_manager_evicts_the_dra_plugin() -> None:
    plan = gpu_operator_plan(
        resolve_gpu_operator({"cloud": "aks", "pools": [{**A100_MIG_DRA, "sharing": {"mode": "none"}}]})
    )
    values = plan.values
    assert plan.driver.driver == "operator"
    assert values["driver"]["manager"]["env"] == [
        {"name": "NODE_LABEL_FOR_GPU_POD_EVICTION", "value": "nvidia.com/dra-kubelet-plugin"}
    ]
    assert values["migManager"]["enabled"] is False  # the only MIG-capable pool is DRA's
    assert mig_parted_config_data(plan) == {}
    chart = yaml.safe_load(upstream("gpu-operator", "values.yaml").read_text())
    assert missing_upstream(values, chart) == []


@pytest.mark.parametrize(
    ("pool", "path", "fragment"),
    [
        (
            {**L4_DRA_EKS, "sharing": {"mode": "time-slicing", "replicas": 2}},
            "pools[0].sharing.mode",
            "replicas are a device-plugin feature",
        ),
        (
            {
                "name": "h100",
                "machine_type": "p5.48xlarge",
                "max_nodes": 1,
                "allocation": "dra",
                "sharing": {"mode": "mig", "mig": {"layout": "all-1g.10gb"}},
            },
            "pools[0].sharing.managed_by",
            "MIG manager cannot partition DRA nodes",
        ),
        (
            {**L4_DRA_EKS, "image": "BOTTLEROCKET_x86_64_NVIDIA"},
            "pools[0].image",
            "its own NVIDIA device plugin",
        ),
    ],
)
def test_what_a_dra_pool_cannot_be(pool: dict[str, Any], path: str, fragment: str) -> None:
    found = problems({"cloud": "eks", "kubernetes_version": "1.34", "pools": [pool]})
    assert list(found) == [path]  # one mistake, one problem: the broken DRA pool is not also "no DRA pool"
    assert fragment in found[path], found


def test_gke_partitioned_mig_is_refused_for_dra() -> None:
    pool = {
        "name": "a100",
        "machine_type": "a2-highgpu-1g",
        "max_nodes": 1,
        "allocation": "dra",
        "sharing": {"mode": "mig", "managed_by": "cloud", "mig": {"layout": "all-1g.5gb"}},
    }
    found = problems({"cloud": "gke", "kubernetes_version": "1.34", "pools": [pool]})
    assert "gpu_partition_size" in found["pools[0].sharing.managed_by"]


# --- the Kubernetes version and the node driver ----------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "ok"),
    [
        ("1.33", False),
        ("1.33.5", False),
        ("1.34.1", False),
        ("1.34", True),
        ("1.34.2", True),
        ("v1.35.0", True),
        ("1.34.3-gke.1136000", True),
        ("1.36.0-eks-4f3c2a1", True),
    ],
)
def test_kubernetes_version_floor(version: str, ok: bool) -> None:
    assert (kubernetes_version_problem(version) is None) is ok


def test_old_cluster_is_refused_naming_the_key() -> None:
    found = problems(aks_args(kubernetes_version="1.33"))
    assert list(found) == ["kubernetes_version"]
    assert "resource.k8s.io/v1 is GA from 1.34" in found["kubernetes_version"]
    assert "not a Kubernetes version" in problems(aks_args(kubernetes_version="latest"))["kubernetes_version"]


def test_cloud_driver_must_be_declared_new_enough() -> None:
    found = problems(aks_args(driver={"owner": "cloud"}))
    assert list(found) == ["driver.host_version"]
    assert ">= 565" in found["driver.host_version"] and "550.144.03" in found["driver.host_version"]
    cd = problems(aks_args(compute_domains=True, driver={"owner": "cloud", "host_version": "565.57.01"}))
    assert "570.158.01" in cd["driver.host_version"]


def test_settings_problems_are_each_named() -> None:
    found = problems(
        aks_args(
            version="v0.4.1",
            namespace="default",
            claim_namespaces=["ml", "ML", "ml"],
            values={"namespace": "x"},
            pools=[T4_PLUGIN],
        )
    )
    assert set(found) == {
        "version",
        "namespace",
        "claim_namespaces[1]",
        "claim_namespaces[2]",
        "values.namespace",
        "pools",
    }
    assert "no pool has allocation 'dra'" in found["pools"]


# --- the plan: chart values, DeviceClasses, claim templates ----------------------------------------------


def test_values_follow_nvidia_for_each_driver_owner() -> None:
    aks = d.dra_plan(resolve_dra_driver(aks_args()))  # type: ignore[arg-type]
    values = aks.values
    assert values["gpuResourcesEnabledOverride"] is True
    assert values["resources"] == {"gpus": {"enabled": True}, "computeDomains": {"enabled": False}}
    assert values["nvidiaDriverRoot"] == "/"  # AKS installs the driver on the host
    assert values["resourceApiVersion"] == "resource.k8s.io/v1"
    assert values["kubeletPlugin"]["nodeSelector"] == {"nvidia.com/dra-kubelet-plugin": "true"}
    # Only the DRA pool's taints (and the health checks' taint: a failing node still needs the plugin to report);
    # the spot T4 pool is not served by the driver.
    assert values["kubeletPlugin"]["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {
            "key": "status-taint.cluster-autoscaler.kubernetes.io/gpu-unhealthy",
            "operator": "Exists",
            "effect": "NoSchedule",
        },
    ]
    operator = d.dra_plan(
        resolve_dra_driver(
            aks_args(
                driver={"owner": "operator"},
                pools=[{**A100_MIG_DRA, "sharing": {"mode": "none"}, "spot": True}],
            )
        )
    )  # type: ignore[arg-type]
    values = operator.values
    assert values["nvidiaDriverRoot"] == "/run/nvidia/driver"
    assert {
        "key": "kubernetes.azure.com/scalesetpriority",
        "operator": "Equal",
        "value": "spot",
        "effect": "NoSchedule",
    } in values["kubeletPlugin"]["tolerations"]
    gke = d.dra_plan(
        resolve_dra_driver(  # type: ignore[arg-type]
            {
                "cloud": "gke",
                "kubernetes_version": "1.34",
                "driver": {"host_version": "580.95.05"},
                "pools": [
                    {"name": "l4", "machine_type": "g2-standard-8", "max_nodes": 1, "allocation": "dra"}
                ],
            }
        )
    )
    values = gke.values
    assert values["nvidiaDriverRoot"] == "/home/kubernetes/bin/nvidia"
    assert values["kubeletPlugin"]["priorityClassName"] == ""
    assert values["controller"] == {"priorityClassName": "", "affinity": None}


def test_typed_values_win_over_the_escape_hatch() -> None:
    plan = d.dra_plan(resolve_dra_driver(aks_args(values={"nvidiaDriverRoot": "/x", "logVerbosity": "6"})))  # type: ignore[arg-type]
    values = plan.values
    assert values["nvidiaDriverRoot"] == "/" and values["logVerbosity"] == "6"


def test_device_classes_and_templates_per_profile() -> None:
    plan = d.dra_plan(resolve_dra_driver(aks_args()))  # type: ignore[arg-type]
    (cls,) = d.device_classes(plan)
    assert cls["metadata"]["name"] == "mig-1g-5gb.gpu.nvidia.com"
    assert cls["spec"] == {
        "selectors": [
            {
                "cel": {
                    "expression": "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == "
                    "'mig' && device.attributes['gpu.nvidia.com'].profile == '1g.5gb'"
                }
            }
        ]
    }
    templates = {(t["metadata"]["namespace"], t["metadata"]["name"]): t for t in d.claim_templates(plan)}
    assert set(templates) == {("default", "mig-1g-5gb"), ("ml-team", "mig-1g-5gb")}
    request = templates[("ml-team", "mig-1g-5gb")]["spec"]["spec"]["devices"]["requests"][0]
    assert request == {
        "name": "gpu",
        "exactly": {
            "deviceClassName": "mig-1g-5gb.gpu.nvidia.com",
            "allocationMode": "ExactCount",
            "count": 1,
        },
    }


def test_whole_gpu_templates_ask_the_librarys_class() -> None:
    plan = d.dra_plan(
        resolve_dra_driver(
            {"cloud": "eks", "kubernetes_version": "1.35", "pools": [L4_DRA_EKS, L4_PLUGIN_EKS]}
        )
    )  # type: ignore[arg-type]
    (cls,) = d.device_classes(plan)
    assert cls["metadata"]["name"] == "whole-gpu.gpu.nvidia.com"
    assert cls["spec"] == {
        "selectors": [{"cel": {"expression": d.whole_gpu_selector()}}]
    }  # no extendedResourceName
    specs = d.claim_template_specs(plan.pools)
    want = "whole-gpu.gpu.nvidia.com"
    assert specs == {"gpu": (want, 1), "gpu-4": (want, 4)}  # g6.12xlarge: 4 L4s


def test_the_demo_spells_profile_selectors_the_same_way() -> None:
    """The library's per-profile class is the driver's own demo class, profile for profile."""
    demo = load_yaml_docs(
        upstream("dra-driver-nvidia-gpu", "demo", "specs", "extended-resources", "mig-1g-12gb.yaml")
    )
    (cls,) = [o for o in demo if o["kind"] == "DeviceClass"]
    assert cls["metadata"]["name"] == d.mig_device_class_name("1g.12gb")
    assert cls["spec"]["selectors"][0]["cel"]["expression"].replace('"', "'") == d.mig_selector("1g.12gb")
    quickstart = upstream(
        "dra-driver-nvidia-gpu", "demo", "specs", "quickstart", "v1", "gpu-test4.yaml"
    ).read_text()
    assert "device.attributes['gpu.nvidia.com'].profile == '1g.5gb'" in quickstart


@pytest.mark.parametrize("scenario", ["aks-mig", "eks-whole"])
def test_objects_validate_against_kubernetes_134(scenario: str) -> None:
    args = (
        aks_args()
        if scenario == "aks-mig"
        else {"cloud": "eks", "kubernetes_version": "1.34", "pools": [L4_DRA_EKS]}
    )
    plan = d.dra_plan(resolve_dra_driver(args))  # type: ignore[arg-type]
    objects = [*d.device_classes(plan), *d.claim_templates(plan)]
    assert objects
    for obj in objects:
        kubernetes_validate.validate(obj, "1.34", strict=True)


def test_schema_check_catches_a_wrong_field() -> None:
    bad = d.claim_template("x", "default", "gpu.nvidia.com", 1)
    bad["spec"]["spec"]["devices"]["requests"][0]["deviceClassName"] = "gpu.nvidia.com"  # pre-v1 spelling
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, "1.34", strict=True)


# --- the pinned chart, rendered offline -----------------------------------------------------------------


def render(values: dict[str, Any]) -> list[dict[str, Any]]:
    return rendered_documents(
        "dra-driver-nvidia-gpu-0.4.1",
        values,
        d.RELEASE_NAME,
        versions.DRA_DRIVER.namespace,
        skip_without_helm=True,
    )


def test_chart_renders_with_the_plans_values() -> None:
    plan = d.dra_plan(resolve_dra_driver(aks_args()))  # type: ignore[arg-type]
    objects = render(plan.values)
    kinds = {(o["kind"], o["metadata"]["name"]) for o in objects}
    assert ("DeviceClass", "gpu.nvidia.com") in kinds and ("DeviceClass", "mig.nvidia.com") in kinds
    # ComputeDomains off: no controller Deployment, no compute-domain classes.
    assert not [o for o in objects if o["kind"] == "Deployment"]
    assert not [n for k, n in kinds if k == "DeviceClass" and n.startswith("compute-domain")]
    gpu_class = next(
        o for o in objects if o["kind"] == "DeviceClass" and o["metadata"]["name"] == "gpu.nvidia.com"
    )
    assert gpu_class["apiVersion"] == "resource.k8s.io/v1"
    assert gpu_class["spec"]["selectors"][0]["cel"]["expression"] == d.whole_gpu_selector()
    (ds,) = [o for o in objects if o["kind"] == "DaemonSet"]
    pod = ds["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"nvidia.com/dra-kubelet-plugin": "true"}
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]
    images = {c["image"] for c in [*pod["containers"], *pod.get("initContainers", [])]}
    assert images == {versions.DRA_DRIVER_IMAGE}
    # The requests Kueue takes off each DRA node reach the plugin's GPU container (plans.node_daemonsets).
    from gpu_platform.plans.node_daemonsets import DRA_KUBELET_PLUGIN_REQUESTS

    gpus = next(c for c in pod["containers"] if c["name"] == "gpus")
    assert gpus["resources"]["requests"] == DRA_KUBELET_PLUGIN_REQUESTS["gpus"].quantities()
    # The library's classes never collide with the chart's.
    assert not {c["metadata"]["name"] for c in d.device_classes(plan)} & {n for _, n in kinds}


def test_chart_refuses_gpus_without_the_override() -> None:
    helm = pytest.importorskip("helm_python")
    with pytest.raises(helm.HelmError, match="gpuResourcesEnabledOverride"):
        render({})


def test_chart_version_and_image_match_the_vendored_chart() -> None:
    chart = yaml.safe_load(upstream("charts", "dra-driver-nvidia-gpu-0.4.1", "Chart.yaml").read_text())
    assert chart["version"] == versions.DRA_DRIVER.version
    assert versions.DRA_DRIVER_IMAGE.endswith(":v" + chart["appVersion"])
    assert chart["kubeVersion"] == ">=1.32.0-0"  # below the library's own 1.34.2 floor


# --- Kueue and KServe paths -----------------------------------------------------------------------------

_QUALIFIED = re.compile(
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"
)


def test_kueue_mappings_keep_the_pools_quota_names() -> None:
    plan = d.dra_plan(resolve_dra_driver(aks_args()))  # type: ignore[arg-type]
    mappings = d.kueue_device_class_mappings(plan.pools)
    (dra,) = plan.dra_pools
    assert [m["name"] for m in mappings] == list(advertised_resources(dra))  # same names the quotas use
    # kueue@v0.19.2 pkg/config/validation.go validateDeviceClassMappings
    assert len(mappings) <= 16
    seen: set[str] = set()
    for m in mappings:
        assert _QUALIFIED.match(m["name"]) and len(m["name"]) <= 253
        assert 1 <= len(m["deviceClassNames"]) <= 8
        for c in m["deviceClassNames"]:
            assert _QUALIFIED.match(c) and c not in seen
            seen.add(c)


def test_templates_fit_kueues_resource_claim_template_path() -> None:
    """Kueue 0.19 charges only ``exactly`` requests in ExactCount mode, without constraints or config."""
    plan = d.dra_plan(resolve_dra_driver(aks_args()))  # type: ignore[arg-type]
    mapped = {c for m in d.kueue_device_class_mappings(plan.pools) for c in m["deviceClassNames"]}
    for t in d.claim_templates(plan):
        devices = t["spec"]["spec"]["devices"]
        assert set(devices) == {"requests"}
        for r in devices["requests"]:
            assert set(r) == {"name", "exactly"} and r["exactly"]["allocationMode"] == "ExactCount"
            assert r["exactly"]["deviceClassName"] in mapped


def test_kserve_predictor_fragment_fits_the_v020_crd() -> None:
    plan = d.dra_plan(resolve_dra_driver(aks_args()))  # type: ignore[arg-type]
    (pool,) = plan.dra_pools
    predictor = d.predictor_claims(pool, "mig-1g-5gb")
    predictor["model"].update(
        modelFormat={"name": "huggingface"}, args=["--model_id=Qwen/Qwen2.5-0.5B-Instruct"]
    )
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "small-llm", "namespace": "ml-team"},
        "spec": {"predictor": predictor},
    }
    assert problems_of(isvc) == []
    assert predictor["nodeSelector"]["gpu-platform.io/pool"] == "a100-mig"
    with pytest.raises(ValueError, match="not a DRA pool"):
        d.predictor_claims(plan.pools[1], "gpu")


# --- the component ---------------------------------------------------------------------------------------


def test_component_registers_release_classes_and_templates(run_component: Any) -> None:
    plan = run_component(lambda: DraDriver("dra", aks_args()))  # type: ignore[arg-type]
    comp = plan.one("gpu-platform:index:DraDriver")
    release = plan.one("kubernetes:helm.sh/v3:Release")
    assert release.parent == comp.urn
    assert release.inputs["chart"] == "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu"
    assert release.inputs["version"] == "0.4.1"
    assert release.inputs["namespace"] == "dra-driver-nvidia-gpu"
    assert release.inputs["values"] == d.dra_plan(resolve_dra_driver(aks_args())).values  # type: ignore[arg-type]
    ns = plan.one("kubernetes:core/v1:Namespace")
    assert ns.inputs["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"
    assert ns.options.get("retainOnDelete") is True
    (cls,) = plan.by_type("kubernetes:resource.k8s.io/v1:DeviceClass")
    assert cls.inputs["metadata"]["name"] == "mig-1g-5gb.gpu.nvidia.com"
    assert release.urn in cls.depends_on
    templates = plan.by_type("kubernetes:resource.k8s.io/v1:ResourceClaimTemplate")
    assert sorted(t.inputs["metadata"]["namespace"] for t in templates) == ["default", "ml-team"]
    for t in templates:
        assert {release.urn, cls.urn} <= set(t.depends_on)


def test_invalid_args_register_nothing(run_component: Any) -> None:
    def program() -> None:
        with pytest.raises(ArgumentsError):
            DraDriver("dra", aks_args(kubernetes_version="1.31"))  # type: ignore[arg-type]

    assert run_component(program).resources == []


def test_a_broken_dra_pool_next_to_others_is_one_problem() -> None:
    broken = {**L4_DRA_EKS, "sharing": {"mode": "mps", "replicas": 2}}
    found = problems({"cloud": "eks", "kubernetes_version": "1.34", "pools": [broken, L4_PLUGIN_EKS]})
    assert list(found) == ["pools[0].sharing.mode"]


def test_kueue_takes_the_dra_plugin_off_each_dra_node() -> None:
    """The same pool as a DRA pool offers Kueue exactly the kubelet plugin's running containers less per
    node: ``gpus`` always, ``computeDomains`` only when ComputeDomains are on (the chart renders that
    container only then)."""
    import dataclasses

    from gpu_platform.addons.kueue.checks import CapacityBasis
    from gpu_platform.addons.kueue.plan import node_units
    from gpu_platform.plans.node_daemonsets import DRA_KUBELET_PLUGIN_REQUESTS
    from gpu_platform.resolve.cluster_pools import resolve_pools

    (pool,) = resolve_pools("aks", [{"name": "a100", "machine_type": "Standard_ND96asr_v4", "max_nodes": 2}])
    dra_pool = dataclasses.replace(pool, allocation="dra")
    cpu, memory = node_units(pool, CapacityBasis("aks"), [pool])
    dra_cpu, dra_memory = node_units(dra_pool, CapacityBasis("aks"), [dra_pool])
    gpus = DRA_KUBELET_PLUGIN_REQUESTS["gpus"]
    assert (cpu - dra_cpu, memory - dra_memory) == (gpus.cpu_millicores, gpus.memory_mib) == (50, 128)
    domains = CapacityBasis("aks", dra_compute_domains=True)
    cd_cpu, cd_memory = node_units(dra_pool, domains, [dra_pool])
    assert (cpu - cd_cpu, memory - cd_memory) == (100, 192)


def test_the_chart_runs_the_compute_domains_container_only_when_asked() -> None:
    """What the quota subtracts is what the pinned chart renders on each DRA node."""
    from gpu_platform.plans.node_daemonsets import dra_kubelet_plugin_containers

    for domains in (False, True):
        plan = d.dra_plan(resolve_dra_driver(aks_args(compute_domains=domains)))  # type: ignore[arg-type]
        (ds,) = [o for o in render(plan.values) if o["kind"] == "DaemonSet"]
        names = {c["name"] for c in ds["spec"]["template"]["spec"]["containers"]}
        chart_names = {"gpus": "gpus", "computeDomains": "compute-domains"}  # values key -> container name
        assert names == {chart_names[c] for c in dra_kubelet_plugin_containers(domains)}, (domains, names)


def test_stack_quota_follows_the_dra_compute_domains_setting() -> None:
    from gpu_platform.stack.spec import load_platform

    raw = existing()
    spec = load_platform(raw)
    assert spec.kueue is not None and spec.kueue.dra_compute_domains is False
    spec = load_platform(with_compute_domains(raw))
    assert spec.kueue is not None and spec.kueue.dra_compute_domains is True


# --- plain nvidia.com/gpu jobs next to DRA pools (Kueue's extended-resource path) --------------------------


def kueue_quota_key(resource: str, classes: list[dict[str, Any]], mappings: list[dict[str, Any]]) -> str:
    """Kueue's quota key for a container's extended-resource request (kueue ``pkg/dra/extended_resources.go``
    ``resolveQuotaKey``, gate ``KueueDRAIntegrationExtendedResource`` on): the DeviceClasses whose
    ``extendedResourceName`` is the resource; none -> the resource (standard path); else the selected class
    (same creation time: the first name) -> its ``deviceClassMappings`` entry, or the resource unmapped."""
    backing = sorted(
        c["metadata"]["name"] for c in classes if c["spec"].get("extendedResourceName") == resource
    )
    if not backing:
        return resource
    mapped = {c: m["name"] for m in mappings for c in m["deviceClassNames"]}
    return mapped.get(backing[0], resource)


def flavors_covering(cluster_queue: dict[str, Any], resource: str) -> set[str]:
    """Flavors with quota for the resource (every flavor of a group lists each covered resource)."""
    return {
        f["name"]
        for group in cluster_queue["spec"]["resourceGroups"]
        for f in group["flavors"]
        for r in f["resources"]
        if r["name"] == resource and r["nominalQuota"] not in (0, "0")
    }


def test_plain_gpu_jobs_are_charged_to_device_plugin_flavors() -> None:
    """The chart's rendered ``gpu.nvidia.com`` carries ``extendedResourceName: nvidia.com/gpu``; with the
    library's Kueue mappings a plain ``nvidia.com/gpu`` pod is still charged as ``nvidia.com/gpu``, which
    only the device-plugin pool's flavor covers, and a claim from the library's template is charged to the
    DRA pool's quota, which only the DRA flavor covers."""
    from tests.support.plans import plan_kueue

    pools = [L4_DRA_EKS, L4_PLUGIN_EKS]
    dra = d.dra_plan(resolve_dra_driver({"cloud": "eks", "kubernetes_version": "1.36", "pools": pools}))  # type: ignore[arg-type]
    classes = [o for o in render(dra.values) if o["kind"] == "DeviceClass"] + d.device_classes(dra)
    chart_gpu = next(c for c in classes if c["metadata"]["name"] == "gpu.nvidia.com")
    assert chart_gpu["spec"]["extendedResourceName"] == "nvidia.com/gpu"  # the premise, from the chart
    kueue = plan_kueue({"cloud": "eks", "pools": pools})  # type: ignore[typeddict-item]
    conf = yaml.safe_load(kueue.values["managerConfig"]["controllerManagerConfigYaml"])
    mappings = conf["resources"]["deviceClassMappings"]
    (cq,) = kueue.objects.cluster_queues

    plain = kueue_quota_key("nvidia.com/gpu", classes, mappings)
    assert plain == "nvidia.com/gpu"
    assert flavors_covering(cq, plain) == {"l4-shared"}
    claim_class = d.claim_template_specs(dra.pools)["gpu"][0]
    claimed = {c: m["name"] for m in mappings for c in m["deviceClassNames"]}[claim_class]
    assert flavors_covering(cq, claimed) == {"l4"}
    # Had the chart's class been mapped (as before), every plain GPU job would land on the DRA quota.
    old = [{"name": claimed, "deviceClassNames": ["gpu.nvidia.com"]}]
    assert kueue_quota_key("nvidia.com/gpu", classes, old) == claimed
    assert "gpu.nvidia.com" not in claimed and not any(
        c == "gpu.nvidia.com" for m in mappings for c in m["deviceClassNames"]
    )
