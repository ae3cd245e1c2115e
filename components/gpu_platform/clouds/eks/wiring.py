"""EKS's wiring as ``clouds.registry`` lists it: the stack's deploy, the policy pack's node-pool reader and
``GpuDockerHost``'s VM, each imported on first use so planning another cloud's stack never loads this folder (nor
its SDK)."""

from __future__ import annotations

from types import ModuleType

from gpu_platform.cloud_facts.eks.profile import PROFILE
from gpu_platform.clouds.cloud_wiring import CloudEntry, CloudWiring, CreateDockerHost
from gpu_platform.releases import AWS_EFA_DEVICE_PLUGIN, CLUSTER_AUTOSCALER, KARPENTER, KARPENTER_CRD


def _wiring() -> CloudWiring:
    from gpu_platform.clouds.eks import stack

    return CloudWiring(
        stack.deploy,
        cloud_addons=stack.cloud_addons,
        metrics_cluster=stack.metrics_cluster,
        releases=(CLUSTER_AUTOSCALER, AWS_EFA_DEVICE_PLUGIN, KARPENTER, KARPENTER_CRD),
    )


def _policy_reader() -> ModuleType:
    from gpu_platform.clouds.eks import policy

    return policy


def _docker_host() -> CreateDockerHost:
    from gpu_platform.clouds.eks.docker_host import create_docker_host

    return create_docker_host


ENTRY = CloudEntry(PROFILE.name, _wiring, policy_reader=_policy_reader, docker_host=_docker_host)
