"""The GPU Operator plan: Helm values and the objects around the release, as pure functions of one plan.

Sources: NVIDIA/cloud-native-docs ``gpu-operator/google-gke.rst``, ``amazon-eks.rst`` and ``microsoft-aks.rst``
(per-cloud values), ``gpu-sharing.rst`` (device-plugin configs; the plugin does not watch its ConfigMap) and
``gpu-operator-mig.rst`` (MIG); NVIDIA/gpu-operator #525 and #126 (a host driver is never replaced). Every values key set here exists in the chart's ``values.yaml``
at the pinned version (``tests/addons/gpu_operator/test_plan.py`` walks them). Driver ownership comes from the
same ``DriverPlan`` the node pools use; node labels and tolerations come from ``scheduling``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import yaml

from gpu_platform import scheduling
from gpu_platform.addons.dra.plan import operator_values as dra_operator_values
from gpu_platform.addons.gpu_operator.checks import ResolvedGpuOperator
from gpu_platform.cloud_facts import profile_of
from gpu_platform.driver import DriverPlan
from gpu_platform.mirror import Mirror
from gpu_platform.plans.helm import deep_merge
from gpu_platform.plans.node_daemonsets import resources_values
from gpu_platform.pools import GpuPool
from gpu_platform.scheduling import node_agent_tolerations
from gpu_platform.sharing import (
    cluster_mig_strategy,
    device_plugin_config,
    device_plugin_config_key,
    mig_parted_config,
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
"""Env var carrying a digest of a ConfigMap: the operator does not watch ConfigMaps (gpu-sharing.rst), so a
changed digest changes the pod template and rolls the device plugin / MIG manager."""

PSA_PRIVILEGED_LABELS = {
    "pod-security.kubernetes.io/enforce": "privileged",
    "pod-security.kubernetes.io/audit": "privileged",
    "pod-security.kubernetes.io/warn": "privileged",
}
"""Operands are privileged host agents (driver, toolkit, device plugin): the namespace must allow them."""

CONTROL_PLANE_TOLERATION = {
    "key": "node-role.kubernetes.io/control-plane",
    "operator": "Equal",
    "value": "",
    "effect": "NoSchedule",
}
"""Kept from the chart's NFD worker default: overriding the list must not drop it."""

JOB_POD_SELECTOR = scheduling.JOB_POD_LABEL
GPU_POD_DELETION_TIMEOUT_SECONDS = 300
DRAIN_TIMEOUT_SECONDS = 300
"""The chart's own timeouts (values.yaml ``driver.upgradePolicy``), kept: a stuck eviction fails the node's
upgrade (``upgrade-failed``) instead of hanging the rollout."""


@dataclass(frozen=True)
class MetricsContribution:
    """What the metrics path asks of the GPU Operator (the observability add-on contributes it): chart values
    laid over the final ones (the DCGM exporter's counters, its ServiceMonitor), and whether a Prometheus
    Operator scrapes the exporter."""

    exporter_values: Mapping[str, Any]
    scraped_by_prometheus_operator: bool


@dataclass(frozen=True)
class OperatorPlan:
    """Everything the GPU Operator component renders, resolved and validated once."""

    cloud: str
    pools: tuple[GpuPool, ...]
    driver: DriverPlan
    version: str
    namespace: str
    dcgm_exporter: bool
    service_monitor: bool
    installer_version: str | None = None
    """The driver version the cloud's installer installs (GKE: Google's COS installer), when set."""
    values: Mapping[str, Any] = field(default_factory=dict)
    """The final chart values: the user's escape-hatch values with the library's typed values on top."""
    secret_values: bool = False
    """The user's values hold a secret: the whole values input is stored encrypted."""
    mirror: Mirror | None = None
    """Where the chart and every image (operands, the cloud's installers, the startup-taint remover) come from
    instead of upstream."""


def device_plugin_pools(plan: OperatorPlan) -> list[GpuPool]:
    """Pools served by the operator's device plugin (not Bottlerocket's, not GKE's shared one)."""
    return scheduling.device_plugin_pools(plan.pools, plan.driver)


def operator_mig_strategy(plan: OperatorPlan) -> str:
    """``mig.strategy`` from the pools the operator's device plugin serves (one per cluster)."""
    return cluster_mig_strategy(device_plugin_pools(plan))


def mig_manager_enabled(plan: OperatorPlan) -> bool:
    """On when a MIG-capable pool is the MIG manager's (so unlabelled nodes are held at all-disabled);
    never needed for cloud-partitioned pools, which carry ``nvidia.com/gpu.deploy.mig-manager=false``."""
    return bool(scheduling.mig_manager_pools(plan.pools, plan.driver))


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
    """Tolerations every GPU-node operand needs: the GPU taint (Exists, any value), users' pool taints,
    the AKS spot taint and the startup taint of pools whose resources the operands make appear, each once
    (in first-seen order; a dict keeps it linear in pools)."""
    out: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}
    for pool in pools:
        for tol in node_agent_tolerations(pool):
            out.setdefault(tuple(sorted(tol.items())), tol)
    return list(out.values())


def config_digest(data: Mapping[str, str]) -> str:
    return hashlib.sha256(json.dumps(dict(data), sort_keys=True).encode()).hexdigest()[:16]


def _env(name: str, value: str) -> dict[str, str]:
    return {"name": name, "value": value}


def library_values(plan: OperatorPlan) -> dict[str, Any]:
    """The library's typed chart values, which win over the user's (``plan.values`` holds both)."""
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
            # Off unless asked: without the Prometheus Operator CRDs the operator (v26.7.0) skips the
            # ServiceMonitor and stays Ready, so turning it on only matters where Prometheus runs.
            "serviceMonitor": {"enabled": plan.service_monitor},
        },
        "nfd": {"enabled": True},
        "daemonsets": {"tolerations": tolerations},
        "node-feature-discovery": {"worker": {"tolerations": [CONTROL_PLANE_TOLERATION, *tolerations]}},
    }
    if driver.driver == "operator":
        values["driver"]["version"] = str(driver.driver_version)
        if any(p.infiniband for p in plan.pools):
            # GPUDirect RDMA (nvidia-peermem) over the Network Operator's containerized DOCA driver, which the
            # driver pod waits for on InfiniBand nodes (Azure/aks-rdma-infiniband configs/values/gpu-operator).
            values["driver"]["rdma"] = {"enabled": True, "useHostMofed": False}
    # Explicit requests on every GPU-node operand (the chart sets none): Kueue takes the same numbers off
    # each node's allocatable (plans.node_daemonsets).
    for section, operand in resources_values().items():
        values.setdefault(section, {}).update(operand)

    dp_data = device_plugin_config_data(plan)
    if dp_data:
        # No ``default``: each pool selects its key by node label; unlabelled nodes fall back to the
        # plugin's built-in config (the operator runs the config manager with FALLBACK_STRATEGIES=empty).
        values["devicePlugin"]["config"] = {"name": DEVICE_PLUGIN_CONFIG_MAP, "create": False}
        values["devicePlugin"]["env"] = [_env(CONFIG_DIGEST_ENV, config_digest(dp_data))]

    if values["migManager"]["enabled"]:
        env = [_env("WITH_REBOOT", "true")] if profile_of(plan.cloud).mig_manager_reboot else []
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

    profile_of(plan.cloud).gpu_operator_values(values, driver)
    return deep_merge(values, dra_operator_values(plan.pools, driver))  # DRA pools


def driver_upgrade_policy(plan: OperatorPlan) -> dict[str, Any]:
    """``driver.upgradePolicy`` when the operator owns the driver (chart v26.7.0 values.yaml keys; the
    upgrade controller is NVIDIA/k8s-operator-libs ``pkg/upgrade``). One ClusterPolicy serves every pool,
    so the policy covers each pool kind at once:

    - one node at a time (``maxParallelUpgrades: 1``, ``maxUnavailable: 1``), cordoned first;
    - batch jobs (pods of a Job, any pool): ``waitForCompletion`` without a timeout (0 waits for them to
      end); serving pods are then evicted by ``gpuPodDeletion`` (emptyDir ``/dev/shm`` included), which
      finds pods by their ``nvidia.com/gpu*`` / ``nvidia.com/mig-*`` requests (driver manager
      ``gpuPodSpecFilter``);
    - DRA pools: their pods hold ResourceClaims, not those resources, so GPU pod deletion cannot see them:
      ``drain`` is on (then the node is drained, DaemonSets excepted) whenever a DRA pool exists.

    Users may override any key through ``gpuOperator.values.driver.upgradePolicy``."""
    if plan.driver.driver != "operator":
        return {}
    return {
        "autoUpgrade": True,
        "maxParallelUpgrades": 1,
        "maxUnavailable": 1,
        "waitForCompletion": {"timeoutSeconds": 0, "podSelector": JOB_POD_SELECTOR},
        "gpuPodDeletion": {
            "force": False,
            "timeoutSeconds": GPU_POD_DELETION_TIMEOUT_SECONDS,
            "deleteEmptyDir": True,
        },
        "drain": {
            "enable": any(p.dra for p in plan.pools),
            "force": False,
            "podSelector": "",
            "timeoutSeconds": DRAIN_TIMEOUT_SECONDS,
            "deleteEmptyDir": True,
        },
    }


# --- Plan -----------------------------------------------------------------------------------------


def gpu_operator_plan(
    target: ResolvedGpuOperator, metrics: MetricsContribution | None = None, secret: bool = False
) -> OperatorPlan:
    """The plan, final chart values included, from checked settings and resolved pools and driver, and what the
    metrics path asks of it (``metrics``, when observability is on). ``secret``: the user's values hold one."""
    settings = target.settings
    plan = OperatorPlan(
        cloud=target.cloud,
        pools=tuple(target.pools),
        driver=target.driver,
        version=settings.version,
        namespace=target.namespace,
        dcgm_exporter=settings.dcgm_exporter,
        service_monitor=settings.service_monitor,
        installer_version=settings.installer_version,
        mirror=target.mirror,
    )
    policy = driver_upgrade_policy(plan)
    defaults = {"driver": {"upgradePolicy": policy}} if policy else {}
    user = deep_merge(defaults, settings.values)  # the user's upgradePolicy keys win over the defaults
    plan = replace(plan, values=deep_merge(user, library_values(plan)), secret_values=secret)
    if metrics is None:
        return plan
    scraped = metrics.scraped_by_prometheus_operator or plan.service_monitor
    return replace(plan, values=deep_merge(plan.values, metrics.exporter_values), service_monitor=scraped)


def __getattr__(name: str) -> object:
    """The GKE quota and driver-installer names moved to ``cloud_facts.gke`` (``gpu_platform._moved``)."""
    from gpu_platform._moved import moved_attribute

    return moved_attribute(__name__, name)
