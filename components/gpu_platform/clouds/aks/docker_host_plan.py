"""Azure inputs of a ``GpuDockerHost`` (azure-native ``network.NetworkInterface``, ``network.PublicIPAddress``,
``compute.VirtualMachine``), from the shared plan.

Azure's Linux images run cloud-init on ``os_profile.custom_data``, which must be base64 (Azure docs,
"cloud-init support for virtual machines in Azure"). SSH keys only. Spot VMs are deallocated on eviction, so
the disk and the Compose file survive.
"""

from __future__ import annotations

import base64
import re
from typing import Any

from gpu_platform.addons.docker_host.plan import DockerHostPlan


def image_reference(image: str) -> dict[str, str]:
    """``publisher:offer:sku:version`` (a Marketplace URN) or an image resource ID."""
    if image.startswith("/"):
        return {"id": image}
    publisher, offer, sku, version = image.split(":")
    return {"publisher": publisher, "offer": offer, "sku": sku, "version": version}


def computer_name(name: str) -> str:
    """Linux host names on Azure: at most 64 letters, digits and hyphens."""
    return re.sub(r"[^a-zA-Z0-9-]", "-", name)[:64].strip("-") or "gpu-host"


def public_ip_inputs(plan: DockerHostPlan) -> dict[str, Any]:
    s = plan.settings
    return {
        "resource_group_name": s["resource_group_name"],
        "location": s["location"],
        "public_ip_allocation_method": "Static",
        "public_ip_address_version": "IPv4",
        "sku": {"name": "Standard"},
        "tags": dict(plan.labels),
    }


def nic_inputs(plan: DockerHostPlan, public_ip_id: Any) -> dict[str, Any]:
    s = plan.settings
    config: dict[str, Any] = {
        "name": "primary",
        "primary": True,
        "private_ip_allocation_method": "Dynamic",
        "subnet": {"id": s["subnet_id"]},
    }
    if public_ip_id is not None:
        config["public_ip_address"] = {"id": public_ip_id}
    return {
        "resource_group_name": s["resource_group_name"],
        "location": s["location"],
        "ip_configurations": [config],
        "tags": dict(plan.labels),
    }


def vm_inputs(plan: DockerHostPlan, name: str, nic_id: Any) -> dict[str, Any]:
    """Keyword arguments of ``pulumi_azure_native.compute.VirtualMachine``."""
    s = plan.settings
    user = plan.admin_username
    inputs: dict[str, Any] = {
        "resource_group_name": s["resource_group_name"],
        "location": s["location"],
        "hardware_profile": {"vm_size": plan.machine.name},
        "storage_profile": {
            "image_reference": image_reference(plan.image),
            "os_disk": {
                "create_option": "FromImage",
                "disk_size_gb": plan.disk_size_gb,
                "managed_disk": {"storage_account_type": "Premium_LRS"},
                "delete_option": "Delete",
            },
        },
        "os_profile": {
            "computer_name": computer_name(name),
            "admin_username": user,
            "custom_data": base64.b64encode(plan.user_data.encode()).decode(),
            "linux_configuration": {
                "disable_password_authentication": True,
                "ssh": {
                    "public_keys": [
                        {"path": f"/home/{user}/.ssh/authorized_keys", "key_data": s["ssh_public_key"]}
                    ]
                },
            },
        },
        "network_profile": {
            "network_interfaces": [{"id": nic_id, "primary": True, "delete_option": "Delete"}]
        },
        "tags": dict(plan.labels),
    }
    if plan.spot:
        inputs.update(priority="Spot", eviction_policy="Deallocate", billing_profile={"max_price": -1})
    return inputs
