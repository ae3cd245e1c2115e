"""GPU Operator Helm values and the objects around the release, as pure functions of one plan.

Sources: GPU_PLATFORM_FACTS.md sections 2.1 (per-cloud values), 2.2 (device-plugin configs),
2.3 (MIG) and pitfalls 3, 7 and 8. Every values key set here exists in the chart's ``values.yaml``
at the pinned version (``tests/test_gpu_operator.py`` walks them). Driver ownership comes from the
same ``DriverPlan`` the node pools use; node labels and tolerations come from ``scheduling``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from gpu_platform.driver import GKE_DRIVER_DIR, DriverPlan
from gpu_platform.operators.helm import deep_merge
from gpu_platform.pools import GpuPool
from gpu_platform.scheduling import (
    DEPLOY_DEVICE_PLUGIN_LABEL,
    DEPLOY_MIG_MANAGER_LABEL,
    pool_labels,
    pool_tolerations,
)
from gpu_platform.sharing import (
    cluster_mig_strategy,
    device_plugin_config,
    device_plugin_config_key,
    mig_parted_config,
)
from gpu_platform.versions import (
    GKE_COS_DRIVER_INSTALLER_IMAGE,
    GKE_DRIVER_INSTALLER_PAUSE_IMAGE,
    GKE_PARTITION_GPU_IMAGE,
)

DEVICE_PLUGIN_CONFIG_MAP = "gpu-platform-device-plugin-config"
"""ConfigMap with one named device-plugin config per shared pool (``devicePlugin.config.name``)."""
MIG_PARTED_CONFIG_MAP = "gpu-platform-mig-parted-config"
"""ConfigMap replacing the MIG manager's generated config (``migManager.config.name``)."""
MIG_PARTED_KEY = "config.yaml"
"""The MIG manager reads only this key (chart values.yaml comment)."""
MIG_DEFAULT_LAYOUT = "all-disabled"
"""Layout of MIG-capable nodes without an ``nvidia.com/mig.config`` label (``migManager.config.default``)."""
CONFIG_DIGEST_ENV = "GPU_PLATFORM_CONFIG_DIGEST"
"""Env var carrying a digest of a ConfigMap: the operator does not watch ConfigMaps (pitfall 8), so a
changed digest changes the pod template and rolls the device plugin / MIG manager."""

PSA_PRIVILEGED_LABELS = {
    "pod-security.kubernetes.io/enforce": "privileged",
    "pod-security.kubernetes.io/audit": "privileged",
    "pod-security.kubernetes.io/warn": "privileged",
}
"""Operands are privileged host agents (driver, toolkit, device plugin): the namespace must allow them."""

GKE_CRITICAL_PRIORITY_CLASSES = ("system-node-critical", "system-cluster-critical")
GKE_QUOTA_NAME = "gpu-operator-quota"
GKE_QUOTA_BASE_PODS = 100
"""NVIDIA's GKE example quota; the library adds room for the operand pods of every GPU node."""
GKE_QUOTA_PODS_PER_GPU_NODE = 10
"""Running critical-priority pods per GPU node: driver/toolkit/plugin/GFD/DCGM/MIG manager/validator/NFD."""

AKS_RUNTIME_CLASS = "nvidia-container-runtime"
"""Runtime handler AKS configures when it installs the driver and toolkit itself."""
CSP_CLOUDS = ("gke", "eks", "aks")
"""Cloud VMs: enabling MIG may need a VM reboot, so the MIG manager runs ``WITH_REBOOT``."""
CONTROL_PLANE_TOLERATION = {
    "key": "node-role.kubernetes.io/control-plane",
    "operator": "Equal",
    "value": "",
    "effect": "NoSchedule",
}
"""Kept from the chart's NFD worker default: overriding the list must not drop it."""

GKE_INSTALLER_NAME = "gpu-platform-nvidia-driver-installer"
"""Not Google's own name, so GKE's addon manager never reconciles over it."""


@dataclass(frozen=True)
class OperatorPlan:
    """Everything the GPU Operator component renders, resolved and validated once."""

    cloud: str
    pools: tuple[GpuPool, ...]
    driver: DriverPlan
    version: str
    namespace: str
    dcgm_exporter: bool = True
    service_monitor: bool = False
    host_driver_version: str | None = None
    """Declared cloud driver; on GKE it is the version Google's COS installer installs."""
    user_values: Mapping[str, Any] = field(default_factory=dict)


def _operand_runs(pool: GpuPool, driver: DriverPlan, deploy_label: str) -> bool:
    """Whether an operand runs on the pool's nodes, read from the labels the pool carries."""
    return pool_labels(pool, driver).get(deploy_label) != "false"


def device_plugin_pools(plan: OperatorPlan) -> list[GpuPool]:
    """Pools served by the operator's device plugin (not Bottlerocket's, not GKE's shared one)."""
    if plan.driver.device_plugin != "operator":
        return []
    return [p for p in plan.pools if _operand_runs(p, plan.driver, DEPLOY_DEVICE_PLUGIN_LABEL)]


def operator_mig_strategy(plan: OperatorPlan) -> str:
    """``mig.strategy`` from the pools the operator's device plugin serves (one per cluster)."""
    return cluster_mig_strategy(device_plugin_pools(plan))


def mig_manager_enabled(plan: OperatorPlan) -> bool:
    """On when a MIG-capable pool is the MIG manager's (so unlabelled nodes are held at all-disabled);
    never needed for cloud-partitioned pools, which carry ``nvidia.com/gpu.deploy.mig-manager=false``."""
    return any(
        p.gpu.mig_capable and _operand_runs(p, plan.driver, DEPLOY_MIG_MANAGER_LABEL) for p in plan.pools
    )


def device_plugin_config_data(plan: OperatorPlan) -> dict[str, str]:
    """ConfigMap data: key per shared pool (the pool's ``nvidia.com/device-plugin.config``) -> YAML."""
    strategy = operator_mig_strategy(plan)
    data: dict[str, str] = {}
    for pool in device_plugin_pools(plan):
        key = device_plugin_config_key(pool)
        if key:
            data[key] = yaml.safe_dump(device_plugin_config(pool, strategy), sort_keys=False)
    return data


def mig_parted_config_data(plan: OperatorPlan) -> dict[str, str]:
    """ConfigMap data for the MIG manager (``config.yaml``), or empty when no pool needs a layout."""
    mig_pools = [p for p in plan.pools if p.sharing.mode == "mig" and p.sharing.managed_by == "operator"]
    if not mig_pools or not mig_manager_enabled(plan):
        return {}
    return {MIG_PARTED_KEY: yaml.safe_dump(mig_parted_config(mig_pools), sort_keys=False)}


def operand_tolerations(pools: Sequence[GpuPool]) -> list[dict[str, str]]:
    """Tolerations every GPU-node operand needs: the GPU taint (Exists, any value), users' pool taints
    and the AKS spot taint, each once."""
    out: list[dict[str, str]] = []
    for pool in pools:
        for tol in pool_tolerations(pool):
            if tol not in out:
                out.append(tol)
    return out


def config_digest(data: Mapping[str, str]) -> str:
    return hashlib.sha256(json.dumps(dict(data), sort_keys=True).encode()).hexdigest()[:16]


def _env(name: str, value: str) -> dict[str, str]:
    return {"name": name, "value": value}


def helm_values(plan: OperatorPlan) -> dict[str, Any]:
    """The chart values: the user's escape-hatch values with the library's typed values on top."""
    driver = plan.driver
    tolerations = operand_tolerations(plan.pools)
    values: dict[str, Any] = {
        "driver": {"enabled": driver.driver == "operator"},
        "toolkit": {"enabled": driver.toolkit == "operator"},
        "devicePlugin": {"enabled": driver.device_plugin == "operator"},
        "mig": {"strategy": operator_mig_strategy(plan)},
        "migManager": {"enabled": mig_manager_enabled(plan)},
        "dcgmExporter": {
            "enabled": plan.dcgm_exporter,
            # The chart turns it on by default; without the Prometheus Operator CRDs the operator
            # reports the DCGM exporter state not ready, so it is on only when asked.
            "serviceMonitor": {"enabled": plan.service_monitor},
        },
        "nfd": {"enabled": True},
        "daemonsets": {"tolerations": tolerations},
        "node-feature-discovery": {"worker": {"tolerations": [CONTROL_PLANE_TOLERATION, *tolerations]}},
    }
    if driver.driver == "operator":
        values["driver"]["version"] = str(driver.driver_version)

    dp_data = device_plugin_config_data(plan)
    if dp_data:
        # No ``default``: each pool selects its key by node label; unlabelled nodes fall back to the
        # plugin's built-in config (the operator runs the config manager with FALLBACK_STRATEGIES=empty).
        values["devicePlugin"]["config"] = {"name": DEVICE_PLUGIN_CONFIG_MAP, "create": False}
        values["devicePlugin"]["env"] = [_env(CONFIG_DIGEST_ENV, config_digest(dp_data))]

    if values["migManager"]["enabled"]:
        env = [_env("WITH_REBOOT", "true")] if plan.cloud in CSP_CLOUDS else []
        mig_data = mig_parted_config_data(plan)
        if mig_data:
            values["migManager"]["config"] = {
                "name": MIG_PARTED_CONFIG_MAP,
                "create": False,
                "default": MIG_DEFAULT_LAYOUT,
            }
            env.append(_env(CONFIG_DIGEST_ENV, config_digest(mig_data)))
        if env:
            values["migManager"]["env"] = env

    if plan.cloud == "gke":
        # NVIDIA google-gke.rst; toolkit env works around GKE 1.33+ containerd config (pitfall 7).
        values["cdi"] = {"enabled": True}
        if driver.toolkit == "operator":
            values["toolkit"]["env"] = [_env("RUNTIME_CONFIG_SOURCE", "file")]
        if driver.gke_google_installer:
            values["hostPaths"] = {"driverInstallDir": GKE_DRIVER_DIR}
            values["toolkit"]["installDir"] = GKE_DRIVER_DIR
    if plan.cloud == "aks" and driver.toolkit == "cloud":
        values["operator"] = {"runtimeClass": AKS_RUNTIME_CLASS}
    return deep_merge(plan.user_values, values)


def gke_resource_quota_spec(pools: Sequence[GpuPool]) -> dict[str, Any]:
    """GKE admits ``system-node-critical``/``system-cluster-critical`` pods outside kube-system only
    under a quota for those classes (NVIDIA ``google-gke-gpu-operator-quota.yaml``)."""
    pods = GKE_QUOTA_BASE_PODS + GKE_QUOTA_PODS_PER_GPU_NODE * sum(p.max_nodes for p in pools)
    return {
        "hard": {"pods": str(pods)},
        "scopeSelector": {
            "matchExpressions": [
                {
                    "operator": "In",
                    "scopeName": "PriorityClass",
                    "values": list(GKE_CRITICAL_PRIORITY_CLASSES),
                }
            ]
        },
    }


def gke_driver_installer_spec(pools: Sequence[GpuPool], driver_version: str | None) -> dict[str, Any]:
    """Google's COS driver installer DaemonSet spec (container-engine-accelerators
    ``nvidia-driver-installer/cos/daemonset-preloaded.yaml``), limited to COS GPU nodes whose driver
    GKE does not install, tolerating the same taints as the operator's operands.

    With ``driver_version`` it installs that version (``cos-gpu-installer install --version``, which
    must be a COS-qualified driver); without, Google's default for the node's COS release.
    """
    labels = {"k8s-app": GKE_INSTALLER_NAME, "name": GKE_INSTALLER_NAME}
    host_dir = GKE_DRIVER_DIR
    installer: dict[str, Any] = {
        "name": "nvidia-driver-installer",
        "image": GKE_COS_DRIVER_INSTALLER_IMAGE,
        "imagePullPolicy": "Never",
        "resources": {"requests": {"cpu": "150m"}},
        "securityContext": {"privileged": True},
        "env": [
            _env("NVIDIA_INSTALL_DIR_HOST", host_dir),
            _env("NVIDIA_INSTALL_DIR_CONTAINER", "/usr/local/nvidia"),
            _env("VULKAN_ICD_DIR_HOST", f"{host_dir}/vulkan/icd.d"),
            _env("VULKAN_ICD_DIR_CONTAINER", "/etc/vulkan/icd.d"),
            _env("ROOT_MOUNT_DIR", "/root"),
            _env("COS_TOOLS_DIR_HOST", "/var/lib/cos-tools"),
            _env("COS_TOOLS_DIR_CONTAINER", "/build/cos-tools"),
        ],
        "volumeMounts": [
            {"name": "nvidia-install-dir-host", "mountPath": "/usr/local/nvidia"},
            {"name": "vulkan-icd-mount", "mountPath": "/etc/vulkan/icd.d"},
            {"name": "dev", "mountPath": "/dev"},
            {"name": "root-mount", "mountPath": "/root"},
            {"name": "cos-tools", "mountPath": "/build/cos-tools"},
        ],
    }
    if driver_version:
        installer["command"] = ["/cos-gpu-installer", "install", f"--version={driver_version}"]
    partition = {
        "name": "partition-gpus",
        "image": GKE_PARTITION_GPU_IMAGE,
        "env": [_env("LD_LIBRARY_PATH", "/usr/local/nvidia/lib64")],
        "resources": {"requests": {"cpu": "150m"}},
        "securityContext": {"privileged": True},
        "volumeMounts": [
            {"name": "nvidia-install-dir-host", "mountPath": "/usr/local/nvidia"},
            {"name": "dev", "mountPath": "/dev"},
            {"name": "nvidia-config", "mountPath": "/etc/nvidia"},
        ],
    }
    node_match = [
        {"key": "cloud.google.com/gke-accelerator", "operator": "Exists"},
        # GKE-installed drivers label their nodes; the preloaded installer image exists only on COS.
        {"key": "cloud.google.com/gke-gpu-driver-version", "operator": "DoesNotExist"},
        {"key": "cloud.google.com/gke-os-distribution", "operator": "In", "values": ["cos"]},
    ]
    host_paths = {
        "dev": "/dev",
        "vulkan-icd-mount": f"{host_dir}/vulkan/icd.d",
        "nvidia-install-dir-host": host_dir,
        "root-mount": "/",
        "cos-tools": "/var/lib/cos-tools",
        "nvidia-config": "/etc/nvidia",
    }
    return {
        "selector": {"matchLabels": {"k8s-app": GKE_INSTALLER_NAME}},
        "updateStrategy": {"type": "RollingUpdate"},
        "template": {
            "metadata": {"labels": labels},
            "spec": {
                "priorityClassName": "system-node-critical",
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [{"matchExpressions": node_match}]
                        }
                    }
                },
                "tolerations": operand_tolerations(pools),
                "hostNetwork": True,
                "hostPID": True,
                "volumes": [{"name": n, "hostPath": {"path": p}} for n, p in host_paths.items()],
                "initContainers": [installer, partition],
                "containers": [{"name": "pause", "image": GKE_DRIVER_INSTALLER_PAUSE_IMAGE}],
            },
        },
    }
