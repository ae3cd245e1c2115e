"""HAMi's plan: the pinned chart's values for the isolated pools.

Who owns what on an isolated pool's nodes: HAMi's device plugin advertises the cards (``sharing.VGPU_RESOURCE``,
``deviceSplitCount`` per card) and HAMi-core enforces each container's memory and compute limits; the GPU
Operator keeps the driver, the container toolkit (HAMi's device plugin waits for its ``toolkit-ready``), GFD
and the DCGM exporter there, and its device plugin is kept off by the pool's labels
(``scheduling.isolated_labels``). HAMi's scheduler (kube-scheduler with HAMi's extender) places the pods its
webhook hands it. Values from Project-HAMi/HAMi v2.10.0 ``charts/hami/values.yaml``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpu_platform import versions
from gpu_platform.mirror import Mirror
from gpu_platform.plans.helm import deep_merge
from gpu_platform.pools import GpuPool
from gpu_platform.scheduling import SHARING_LABEL, node_agent_tolerations
from gpu_platform.sharing import GPU_CORES_RESOURCE, GPU_MEMORY_RESOURCE, ISOLATED, VGPU_RESOURCE


@dataclass(frozen=True)
class HamiPlan:
    namespace: str
    values: dict[str, Any]
    mirror: Mirror | None = None
    """Where the chart and its images come from instead of upstream."""


def isolated_pools(pools: Sequence[GpuPool]) -> list[GpuPool]:
    """The pools HAMi serves: ``sharing.mode: isolated``."""
    return [p for p in pools if p.sharing.mode == ISOLATED]


def kube_scheduler_tag(kubernetes_version: str | None) -> str:
    """The kube-scheduler image for the cluster's minor (the pinned default minor when unsaid or unknown)."""
    minor = ".".join((kubernetes_version or "").lstrip("v").split(".")[:2])
    tags = versions.HAMI_KUBE_SCHEDULER_IMAGE_TAGS
    return tags.get(minor, tags[versions.HAMI_KUBE_SCHEDULER_DEFAULT_MINOR])


def _tolerations(pools: Sequence[GpuPool]) -> list[dict[str, str]]:
    """Every isolated pool's node-agent tolerations, once each."""
    out: list[dict[str, str]] = []
    for pool in pools:
        out += [t for t in node_agent_tolerations(pool) if t not in out]
    return out


def hami_values(pools: Sequence[GpuPool], kubernetes_version: str | None = None) -> dict[str, Any]:
    """Chart values: HAMi's device plugin on the isolated pools only, splitting each card as they ask, its
    count resource renamed so whole-GPU pods of other pools never reach HAMi's scheduler, images pinned."""
    served = isolated_pools(pools)
    splits = served[0].sharing.replicas if served else None
    image = {"tag": versions.HAMI_IMAGE_TAG}
    registry, _, repository = versions.HAMI_KUBE_SCHEDULER_IMAGE_REPOSITORY.partition("/")
    plugin: dict[str, Any] = {
        # ``null`` drops the chart's default ``gpu: "on"`` selector (Helm deletes a key set to null).
        "nvidiaNodeSelector": {"gpu": None, SHARING_LABEL: ISOLATED},
        "tolerations": _tolerations(served),
        "gpuOperatorToolkitReady": {"enabled": True},
        "image": image,
        "monitor": {"image": image},
    }
    if splits is not None:
        plugin["deviceSplitCount"] = splits
    return {
        "resourceName": VGPU_RESOURCE,
        "resourceMem": GPU_MEMORY_RESOURCE,
        "resourceCores": GPU_CORES_RESOURCE,
        "global": {"imageTag": versions.HAMI_IMAGE_TAG},
        "scheduler": {
            "kubeScheduler": {
                "image": {
                    "registry": registry,
                    "repository": repository,
                    "tag": kube_scheduler_tag(kubernetes_version),
                }
            },
            "extender": {"image": image},
        },
        "devicePlugin": plugin,
    }


def hami_plan(
    pools: Sequence[GpuPool],
    kubernetes_version: str | None = None,
    namespace: str = versions.HAMI.namespace,
    values: dict[str, Any] | None = None,
    mirror: Mirror | None = None,
) -> HamiPlan:
    """HAMi in ``namespace`` for the isolated ``pools`` (the user's ``values`` under the typed ones)."""
    return HamiPlan(namespace, deep_merge(dict(values or {}), hami_values(pools, kubernetes_version)), mirror)
