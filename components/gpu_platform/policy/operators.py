"""GPU software a program installs, read into one shape: the GPU Operator and standalone device plugins.

The GPU Operator is recognised as a Helm release (v3 ``Release`` or v4 ``Chart``) of the
``gpu-operator`` chart, or as a ``nvidia.com/v1`` ``ClusterPolicy`` resource (whose ``spec`` uses the
same keys as the chart values). Settings the program leaves out take the chart's defaults, copied
below from the pinned upstream ``values.yaml`` and checked against it by a test.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from gpu_platform.policy_model.model import UNKNOWN, PolicyResource, as_list, as_map, get, is_unknown

HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
HELM_CHART_V4 = "kubernetes:helm.sh/v4:Chart"
HELM_TYPES = (HELM_RELEASE, HELM_CHART_V4)
CLUSTER_POLICY = "kubernetes:nvidia.com/v1:ClusterPolicy"
DAEMONSET = "kubernetes:apps/v1:DaemonSet"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"

GPU_OPERATOR_CHART = "gpu-operator"
DEVICE_PLUGIN_CHART = "nvidia-device-plugin"

# NVIDIA/gpu-operator deployments/gpu-operator/values.yaml at v26.7.0 (the pinned chart).
OPERATOR_DEFAULT_DAEMONSET_TOLERATIONS: tuple[dict[str, str], ...] = (
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
)
OPERATOR_DEFAULT_NFD_WORKER_TOLERATIONS: tuple[dict[str, str], ...] = (
    {
        "key": "node-role.kubernetes.io/control-plane",
        "operator": "Equal",
        "value": "",
        "effect": "NoSchedule",
    },
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
)
# NVIDIA/k8s-device-plugin deployments/helm/nvidia-device-plugin/values.yaml.
DEVICE_PLUGIN_DEFAULT_TOLERATIONS: tuple[dict[str, str], ...] = (
    {"key": "CriticalAddonsOnly", "operator": "Exists"},
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
)


def chart_name(chart: Any) -> str | None:
    """Chart name from ``nvidia/gpu-operator``, ``oci://.../gpu-operator`` or ``gpu-operator-v26.7.0.tgz``."""
    if not isinstance(chart, str) or is_unknown(chart):
        return None
    last = chart.rstrip("/").rsplit("/", 1)[-1]
    if last.endswith(".tgz"):
        last = re.sub(r"-v?\d[\w.+-]*$", "", last[: -len(".tgz")])
    return last.split(":", 1)[0]


def flag(value: Any, default: bool) -> bool | None:
    """A chart boolean: ``None`` when unknown, chart default when unset, ``"false"`` strings honoured."""
    if is_unknown(value):
        return None
    if value is None:
        return default
    if isinstance(value, str):
        return value.strip().lower() not in ("false", "0", "no", "")
    return bool(value)


def _parse_config(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return yaml.safe_load(value)
        except yaml.YAMLError:
            return None
    return value


def is_time_slicing_config(config: Any) -> bool:
    """A k8s-device-plugin config (``version: v1``) that time-slices a resource."""
    return bool(as_list(get(_parse_config(config), "sharing", "timeSlicing", "resources")))


def config_sharing(config: Any) -> str | None:
    """How a device-plugin config shares each GPU: ``time-slicing``, ``mps`` or ``none`` (the values of the
    pools' ``gpu-platform.io/sharing`` label); ``None`` when it is unknown or not a config."""
    if is_unknown(config):
        return None
    parsed = _parse_config(config)
    if not isinstance(parsed, Mapping):
        return None
    if as_list(get(parsed, "sharing", "timeSlicing", "resources")):
        return "time-slicing"
    if as_list(get(parsed, "sharing", "mps", "resources")):
        return "mps"
    return "none"


@dataclass(frozen=True)
class GpuOperatorView:
    resource: PolicyResource
    values: Any
    """Chart values (Helm) or ``spec`` (ClusterPolicy)."""
    kind: str
    """``helm`` or ``clusterpolicy``."""

    def _get(self, *path: str) -> Any:
        return get(self.values, *path)

    @property
    def display(self) -> str:
        return f"'{self.resource.name}'"

    @property
    def driver_enabled(self) -> bool | None:
        return flag(self._get("driver", "enabled"), True)

    @property
    def device_plugin_enabled(self) -> bool | None:
        return flag(self._get("devicePlugin", "enabled"), True)

    @property
    def daemonset_tolerations(self) -> list[Any] | None:
        value = self._get("daemonsets", "tolerations")
        if is_unknown(value) or is_unknown(self.values):
            return None
        return list(OPERATOR_DEFAULT_DAEMONSET_TOLERATIONS) if value is None else as_list(value)

    @property
    def nfd_worker_tolerations(self) -> list[Any] | None:
        """NFD worker tolerations when the chart deploys NFD (ClusterPolicy does not); None otherwise."""
        if self.kind != "helm" or not flag(self._get("nfd", "enabled"), True):
            return None
        value = self._get("node-feature-discovery", "worker", "tolerations")
        if is_unknown(value):
            return None
        return list(OPERATOR_DEFAULT_NFD_WORKER_TOLERATIONS) if value is None else as_list(value)

    @property
    def device_plugin_config_name(self) -> str | None:
        name = self._get("devicePlugin", "config", "name")
        return name if isinstance(name, str) and name else None

    @property
    def device_plugin_default(self) -> str | None:
        default = self._get("devicePlugin", "config", "default")
        return default if isinstance(default, str) and default else None

    @property
    def device_plugin_configs(self) -> dict[str, Any]:
        """Named device-plugin configs the chart itself creates (``devicePlugin.config.data``)."""
        return {str(k): v for k, v in as_map(self._get("devicePlugin", "config", "data")).items()}


@dataclass(frozen=True)
class DevicePluginView:
    """A device plugin installed outside the operator (its Helm chart or a raw DaemonSet)."""

    resource: PolicyResource
    tolerations: list[Any] | None
    constrained: bool
    """The program restricts its placement (nodeSelector or affinity of its own)."""


def gpu_operators(resources: list[PolicyResource]) -> list[GpuOperatorView]:
    out: list[GpuOperatorView] = []
    for r in resources:
        if r.type in HELM_TYPES and chart_name(r.props.get("chart")) == GPU_OPERATOR_CHART:
            values = r.props.get("values")
            values = UNKNOWN if is_unknown(values) else as_map(values)
            # With clusterPolicy.deployCR=false the operands come from a separate ClusterPolicy.
            if flag(get(values, "clusterPolicy", "deployCR"), True) is not False:
                out.append(GpuOperatorView(r, values, "helm"))
        elif r.type == CLUSTER_POLICY:
            spec = r.props.get("spec")
            out.append(GpuOperatorView(r, UNKNOWN if is_unknown(spec) else as_map(spec), "clusterpolicy"))
    return out


def _pod_spec(r: PolicyResource) -> Mapping[str, Any]:
    return as_map(get(r.props, "spec", "template", "spec"))


def device_plugins(resources: list[PolicyResource]) -> list[DevicePluginView]:
    out: list[DevicePluginView] = []
    for r in resources:
        if r.type in HELM_TYPES and chart_name(r.props.get("chart")) == DEVICE_PLUGIN_CHART:
            values = r.props.get("values")
            if is_unknown(values):
                out.append(DevicePluginView(r, None, False))
                continue
            values = as_map(values)
            if flag(get(values, "devicePlugin", "enabled"), True) is False:
                continue
            tols = values.get("tolerations")
            out.append(
                DevicePluginView(
                    r,
                    None
                    if is_unknown(tols)
                    else list(DEVICE_PLUGIN_DEFAULT_TOLERATIONS)
                    if tols is None
                    else as_list(tols),
                    bool(values.get("nodeSelector")) or "affinity" in values,
                )
            )
        elif r.type == DAEMONSET:
            spec = _pod_spec(r)
            images = [str(get(c, "image") or "") for c in as_list(spec.get("containers"))]
            if any("k8s-device-plugin" in i for i in images):
                tols = spec.get("tolerations")
                out.append(
                    DevicePluginView(
                        r,
                        None if is_unknown(tols) else as_list(tols),
                        bool(spec.get("nodeSelector")) or bool(spec.get("affinity")),
                    )
                )
    return out


def config_map_configs(resources: list[PolicyResource], name: str | None) -> dict[str, Any]:
    """Device-plugin configs held in ConfigMaps (the one named ``name``, or any when ``name`` is None)."""
    out: dict[str, Any] = {}
    for r in resources:
        if r.type != CONFIG_MAP:
            continue
        cm_name = get(r.props, "metadata", "name")
        if name is not None and cm_name not in (name, None) and not is_unknown(cm_name):
            continue
        for key, value in as_map(r.props.get("data")).items():
            out.setdefault(str(key), value)
    return out
