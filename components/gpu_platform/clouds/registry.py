"""Every cloud's wiring by its ``cloud:`` value: the only place the stack, the policy pack and ``GpuDockerHost``
reach a cloud's folder.

Each cloud's folder lists what it offers in its ``wiring.py`` (a ``CloudEntry`` of loaders): a cloud's code is
imported when its stack plans (with its cloud SDK only when its resources are created), so planning a GKE stack
never loads the EKS code.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

from gpu_platform.clouds.aks.wiring import ENTRY as AKS
from gpu_platform.clouds.cloud_wiring import (
    CloudAddons,
    CloudEntry,
    CloudWiring,
    CreateDockerHost,
    Deploy,
    MetricsCluster,
)
from gpu_platform.clouds.eks.wiring import ENTRY as EKS
from gpu_platform.clouds.existing.wiring import ENTRY as EXISTING
from gpu_platform.clouds.gke.wiring import ENTRY as GKE
from gpu_platform.clouds.openshift.wiring import ENTRY as OPENSHIFT
from gpu_platform.clouds.yandex.wiring import ENTRY as YANDEX

ENTRIES: dict[str, CloudEntry] = {e.name: e for e in (GKE, EKS, AKS, EXISTING, OPENSHIFT, YANDEX)}
"""Each cloud's entry, in ``cloud_facts.PROFILES``'s order (a test checks)."""

WIRING: dict[str, Callable[[], CloudWiring]] = {name: e.wiring for name, e in ENTRIES.items()}
"""Each cloud's wiring, loaded on first use."""


def policy_reader(cloud: str) -> ModuleType | None:
    """The cloud's module reading its node-pool resources for the policy pack (``node_pools(res)`` and the fixes
    in its SDK's terms), imported on first use; ``None`` for a cloud that declares no pools of its own."""
    entry = ENTRIES.get(cloud)
    return entry.policy_reader() if entry is not None and entry.policy_reader is not None else None


def docker_host_creator(cloud: str) -> CreateDockerHost:
    """The cloud's ``create_docker_host`` (its module imports the cloud's SDK, so only on use)."""
    entry = ENTRIES.get(cloud)
    if entry is None or entry.docker_host is None:
        raise KeyError(cloud)
    return entry.docker_host()


def wiring_of(cloud: str) -> CloudWiring:
    """The wiring of a cloud the config already accepted (``KeyError`` otherwise)."""
    return WIRING[cloud]()


__all__ = [
    "ENTRIES",
    "WIRING",
    "CloudAddons",
    "CloudEntry",
    "CloudWiring",
    "CreateDockerHost",
    "Deploy",
    "MetricsCluster",
    "docker_host_creator",
    "policy_reader",
    "wiring_of",
]
