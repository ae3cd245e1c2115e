"""Google's COS driver installer, as the library deploys it on GKE nodes whose driver the cloud installs but the
node pool does not (``gpuOperator.driver.owner: cloud`` with ``gpu_driver_version: INSTALLATION_DISABLED``).

The DaemonSets are GoogleCloudPlatform/container-engine-accelerators' manifests at the pins in ``versions``
(``nvidia-driver-installer/cos/daemonset-preloaded.yaml`` and its A4X variant), renamed so GKE's addon
manager never reconciles over them, with the driver version and the machines each serves set here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpu_platform import versions
from gpu_platform.driver import INSTANCE_TYPE_LABEL, installer_machine_types, installer_manifest
from gpu_platform.pools import GpuPool
from gpu_platform.versions import UpstreamFile

GKE_INSTALLER_NAME = "gpu-platform-nvidia-driver-installer"
"""Not Google's own name, so GKE's addon manager never reconciles over it."""
A4X_INSTALLER = versions.GKE_COS_A4X_INSTALLER
"""Google's driver installer for A4X (COS, latest driver, no partition container); every other GPU node gets
``versions.GKE_COS_INSTALLER``. Which machines it serves is the instance-type list in its own node affinity."""


def installer_file(pool: GpuPool) -> UpstreamFile:
    """The installer manifest that serves ``pool``'s machines."""
    a4x = pool.machine is not None and pool.machine.name in installer_machine_types(A4X_INSTALLER)
    return A4X_INSTALLER if a4x else versions.GKE_COS_INSTALLER


def gke_driver_installer(
    installer_version: str | None = None,
    file: UpstreamFile = versions.GKE_COS_INSTALLER,
    exclude: Sequence[str] = (),
) -> dict[str, Any]:
    """Google's COS driver installer DaemonSet exactly as upstream ships it (``file``: ``versions.GKE_COS_INSTALLER``
    or ``GKE_COS_A4X_INSTALLER``; the ``lsmod`` already-installed guard, tolerate everything, pinned images),
    renamed so GKE's addon manager never reconciles over it.

    ``installer_version`` (``gpuOperator.driver.installerVersion``) pins ``cos-gpu-installer install
    --version``; it must be a driver version that COS release supports. Default: the COS default (A4X: latest).
    ``exclude``: machine types another installer serves, kept off by their ``node.kubernetes.io/instance-type``.
    """
    obj = installer_manifest(file)
    name = GKE_INSTALLER_NAME + GKE_INSTALLER_SUFFIX[file]
    labels = {"k8s-app": name}
    obj["metadata"] = {**obj["metadata"], "name": name, "labels": labels}
    spec = obj["spec"]
    spec["selector"] = {"matchLabels": dict(labels)}
    spec["template"]["metadata"]["labels"] = {"name": name, **labels}
    if installer_version:
        installer = spec["template"]["spec"]["initContainers"][0]
        script = installer["command"][-1]
        (upstream,) = [
            c
            for c in ("/cos-gpu-installer install ||", "/cos-gpu-installer install --version=latest ||")
            if c in script
        ]
        installer["command"][-1] = script.replace(
            upstream, f"/cos-gpu-installer install --version={installer_version} ||"
        )
    if exclude:
        affinity = spec["template"]["spec"]["affinity"]["nodeAffinity"]
        for term in affinity["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]:
            term["matchExpressions"].append(
                {"key": INSTANCE_TYPE_LABEL, "operator": "NotIn", "values": sorted(exclude)}
            )
    return obj


def gke_driver_installers(
    pools: Sequence[GpuPool], installer_version: str | None = None
) -> list[dict[str, Any]]:
    """The installers the pools' nodes need, each kept off the machines another one serves (the COS installer
    selects every GPU node, A4X's only A4X machine types): never two on one node."""
    files = sorted(
        {installer_file(p) for p in pools},
        key=lambda f: GKE_INSTALLER_SUFFIX[f],
    )
    files = files or [versions.GKE_COS_INSTALLER]
    served = {f: installer_machine_types(f) for f in files}
    return [
        gke_driver_installer(installer_version, f, [] if served[f] else sorted(set().union(*served.values())))
        for f in files
    ]


GKE_INSTALLER_SUFFIX = {versions.GKE_COS_INSTALLER: "", versions.GKE_COS_A4X_INSTALLER: "-a4x"}
"""Each installer DaemonSet's name after ``GKE_INSTALLER_NAME`` (and its resource's after the component's)."""
