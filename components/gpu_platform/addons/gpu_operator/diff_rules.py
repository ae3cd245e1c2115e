"""What ``gpu-platform diff`` flags in the GPU Operator's objects (``gpu_platform.diff_rule``): what reloads the
node driver, and what repartitions the GPUs.

The driver the operator runs is its ClusterPolicy's ``driver`` section, whether the Helm release renders it
(``values.driver``, chart v26.7.0) or OLM's ClusterPolicy holds it (OpenShift), or an ``NVIDIADriver`` does. A new
version, image, repository or kernel module type, the driver on or off, or GPUDirect RDMA (``driver.rdma``: the
nvidia-peermem module) on or off rolls the driver DaemonSet: the driver is reloaded node by node under its
``upgradePolicy``, evicting GPU pods (docs/day2.md). The mig-parted ConfigMap holds the MIG layouts: a new one makes
the MIG manager repartition the GPUs it names (NVIDIA/cloud-native-docs ``gpu-operator/gpu-operator-mig.rst``).
"""

from __future__ import annotations

from typing import Any

from gpu_platform.catalog.drivers import GPU_OPERATOR_DEFAULT_DRIVER
from gpu_platform.diff_rule import DiffRule, Inputs, changes, chart, derived, gone, kind
from gpu_platform.releases import GPU_OPERATOR

RELOAD = (
    "the GPU Operator reloads the NVIDIA GPU driver on every node it serves, evicting their GPU work (its "
    "upgradePolicy waits for jobs to finish; docs/day2.md)"
)
DRIVER_FIELDS = ("version", "image", "repository", "kernelModuleType", "rdma")


def node_driver(inputs: Inputs) -> str:
    """The driver the GPU Operator release installs on the nodes (``""``: none): ``driver.version``, else the
    chart version's default (``catalog.drivers``)."""
    values: Any = inputs.get("values") or {}
    driver = values.get("driver") or {} if isinstance(values, dict) else {}
    if driver.get("enabled", True) is False:
        return ""
    version = driver.get("version") or GPU_OPERATOR_DEFAULT_DRIVER.get(str(inputs.get("version")), "")
    return str(version or f"the default of {inputs.get('version')}")


def is_mig_parted_config(inputs: Inputs) -> bool:
    """A ConfigMap holding mig-parted's ``mig-configs`` (the library's, or one named for mig-parted)."""
    meta = inputs.get("metadata") or {}
    data = inputs.get("data") or {}
    return "mig-parted" in str(meta.get("name", "")) or any(
        isinstance(v, str) and "mig-configs" in v for v in data.values()
    )


RELEASE = chart(GPU_OPERATOR.chart_name)

DIFF_RULES: tuple[DiffRule, ...] = (
    derived(RELEASE, "reloads driver", RELOAD, "node driver", node_driver),
    changes(
        RELEASE,
        "reloads driver",
        RELOAD,
        *(f"values.driver.{key}" for key in ("image", "repository", "kernelModuleType", "rdma")),
    ),
    gone(
        RELEASE,
        "reloads driver",
        "the operator's driver, device plugin and MIG manager leave every GPU node: the operator's driver is "
        "unloaded and no new GPU pod is scheduled",
        when=lambda inputs: bool(node_driver(inputs)),
        when_text="when it installs the driver",
    ),
    changes(
        kind("nvidia.com", "ClusterPolicy"),
        "reloads driver",
        RELOAD,
        "spec.driver.enabled",
        *(f"spec.driver.{key}" for key in DRIVER_FIELDS),
    ),
    changes(
        kind("nvidia.com", "NVIDIADriver"),
        "reloads driver",
        RELOAD,
        *(f"spec.{key}" for key in ("version", "image", "repository", "kernelModuleType")),
    ),
    changes(
        kind("core", "ConfigMap"),
        "reconfigures GPUs",
        "the MIG manager repartitions the GPUs of every node whose layout changed, evicting their pods",
        "data",
        when=is_mig_parted_config,
        when_text="when it holds mig-parted's mig-configs",
    ),
)
