"""Yandex's wiring as ``clouds.registry`` lists it: the stack's deploy, imported on first use so planning another
cloud's stack never loads this folder (nor its SDK)."""

from __future__ import annotations

from gpu_platform.cloud_facts.yandex.profile import PROFILE
from gpu_platform.clouds.cloud_wiring import CloudEntry, CloudWiring


def _wiring() -> CloudWiring:
    from gpu_platform.clouds.yandex import stack

    return CloudWiring(stack.deploy)


ENTRY = CloudEntry(PROFILE.name, _wiring)
