"""The registry of clouds: the only list of them. The ``Cloud`` enum, the SDK extras and every per-cloud table
derive from ``PROFILES``.

Each cloud has its facts here (``<cloud>/profile.py``: facts and rules; its tables) and its plans, components
and stack wiring in ``gpu_platform/clouds/<cloud>/``.
Adding a cloud is a new folder and one line below, besides the edits docs/adding-a-cloud.md lists.
"""

from __future__ import annotations

from collections.abc import Callable

from gpu_platform.cloud_facts.aks.profile import PROFILE as AKS
from gpu_platform.cloud_facts.eks.profile import PROFILE as EKS
from gpu_platform.cloud_facts.existing.profile import PROFILE as EXISTING
from gpu_platform.cloud_facts.gke.profile import PROFILE as GKE
from gpu_platform.cloud_facts.openshift.profile import PROFILE as OPENSHIFT
from gpu_platform.cloud_facts.profile import CloudProfile
from gpu_platform.cloud_facts.yandex.profile import PROFILE as YANDEX
from gpu_platform.sdk import POLICY, Extra

PROFILES: dict[str, CloudProfile] = {p.name: p for p in (GKE, EKS, AKS, EXISTING, OPENSHIFT, YANDEX)}
"""Every cloud by its ``cloud:`` value, in the order messages list them."""


CLOUD_EXTRAS: dict[str, Extra] = {p.extra.name: p.extra for p in PROFILES.values() if p.extra is not None}
"""The package extra of each cloud with an SDK; ``[all]`` is these."""
EXTRAS: dict[str, Extra] = {**CLOUD_EXTRAS, POLICY.name: POLICY}
"""Every extra that brings one SDK (``[render]``, helm-python-sdk, is checked by ``plan --render``)."""


def profile_of(cloud: str) -> CloudProfile:
    """The profile of a cloud the config already accepted (``KeyError`` otherwise)."""
    return PROFILES[cloud]


def clouds_where(has: Callable[[CloudProfile], object]) -> list[CloudProfile]:
    """The profiles for which ``has`` is true, in registry order (for messages naming where a setting works)."""
    return [p for p in PROFILES.values() if has(p)]
