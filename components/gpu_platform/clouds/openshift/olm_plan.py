"""The GPU Operator through OLM as pure manifests: Node Feature Discovery, then the NVIDIA GPU Operator
(OperatorGroup + Subscription pinned by channel and ``startingCSV``), then a ``ClusterPolicy`` made from the same
values the Helm release would get (``addons.gpu_operator.plan``).

The ClusterPolicy is the chart's ``templates/clusterpolicy.yaml`` meaning of those values: each spec section is
the values section of the same name, less what only Helm reads (``config.create`` and the DCGM exporter's
``config.data``: the library makes the ConfigMaps itself; ``nfd``: NFD is its own operator here). Images are left out: under OLM the CSV gives the
operator its operand images (``RELATED_IMAGE_*``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from gpu_platform.addons.gpu_operator.plan import (
    DEVICE_PLUGIN_CONFIG_MAP,
    MIG_PARTED_CONFIG_MAP,
    OperatorPlan,
    device_plugin_config_data,
    mig_parted_config_data,
)
from gpu_platform.addons.observability.rules import DCGM_METRICS_KEY
from gpu_platform.cloud_facts.openshift.cluster_policy import CLUSTER_POLICY_SECTIONS
from gpu_platform.versions import OPENSHIFT_GPU_OPERATOR, OPENSHIFT_NFD, OlmPin

CLUSTER_POLICY_NAME = "gpu-cluster-policy"
"""The name NVIDIA's OpenShift docs give it (one per cluster)."""
REQUIRED_SECTIONS = frozenset(
    {
        "daemonsets",
        "dcgm",
        "dcgmExporter",
        "devicePlugin",
        "driver",
        "gfd",
        "nodeStatusExporter",
        "operator",
        "toolkit",
    }
)
"""What the ClusterPolicy CRD requires (``{}`` when the library sets nothing there: the operator's defaults)."""
HELM_ONLY: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "devicePlugin": ("config", ("create",)),
    "migManager": ("config", ("create",)),
    "dcgmExporter": ("config", ("create", "data")),
}
"""Values keys the chart reads itself and never puts in the ClusterPolicy (its ``clusterpolicy.yaml`` writes
``config.name`` only)."""
WAIT_FOR = "pulumi.com/waitFor"


def namespace(pin: OlmPin) -> dict[str, Any]:
    labels = {"openshift.io/cluster-monitoring": "true"}
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": pin.namespace, "labels": labels}}


def operator_group(pin: OlmPin) -> dict[str, Any]:
    return {
        "apiVersion": "operators.coreos.com/v1",
        "kind": "OperatorGroup",
        "metadata": {"name": pin.package, "namespace": pin.namespace},
        "spec": {"targetNamespaces": [pin.namespace]},
    }


def subscription(pin: OlmPin) -> dict[str, Any]:
    """The Subscription; it waits until OLM reports the CSV installed, so what needs the CSV's CRDs waits too."""
    spec: dict[str, Any] = {
        "channel": pin.channel,
        "installPlanApproval": pin.approval,
        "name": pin.package,
        "source": pin.source,
        "sourceNamespace": pin.source_namespace,
    }
    wait = "jsonpath={.status.installedCSV}"
    if pin.starting_csv is not None:
        spec["startingCSV"] = pin.starting_csv
        wait = f"jsonpath={{.status.installedCSV}}={pin.starting_csv}"
    meta = {"name": pin.package, "namespace": pin.namespace, "annotations": {WAIT_FOR: wait}}
    return {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "Subscription",
        "metadata": meta,
        "spec": spec,
    }


def node_feature_discovery() -> dict[str, Any]:
    """NFD's instance with the operator's defaults (the worker labels PCI vendor 10de, which the GPU Operator
    selects)."""
    return {
        "apiVersion": "nfd.openshift.io/v1",
        "kind": "NodeFeatureDiscovery",
        "metadata": {"name": "nfd-instance", "namespace": OPENSHIFT_NFD.namespace},
        "spec": {},
    }


def cluster_policy_spec(values: Mapping[str, Any]) -> dict[str, Any]:
    """The ClusterPolicy spec the chart would make of ``values`` (sections the library sets; the rest default)."""
    spec: dict[str, Any] = {}
    for section in CLUSTER_POLICY_SECTIONS:
        if section in values:
            spec[section] = copy.deepcopy(dict(values[section]))
        elif section in REQUIRED_SECTIONS:
            spec[section] = {}
    for section, (key, subs) in HELM_ONLY.items():
        for sub in subs:
            spec.get(section, {}).get(key, {}).pop(sub, None)
    upgrade = spec.get("driver", {}).get("upgradePolicy", {})
    if "gpuPodDeletion" in upgrade:
        # The chart's clusterpolicy.yaml writes values.driver.upgradePolicy.gpuPodDeletion as podDeletion.
        upgrade["podDeletion"] = upgrade.pop("gpuPodDeletion")
    for step in ("waitForCompletion", "drain"):
        # The chart writes a podSelector only when it is non-empty (``{{- if ...podSelector }}``).
        if isinstance(upgrade.get(step), dict) and not upgrade[step].get("podSelector", True):
            upgrade[step] = {k: v for k, v in upgrade[step].items() if k != "podSelector"}
    return spec


def cluster_policy(plan: OperatorPlan) -> dict[str, Any]:
    wait = {WAIT_FOR: "jsonpath={.status.state}=ready"}
    return {
        "apiVersion": "nvidia.com/v1",
        "kind": "ClusterPolicy",
        "metadata": {"name": CLUSTER_POLICY_NAME, "annotations": wait},
        "spec": cluster_policy_spec(plan.values),
    }


def dcgm_metrics_config_map(values: Mapping[str, Any]) -> tuple[str, dict[str, str]] | None:
    """The DCGM exporter's counters ConfigMap the chart's ``dcgm_exporter_config.yaml`` would render (name, data
    under ``dcgm-metrics.csv``, the key the operator mounts), or ``None`` when the values ask for none."""
    config = values.get("dcgmExporter", {}).get("config", {})
    if not (config.get("create") and config.get("data") and config.get("name")):
        return None
    return str(config["name"]), {DCGM_METRICS_KEY: str(config["data"])}


def config_maps(plan: OperatorPlan) -> list[dict[str, Any]]:
    """The device-plugin, mig-parted and DCGM counters ConfigMaps the ClusterPolicy names, in the operator's
    namespace."""
    out = []
    dcgm = dcgm_metrics_config_map(plan.values)
    for name, data in (
        (DEVICE_PLUGIN_CONFIG_MAP, device_plugin_config_data(plan)),
        (MIG_PARTED_CONFIG_MAP, mig_parted_config_data(plan)),
        *([dcgm] if dcgm is not None else []),
    ):
        if data:
            meta = {"name": name, "namespace": OPENSHIFT_GPU_OPERATOR.namespace}
            out.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data})
    return out


def olm_plan(plan: OperatorPlan) -> list[list[dict[str, Any]]]:
    """The manifests in waves; each wave depends on the one before: NFD, its instance, the GPU Operator
    (namespace, group, ConfigMaps, Subscription), then the ClusterPolicy."""
    nfd = [namespace(OPENSHIFT_NFD), operator_group(OPENSHIFT_NFD), subscription(OPENSHIFT_NFD)]
    gpu = [namespace(OPENSHIFT_GPU_OPERATOR), operator_group(OPENSHIFT_GPU_OPERATOR), *config_maps(plan)]
    return [
        nfd,
        [node_feature_discovery()],
        [*gpu, subscription(OPENSHIFT_GPU_OPERATOR)],
        [cluster_policy(plan)],
    ]
