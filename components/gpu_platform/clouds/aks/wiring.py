"""AKS's wiring as ``clouds.registry`` lists it: the stack's deploy, the policy pack's node-pool reader and
``GpuDockerHost``'s VM, each imported on first use so planning another cloud's stack never loads this folder (nor
its SDK)."""

from __future__ import annotations

from types import ModuleType

from gpu_platform.cloud_facts.aks.profile import PROFILE
from gpu_platform.clouds.cloud_wiring import CloudEntry, CloudWiring, CreateDockerHost
from gpu_platform.releases import NETWORK_OPERATOR


def _wiring() -> CloudWiring:
    from gpu_platform.clouds.aks import stack

    return CloudWiring(
        stack.deploy,
        cloud_addons=stack.cloud_addons,
        metrics_cluster=stack.metrics_cluster,
        metrics_reader=stack.metrics_reader,
        releases=(NETWORK_OPERATOR,),
    )


def _policy_reader() -> ModuleType:
    from gpu_platform.clouds.aks import policy

    return policy


def _docker_host() -> CreateDockerHost:
    from gpu_platform.clouds.aks.docker_host import create_docker_host

    return create_docker_host


ENTRY = CloudEntry(PROFILE.name, _wiring, policy_reader=_policy_reader, docker_host=_docker_host)
