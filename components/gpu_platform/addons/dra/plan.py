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
publishes in ``cmd/gpu-kubelet-plugin/mig.go``), so Kueue can keep one quota per profile, and its own
whole-GPU class (``whole-gpu.gpu.nvidia.com``, the chart's selector).

Why not the chart's ``gpu.nvidia.com`` for whole GPUs: with ``resourceApiVersion: resource.k8s.io/v1`` the
chart gives it ``extendedResourceName: nvidia.com/gpu`` (templates/deviceclass-gpu.yaml, v0.4.1). Kueue
0.19's ``KueueDRAIntegrationExtendedResource`` (beta, on) charges a pod's ``nvidia.com/gpu`` request to
the ``deviceClassMappings`` entry of the class carrying that name, and to ``nvidia.com/gpu`` itself when
the class is not mapped (kueue ``pkg/dra/extended_resources.go`` ``resolveQuotaKey``). Mapping the chart's
class would put every plain ``nvidia.com/gpu`` job on the DRA quota; leaving it unmapped keeps those
jobs on the device-plugin flavors. So claims and quotas use the library's class, which has no
``extendedResourceName``, and the chart's class is never mapped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gpu_platform import scheduling
from gpu_platform.addons.dra.checks import ResolvedDra, dra_pools
from gpu_platform.cloud_facts import profile_of
from gpu_platform.driver import DriverPlan
from gpu_platform.mirror import Mirror
from gpu_platform.plans.helm import deep_merge
from gpu_platform.plans.node_daemonsets import DRA_KUBELET_PLUGIN_REQUESTS
from gpu_platform.pools import GpuPool
from gpu_platform.sharing import COMPUTE_DOMAIN_CHANNEL_RESOURCE, DRA_QUOTA_PREFIX

RESOURCE_API_VERSION = "resource.k8s.io/v1"
"""GA DRA API (Kubernetes 1.34); set explicitly so an offline render and the cluster agree."""
DRIVER_NAME = "gpu.nvidia.com"
"""The GPU kubelet plugin's driver name, also the attribute domain of its devices."""
CHART_GPU_CLASS = "gpu.nvidia.com"
"""Created by the chart (templates/deviceclass-gpu.yaml) when ``resources.gpus.enabled``, with
``extendedResourceName: nvidia.com/gpu`` under ``resource.k8s.io/v1``: never mapped in Kueue."""
WHOLE_GPU_CLASS = f"whole-gpu.{DRIVER_NAME}"
"""The library's whole-GPU class: the chart's selector, no ``extendedResourceName``; claims and Kueue use it."""
MIG_CLASS = "mig.nvidia.com"
"""Created by the chart (templates/deviceclass-mig.yaml): every MIG device, any profile."""
CHART_DEVICE_CLASSES = (CHART_GPU_CLASS, MIG_CLASS, "vfio.gpu.nvidia.com")
OPERATOR_DRIVER_ROOT = "/run/nvidia/driver"
"""Where the GPU Operator's driver container puts the driver (chart values.yaml comment)."""
EVICTION_ENV = "NODE_LABEL_FOR_GPU_POD_EVICTION"
"""GPU Operator driver manager: also evict pods on nodes with this label when the driver is upgraded."""
RELEASE_NAME = "dra-driver-nvidia-gpu"
PSA_PRIVILEGED_LABELS = {
    "pod-security.kubernetes.io/enforce": "privileged",
    "pod-security.kubernetes.io/audit": "privileged",
    "pod-security.kubernetes.io/warn": "privileged",
}
"""The kubelet plugin runs privileged (chart values ``kubeletPlugin.containers.gpus.securityContext``)."""
COMPUTE_DOMAIN_CHANNEL_CLASS = "compute-domain-default-channel.nvidia.com"
"""The DeviceClass the chart creates with ComputeDomains on (templates/deviceclass-compute-domain-default-channel.yaml,
v0.4.1): what a ComputeDomain's ResourceClaimTemplate asks for in each of its pods."""


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
    version: str
    namespace: str
    compute_domains: bool
    claim_namespaces: tuple[str, ...]
    values: Mapping[str, Any] = field(default_factory=dict)
    """The final chart values: the user's escape-hatch values under the library's typed values."""
    secret_values: bool = False
    """The user's values hold a secret: the values input is stored encrypted."""
    mirror: Mirror | None = None
    """Where the chart and its image come from instead of upstream."""

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
    """What a node agent of the DRA pools tolerates (``scheduling.node_agent_tolerations``), once each."""
    out: list[dict[str, str]] = []
    for pool in dra_pools(pools):
        for tol in scheduling.node_agent_tolerations(pool):
            if tol not in out:
                out.append(tol)
    return out


def library_values(plan: DraPlan) -> dict[str, Any]:
    """The library's typed chart values, which win over the user's (``plan.values`` holds both)."""
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
    return values


def device_class(name: str, expression: str) -> dict[str, Any]:
    return {
        "apiVersion": RESOURCE_API_VERSION,
        "kind": "DeviceClass",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/managed-by": "gpu-platform"}},
        "spec": {"selectors": [{"cel": {"expression": expression}}]},
    }


def device_classes(plan: DraPlan) -> list[dict[str, Any]]:
    """The library's DeviceClasses: whole GPUs (when an unpartitioned DRA pool exists) and one per MIG
    profile of the DRA pools. None carries ``extendedResourceName``."""
    whole = [device_class(WHOLE_GPU_CLASS, whole_gpu_selector())] if whole_gpu_counts(plan.pools) else []
    return whole + [
        device_class(mig_device_class_name(profile), mig_selector(profile))
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
    """GPU Operator values a cluster with DRA pools needs (merged by ``addons.gpu_operator.plan.library_values``).

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


def kueue_device_class_mappings(
    pools: Sequence[GpuPool], compute_domains: bool = False
) -> list[dict[str, Any]]:
    """Kueue 0.19 ``Configuration.resources.deviceClassMappings`` for the DRA pools: each DeviceClass charged
    under the quota name the DRA pools' flavors cover (``sharing.advertised_resources``:
    ``dra.gpu-platform.io/gpu``, ``dra.gpu-platform.io/mig-<profile>``), never ``nvidia.com/*``: with one
    name for both, Kueue could give a DRA workload a device-plugin pool's flavor (its claim never allocates
    there) or a device-plugin pod a DRA pool's (no ``nvidia.com/gpu`` there)
    (kueue@v0.19.2 site/content/en/docs/tasks/manage/setup_dra.md, "ResourceClaimTemplate path").
    The chart's ``gpu.nvidia.com`` (``extendedResourceName: nvidia.com/gpu``) is never listed: mapped, it
    would charge every plain ``nvidia.com/gpu`` pod to the DRA quota (module docstring)."""
    out = []
    if whole_gpu_counts(pools):
        out.append({"name": f"{DRA_QUOTA_PREFIX}gpu", "deviceClassNames": [WHOLE_GPU_CLASS]})
    for profile in mig_profiles(pools):
        out.append(
            {"name": f"{DRA_QUOTA_PREFIX}mig-{profile}", "deviceClassNames": [mig_device_class_name(profile)]}
        )
    if compute_domains and dra_pools(pools):
        out.append(
            {"name": COMPUTE_DOMAIN_CHANNEL_RESOURCE, "deviceClassNames": [COMPUTE_DOMAIN_CHANNEL_CLASS]}
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


# --- the plan from resolved inputs -------------------------------------------------------------


def dra_plan(target: ResolvedDra, secret: bool = False) -> DraPlan:
    """The plan, final chart values included, from checked settings and resolved pools and driver. ``secret``:
    the user's values hold one."""
    settings = target.settings
    plan = DraPlan(
        cloud=target.cloud,
        pools=tuple(target.pools),
        driver=target.driver,
        kubernetes_version=target.kubernetes_version,
        version=settings.version,
        namespace=target.namespace,
        compute_domains=settings.compute_domains,
        claim_namespaces=settings.claim_namespaces,
        mirror=target.mirror,
    )
    return replace(plan, values=deep_merge(settings.values, library_values(plan)), secret_values=secret)
