"""Creates the Azure VM of a ``GpuDockerHost`` with its network interface (and public IP); azure-native is
imported only here, on use."""

from __future__ import annotations

from typing import Any

import pulumi

from gpu_platform.addons.docker_host.plan import DockerHostPlan
from gpu_platform.cloud_facts.aks.profile import PROFILE
from gpu_platform.clouds.aks.docker_host_plan import nic_inputs, public_ip_inputs, vm_inputs


def _private_ip(configs: Any) -> str:
    first = configs[0] if configs else None
    if first is None:
        return ""
    value = (
        first.get("private_ip_address")
        if isinstance(first, dict)
        else getattr(first, "private_ip_address", None)
    )
    return str(value or "")


def create_docker_host(parent: pulumi.Resource, name: str, plan: DockerHostPlan) -> pulumi.Output[str]:
    """The VM; returns its public address with ``public_ip``, else its private one."""
    PROFILE.sdk(parent)  # one line naming the extra when the SDK is missing
    import pulumi_azure_native.compute as compute
    import pulumi_azure_native.network as network

    opts = pulumi.ResourceOptions(parent=parent)
    ip = (
        network.PublicIPAddress(f"{name}-ip", **public_ip_inputs(plan), opts=opts) if plan.public_ip else None
    )
    nic = network.NetworkInterface(f"{name}-nic", **nic_inputs(plan, ip.id if ip else None), opts=opts)
    compute.VirtualMachine(f"{name}-vm", **vm_inputs(plan, name, nic.id), opts=opts)
    if ip is not None:
        return ip.ip_address.apply(lambda a: a or "")
    return nic.ip_configurations.apply(_private_ip)
