"""Creates the Compute Engine instance of a ``GpuDockerHost``; pulumi-gcp is imported only here, on use."""

from __future__ import annotations

from typing import Any

import pulumi

from gpu_platform.addons.docker_host.plan import DockerHostPlan
from gpu_platform.cloud_facts.gke.profile import PROFILE
from gpu_platform.clouds.gke.docker_host_plan import instance_inputs


def _get(obj: Any, key: str) -> Any:
    """A field of an output object, typed (under the engine) or a plain dict."""
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def address_of(nics: Any, public: bool) -> str:
    """External address of the first interface with ``public_ip``, else its internal one."""
    nic = nics[0] if nics else None
    if nic is None:
        return ""
    configs = _get(nic, "access_configs") or []
    if public and configs:
        return str(_get(configs[0], "nat_ip") or "")
    return str(_get(nic, "network_ip") or "")


def create_docker_host(parent: pulumi.Resource, name: str, plan: DockerHostPlan) -> pulumi.Output[str]:
    """The instance; returns its address."""
    PROFILE.sdk(parent)  # one line naming the extra when the SDK is missing
    import pulumi_gcp.compute as compute

    # cloud-init runs the user data on first boot only: a new Compose file needs a new VM (created before the old
    # one goes: the instance name is Pulumi's, suffixed).
    opts = pulumi.ResourceOptions(parent=parent, replace_on_changes=['metadata["user-data"]'])
    instance = compute.Instance(f"{name}-instance", **instance_inputs(plan), opts=opts)
    public = plan.public_ip
    return instance.network_interfaces.apply(lambda nics: address_of(nics, public))
