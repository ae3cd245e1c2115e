"""A node pool as any Pulumi program declares it, read into one shape the policy rules check; the readers of
each cloud's resource types are in ``gpu_platform/clouds/<cloud>/policy.py``."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpu_platform.cloud_facts import PROFILES
from gpu_platform.policy_model.model import PolicyResource, as_list, as_map, is_unknown
from gpu_platform.pools import Taint


@dataclass(frozen=True)
class NodePoolView:
    """One node pool; ``None`` in a field means the program leaves it unknown at preview time."""

    resource: PolicyResource
    cloud: str
    """The cloud whose resource declares the pool (a key of ``gpu_platform.cloud_facts.PROFILES``)."""
    name: str
    prefix: str
    """Property path of the pool inside its resource (``nodePools[1].``), empty for standalone pools."""
    machine: str | None
    gpu: bool
    taints: tuple[Taint, ...] | None
    """Taints the program sets, Kubernetes spelling."""
    cloud_taints: tuple[Taint, ...] = ()
    """Taints the cloud adds by itself (AKS spot)."""
    labels: Mapping[str, Any] | None = None
    cloud_driver: bool | None = None
    """The cloud installs the NVIDIA driver on these nodes (GKE driver install, EKS NVIDIA AMI, AKS)."""
    ami_type: str | None = None
    cloud_time_slicing: str | None = None
    """How the cloud itself time-slices the GPUs, as messages name it (GKE ``gpuSharingConfig``
    ``TIME_SHARING``); ``None``: it does not."""
    size_fields: tuple[str, ...] = ()
    """Node-count properties the autoscaler changes, which must be in ``ignoreChanges``."""
    taint_fix: str | None = None
    """How to add the GPU taint when it is not the cloud pool's own spelling (Karpenter NodePools)."""
    extra_nics: tuple[tuple[str | None, str | None], ...] | None = ()
    """The nodes' extra NICs as ``(network, subnetwork)`` names (GKE ``additionalNodeNetworkConfigs``), a
    name ``None`` when unknown at preview; ``None`` when the list itself is unknown."""

    @property
    def display(self) -> str:
        details = [d for d in (self.prefix.rstrip("."), self.machine) if d]
        return f"'{self.name}'" + (f" ({', '.join(details)})" if details else "")

    @property
    def image_ships_device_plugin(self) -> bool:
        """The node image runs its own device plugin (EKS Bottlerocket), per the cloud's image table."""
        return bool(self.ami_type) and PROFILES[self.cloud].image_ships_device_plugin(str(self.ami_type))

    @property
    def bottlerocket(self) -> bool:
        """The old name of ``image_ships_device_plugin``, kept with a warning for one minor release."""
        from gpu_platform._moved import REMOVED_IN

        warnings.warn(
            "NodePoolView.bottlerocket is now NodePoolView.image_ships_device_plugin; the old name goes in "
            f"gpu-platform {REMOVED_IN}",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.image_ships_device_plugin

    def label(self, key: str) -> Any:
        return None if self.labels is None else self.labels.get(key)


def known_str(value: Any) -> str | None:
    return None if value is None or is_unknown(value) else str(value)


def taints_of(items: Any, parse: Any) -> tuple[Taint, ...] | None:
    if is_unknown(items) or any(is_unknown(i) for i in as_list(items)):
        return None
    out = [parse(i) for i in as_list(items)]
    return None if any(t is None for t in out) else tuple(t for t in out if t is not None)


def labels_of(value: Any) -> Mapping[str, Any] | None:
    return None if is_unknown(value) else as_map(value)
