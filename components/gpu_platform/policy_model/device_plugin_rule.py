"""A cloud's own NVIDIA device plugin as a policy rule: what a cloud's policy module (``clouds/<cloud>/policy.py``,
``DEVICE_PLUGIN_RULE``) declares so the pack keeps a second device plugin off its nodes.

Two clouds ship one: EKS's Bottlerocket NVIDIA AMIs run NVIDIA's device plugin, which nothing turns off
(Bottlerocket, "NVIDIA GPU support", bottlerocket-os/bottlerocket ``packages/nvidia-k8s-device-plugin``), and
GKE runs its own on every GPU node unless the node carries ``gke-no-default-nvidia-gpu-device-plugin=true``
(GKE docs, "Run GPUs in GKE Standard node pools": "Install the GPU Operator"). The pack's rule body is the same
for every cloud of a kind (``gpu_platform.policy.rules``); the cloud gives its name, description and wording.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class DevicePluginRule:
    """The rule that keeps a second device plugin off the nodes whose cloud runs its own."""

    name: str
    """The rule's name in the policy pack (what ``--policy-pack-config`` and a violation name it by)."""
    description: str
    kind: Literal["image", "label"]
    """``image``: some node images ship a device plugin nothing turns off (the profile's
    ``image_ships_device_plugin``); ``label``: the cloud runs one on every GPU node unless a node label turns it
    off (the profile's ``default_device_plugin_off_label``)."""
    images: str = ""
    """``image``: how messages name the nodes of those images (``Bottlerocket``)."""
    dra_fix: str = ""
    """``image``: what a DRA pool on such an image should use instead."""
    labels_field: str = ""
    """``label``: where a pool of the cloud's SDK sets its node labels (``nodeConfig.labels``)."""
    keep_own: str = ""
    """``label``: why a pool may keep the cloud's device plugin (its own GPU sharing), for messages."""
