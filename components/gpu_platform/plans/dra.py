"""The DRA plan: the NVIDIA DRA driver release, DeviceClasses and ResourceClaimTemplates.

Decision: the standalone ``dra-driver-nvidia-gpu`` chart v0.4.1 next to the GPU Operator's ClusterPolicy,
not the operator-managed GPUCluster path of v26.7.0 (tests/upstream/NEW_COMPONENTS_NOTES.md section 6):

- GPUCluster and ClusterPolicy exclude each other cluster-wide (no device plugin anywhere, no in-place
  migration), so a stack could not keep device-plugin pools next to DRA pools; the standalone driver is
  kept off device-plugin nodes by a node selector, and the operator's device plugin off DRA nodes by its
  per-node ``nvidia.com/gpu.deploy.device-plugin=false`` label.
- GPUCluster runs DRA driver v0.5.0, which has no tag in the pinned sources, is a technology preview in
  the 26.7 docs, has no GKE procedure, and its chart cannot be rendered offline here (it needs
  ``--api-versions``); v0.4.1 is vendored (chart, demo specs, docs) and renders.
- The standalone procedure is NVIDIA's (cloud-native-docs 26.3 dra-intro-install, DRA driver 0.4.1): the
  operator keeps driver/toolkit/NFD/GFD/DCGM, its device plugin is off where DRA owns the GPUs, its
  driver manager evicts the DRA plugin on driver upgrades (``NODE_LABEL_FOR_GPU_POD_EVICTION``), the DRA
  kubelet plugin runs only on nodes labelled ``nvidia.com/dra-kubelet-plugin=true`` and the chart gets
  ``gpuResourcesEnabledOverride=true`` (its guard against running next to a device plugin).

DeviceClasses: the chart creates ``gpu.nvidia.com`` (whole GPUs, ``type == 'gpu'``) and ``mig.nvidia.com``;
the library adds one class per MIG profile its DRA pools expose, named and selected like the driver's own
demo (``demo/specs/extended-resources/mig-1g-12gb.yaml``: ``mig-1g-12gb.gpu.nvidia.com``, CEL on
``device.attributes['gpu.nvidia.com'].type`` and ``.profile``, the attribute names the kubelet plugin
publishes in ``cmd/gpu-kubelet-plugin/mig.go``), so Kueue can keep one quota per profile. No
``extendedResourceName`` on the library's classes: the field is alpha in 1.34 (DRAExtendedResource).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_platform import scheduling, versions
from gpu_platform.args.dra import DEFAULT_CLAIM_NAMESPACES, DraDriverArgs
from gpu_platform.args.validate import check_arguments
from gpu_platform.clouds import profile_of
from gpu_platform.driver import DriverPlan
from gpu_platform.errors import Problems
from gpu_platform.plans.helm import deep_merge
from gpu_platform.plans.node_daemonsets import DRA_KUBELET_PLUGIN_REQUESTS
from gpu_platform.pools import GpuPool
from gpu_platform.resolve.cloud_pools import resolve_cluster_pools
from gpu_platform.resolve.dra import (
    declares_dra,
    dra_driver_problems,
    dra_pools,
    kubernetes_version_problem,
)
from gpu_platform.resolve.driver import DriverLocations, resolve_driver
from gpu_platform.resolve.kubernetes import namespace_problem
from gpu_platform.resolve.pools import check_cuda_default
from gpu_platform.sharing import DRA_QUOTA_PREFIX

RESOURCE_API_VERSION = "resource.k8s.io/v1"
"""GA DRA API (Kubernetes 1.34); set explicitly so an offline render and the cluster agree."""
DRIVER_NAME = "gpu.nvidia.com"
"""The GPU kubelet plugin's driver name, also the attribute domain of its devices."""
WHOLE_GPU_CLASS = "gpu.nvidia.com"
"""Created by the chart (templates/deviceclass-gpu.yaml) when ``resources.gpus.enabled``."""
MIG_CLASS = "mig.nvidia.com"
"""Created by the chart (templates/deviceclass-mig.yaml): every MIG device, any profile."""
CHART_DEVICE_CLASSES = (WHOLE_GPU_CLASS, MIG_CLASS, "vfio.gpu.nvidia.com")
OPERATOR_DRIVER_ROOT = "/run/nvidia/driver"
"""Where the GPU Operator's driver container puts the driver (chart values.yaml comment)."""
HOST_DRIVER_ROOT = "/"
EVICTION_ENV = "NODE_LABEL_FOR_GPU_POD_EVICTION"
"""GPU Operator driver manager: also evict pods on nodes with this label when the driver is upgraded."""
CHART_VERSION = re.compile(r"^\d+\.\d+\.\d+$")
RELEASE_NAME = "dra-driver-nvidia-gpu"
PSA_PRIVILEGED_LABELS = {
    "pod-security.kubernetes.io/enforce": "privileged",
    "pod-security.kubernetes.io/audit": "privileged",
    "pod-security.kubernetes.io/warn": "privileged",
}
"""The kubelet plugin runs privileged (chart values ``kubeletPlugin.containers.gpus.securityContext``)."""


def _dns(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def mig_device_class_name(profile: str) -> str:
    """``1g.10gb`` -> ``mig-1g-10gb.gpu.nvidia.com`` (the driver demo's spelling)."""
    return f"mig-{_dns(profile)}.{DRIVER_NAME}"


def mig_selector(profile: str) -> str:
    return (
        f"device.driver == '{DRIVER_NAME}' && device.attributes['{DRIVER_NAME}'].type == 'mig' && "
        f"device.attributes['{DRIVER_NAME}'].profile == '{profile}'"
    )


def whole_gpu_selector() -> str:
    """The chart's own ``gpu.nvidia.com`` selector (templates/deviceclass-gpu.yaml)."""
    return f"device.driver == '{DRIVER_NAME}' && device.attributes['{DRIVER_NAME}'].type == 'gpu'"


# --- Plan -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DraPlan:
    """Everything ``DraDriver`` creates, resolved and checked once."""

    cloud: str
    pools: tuple[GpuPool, ...]
    """Every pool of the cluster; the driver serves the DRA ones."""
    driver: DriverPlan
    kubernetes_version: str
    version: str = versions.DRA_DRIVER.version
    namespace: str = versions.DRA_DRIVER.namespace
    compute_domains: bool = False
    claim_namespaces: tuple[str, ...] = DEFAULT_CLAIM_NAMESPACES
    user_values: Mapping[str, Any] = field(default_factory=dict)

    @property
    def dra_pools(self) -> list[GpuPool]:
        return dra_pools(self.pools)


def mig_profiles(pools: Sequence[GpuPool]) -> list[str]:
    """MIG profiles the DRA pools expose, sorted."""
    return sorted(
        {prof for p in dra_pools(pools) if p.sharing.mode == "mig" for prof in p.sharing.mig_profiles}
    )


def whole_gpu_counts(pools: Sequence[GpuPool]) -> list[int]:
    """GPUs per node of the DRA pools that are not partitioned (claim templates for 1 and a whole node)."""
    counts = {p.gpus_per_node for p in dra_pools(pools) if p.sharing.mode == "none"}
    return sorted(counts | ({1} if counts else set()))


def driver_root(cloud: str, driver: DriverPlan) -> str:
    """``nvidiaDriverRoot``: the operator's driver container, GKE's install dir, or the host's ``/``."""
    if driver.driver == "operator":
        return OPERATOR_DRIVER_ROOT
    return profile_of(cloud).driver_root(driver)


def kubelet_plugin_tolerations(pools: Sequence[GpuPool]) -> list[dict[str, str]]:
    """The GPU taint (as the chart's default has it) plus every other taint of the DRA pools, once each."""
    out: list[dict[str, str]] = []
    for pool in dra_pools(pools):
        for tol in scheduling.pool_tolerations(pool):
            if tol not in out:
                out.append(tol)
    return out


def helm_values(plan: DraPlan) -> dict[str, Any]:
    """Chart values: the user's escape hatch under the library's typed values."""
    values: dict[str, Any] = {
        # The chart refuses resources.gpus.enabled without it (templates/validation.yaml): the library keeps
        # the device plugin off these nodes (nvidia.com/gpu.deploy.device-plugin=false), which is the
        # condition the guard asks for.
        "gpuResourcesEnabledOverride": True,
        "resources": {"gpus": {"enabled": True}, "computeDomains": {"enabled": plan.compute_domains}},
        "nvidiaDriverRoot": driver_root(plan.cloud, plan.driver),
        "resourceApiVersion": RESOURCE_API_VERSION,
        "kubeletPlugin": {
            "nodeSelector": {scheduling.DRA_KUBELET_PLUGIN_LABEL: "true"},
            "tolerations": kubelet_plugin_tolerations(plan.pools),
            # Kueue takes these off each DRA node's quota (plans.node_daemonsets).
            "containers": {
                name: {"resources": {"requests": r.quantities()}}
                for name, r in DRA_KUBELET_PLUGIN_REQUESTS.items()
            },
        },
    }
    profile_of(plan.cloud).dra_values(values)
    return deep_merge(plan.user_values, values)


def device_classes(plan: DraPlan) -> list[dict[str, Any]]:
    """The library's DeviceClasses: one per MIG profile of the DRA pools (whole GPUs: the chart's class)."""
    return [
        {
            "apiVersion": RESOURCE_API_VERSION,
            "kind": "DeviceClass",
            "metadata": {
                "name": mig_device_class_name(profile),
                "labels": {"app.kubernetes.io/managed-by": "gpu-platform"},
            },
            "spec": {"selectors": [{"cel": {"expression": mig_selector(profile)}}]},
        }
        for profile in mig_profiles(plan.pools)
    ]


def claim_template_specs(pools: Sequence[GpuPool]) -> dict[str, tuple[str, int]]:
    """Template name -> (DeviceClass, count): ``gpu`` and ``gpu-<n>`` (a whole node) for unpartitioned DRA
    pools, ``mig-<profile>`` for each MIG profile. Every request is ``exactly`` with an explicit count and
    no constraints or config, the only shape Kueue 0.19 can charge quota for."""
    out: dict[str, tuple[str, int]] = {}
    for count in whole_gpu_counts(pools):
        out["gpu" if count == 1 else f"gpu-{count}"] = (WHOLE_GPU_CLASS, count)
    for profile in mig_profiles(pools):
        out[f"mig-{_dns(profile)}"] = (mig_device_class_name(profile), 1)
    return out


def claim_template(name: str, namespace: str, device_class: str, count: int) -> dict[str, Any]:
    return {
        "apiVersion": RESOURCE_API_VERSION,
        "kind": "ResourceClaimTemplate",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"app.kubernetes.io/managed-by": "gpu-platform"},
        },
        "spec": {
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "gpu",
                            "exactly": {
                                "deviceClassName": device_class,
                                "allocationMode": "ExactCount",
                                "count": count,
                            },
                        }
                    ]
                }
            }
        },
    }


def claim_templates(plan: DraPlan) -> list[dict[str, Any]]:
    specs = claim_template_specs(plan.pools)
    return [
        claim_template(name, ns, device_class, count)
        for ns in plan.claim_namespaces
        for name, (device_class, count) in specs.items()
    ]


# --- what other components need to know ----------------------------------------------------------------


def operator_values(pools: Sequence[GpuPool], driver: DriverPlan) -> dict[str, Any]:
    """GPU Operator values a cluster with DRA pools needs (merged by ``plans.gpu_operator.helm_values``).

    - every pool DRA: ``devicePlugin.enabled=false`` (NVIDIA's standalone procedure); mixed clusters keep
      it and the DRA pools carry ``nvidia.com/gpu.deploy.device-plugin=false``;
    - operator-managed driver: the driver manager must evict the DRA kubelet plugin on upgrades
      (``driver.manager.env`` ``NODE_LABEL_FOR_GPU_POD_EVICTION=nvidia.com/dra-kubelet-plugin``, the
      known issue in NVIDIA's dra-intro-install)."""
    dra = dra_pools(pools)
    if not dra:
        return {}
    out: dict[str, Any] = {}
    if len(dra) == len(pools):
        out["devicePlugin"] = {"enabled": False}
    if driver.driver == "operator":
        out["driver"] = {
            "manager": {"env": [{"name": EVICTION_ENV, "value": scheduling.DRA_KUBELET_PLUGIN_LABEL}]}
        }
    return out


def kueue_device_class_mappings(pools: Sequence[GpuPool]) -> list[dict[str, Any]]:
    """Kueue 0.19 ``Configuration.resources.deviceClassMappings`` for the DRA pools: each DeviceClass charged
    under the quota name the DRA pools' flavors cover (``sharing.advertised_resources``:
    ``dra.gpu-platform.io/gpu``, ``dra.gpu-platform.io/mig-<profile>``), never ``nvidia.com/*``: with one
    name for both, Kueue could give a DRA workload a device-plugin pool's flavor (its claim never allocates
    there) or a device-plugin pod a DRA pool's (no ``nvidia.com/gpu`` there)
    (kueue@v0.19.2 site/content/en/docs/tasks/manage/setup_dra.md, "ResourceClaimTemplate path")."""
    out = []
    if whole_gpu_counts(pools):
        out.append({"name": f"{DRA_QUOTA_PREFIX}gpu", "deviceClassNames": [WHOLE_GPU_CLASS]})
    for profile in mig_profiles(pools):
        out.append(
            {"name": f"{DRA_QUOTA_PREFIX}mig-{profile}", "deviceClassNames": [mig_device_class_name(profile)]}
        )
    return out


def predictor_claims(pool: GpuPool, template: str) -> dict[str, Any]:
    """A KServe v0.20 InferenceService ``predictor`` fragment for a DRA pool (Standard deployment mode): the
    pod-level ``resourceClaims`` and the ``model`` container's ``resources.claims`` (both in the v0.20 CRD),
    the pool's node selector and tolerations. Knative mode is not offered: Knative Serving admits only the
    pod-spec fields its feature flags allow, and ``resourceClaims`` was not verified there."""
    if not pool.dra:
        raise ValueError(f"pool '{pool.name}' is not a DRA pool; use GpuInferenceService")
    return {
        "nodeSelector": scheduling.selector_labels(pool),
        "tolerations": scheduling.pool_tolerations(pool),
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": template}],
        "model": {"resources": {"claims": [{"name": "gpu"}]}},
    }


# --- checks and resolution --------------------------------------------------------------------------


def check_dra_settings(settings: Mapping[str, Any], p: Problems) -> None:
    """The driver's own settings (shared by the stack file's ``dra`` and ``DraDriverArgs``)."""
    version = settings.get("version", versions.DRA_DRIVER.version)
    if not CHART_VERSION.match(version):
        p.add(("version",), f"{version!r} is not a chart version like {versions.DRA_DRIVER.version} (no 'v')")
    namespaces = list(settings.get("claim_namespaces", DEFAULT_CLAIM_NAMESPACES))
    for i, ns in enumerate(namespaces):
        if reason := namespace_problem(ns):
            p.add(("claim_namespaces", i), reason)
        elif ns in namespaces[:i]:
            p.add(("claim_namespaces", i), f"'{ns}' is listed twice")
    if "namespace" in settings.get("values", {}):
        p.add(
            ("values", "namespace"),
            "the chart refuses a 'namespace' value (templates/validation.yaml); the release namespace is set by "
            "the library",
        )
    if settings.get("values", {}).get("resources", {}).get("gpus", {}).get("enabled") is False:
        p.add(
            ("values", "resources"), "the GPU kubelet plugin is what serves the DRA pools; it stays enabled"
        )


def dra_plan(
    cloud: str,
    pools: Sequence[GpuPool],
    driver: DriverPlan,
    kubernetes_version: str,
    settings: Mapping[str, Any],
    namespace: str,
) -> DraPlan:
    """The plan from resolved pools and driver (the stack layer's path; checks have run)."""
    return DraPlan(
        cloud=cloud,
        pools=tuple(pools),
        driver=driver,
        kubernetes_version=kubernetes_version,
        version=settings.get("version", versions.DRA_DRIVER.version),
        namespace=namespace,
        compute_domains=settings.get("compute_domains", False),
        claim_namespaces=tuple(settings.get("claim_namespaces", DEFAULT_CLAIM_NAMESPACES)),
        user_values=dict(settings.get("values", {})),
    )


def plan_dra_driver(args: DraDriverArgs) -> DraPlan:
    """``DraDriver``'s arguments checked and resolved like the stack file; ``ArgumentsError`` lists every
    problem with its argument path."""
    p = Problems()
    checked = check_arguments(DraDriverArgs, args, p)
    if checked is None:
        p.raise_for_arguments()
    assert checked is not None
    check_dra_settings(checked, p)
    check_cuda_default(checked.get("cuda_version"), p.at("cuda_version"))
    if reason := kubernetes_version_problem(checked["kubernetes_version"]):
        p.add(("kubernetes_version",), reason)
    namespace = checked.get("namespace", versions.DRA_DRIVER.namespace)
    if reason := namespace_problem(namespace):
        p.add(("namespace",), reason)
    elif namespace == "default":
        p.add(("namespace",), "the chart refuses the 'default' namespace (templates/validation.yaml)")
    cloud = checked["cloud"]
    at = lambda i: p.at("pools", i)  # noqa: E731
    resolved = resolve_cluster_pools(cloud, checked["pools"], checked.get("cuda_version"), at)
    if not checked["pools"]:
        p.add(("pools",), "at least one GPU pool is required")
    if checked["pools"] and not declares_dra(checked["pools"]):
        p.add(("pools",), "no pool has allocation 'dra': the DRA driver would own no GPUs")
    driver = None
    if not p and len(resolved.pools) == len(checked["pools"]):
        where = DriverLocations(p.at("driver"), at, p.at("pools"), p.at("cuda_version"))
        driver = resolve_driver(
            cloud,
            resolved.pools,
            checked.get("driver", {}),
            checked.get("operator_version", versions.GPU_OPERATOR.version),
            where,
        )
        if driver is not None:
            dra_driver_problems(
                resolved.pools, driver, checked.get("compute_domains", False), at, p.at("driver")
            )
    p.raise_for_arguments()
    assert driver is not None
    return dra_plan(cloud, resolved.pools, driver, checked["kubernetes_version"], checked, namespace)
