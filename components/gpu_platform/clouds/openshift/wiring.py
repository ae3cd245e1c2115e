"""OpenShift's wiring as ``clouds.registry`` lists it: the stack's deploy and the policy pack's node-pool reader,
each imported on first use so planning another cloud's stack never loads this folder (nor its SDK)."""

from __future__ import annotations

from types import ModuleType

from gpu_platform.cloud_facts.openshift.profile import PROFILE
from gpu_platform.clouds.cloud_wiring import CloudEntry, CloudWiring


def _wiring() -> CloudWiring:
    from gpu_platform.clouds.openshift import olm, stack

    return CloudWiring(stack.deploy, installers={"gpu_operator": olm.install})


def _policy_reader() -> ModuleType:
    from gpu_platform.clouds.openshift import policy

    return policy


ENTRY = CloudEntry(PROFILE.name, _wiring, policy_reader=_policy_reader)
