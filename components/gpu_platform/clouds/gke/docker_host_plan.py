"""Compute Engine inputs of a ``GpuDockerHost`` (pulumi-gcp ``compute.Instance``), from the shared plan.

GPU VMs cannot live-migrate: ``on_host_maintenance`` must be ``TERMINATE`` (Compute Engine, "GPU
machine types", host maintenance). Accelerator-optimized machine types (A2, A3, A4, G2) come with their
GPUs; N1 takes them as ``guest_accelerators``. The user data reaches cloud-init through the ``user-data``
metadata key, which Ubuntu images (the Deep Learning VM images are Ubuntu) read.
"""

from __future__ import annotations

from typing import Any

from gpu_platform.addons.docker_host.plan import DockerHostPlan

HYPERDISK_ONLY = ("a3-ultragpu-", "a4-highgpu-")
"""Machine series whose boot disk must be Hyperdisk (Compute Engine, A3 Ultra and A4 disk support)."""


def boot_disk_type(machine_type: str) -> str:
    return "hyperdisk-balanced" if machine_type.startswith(HYPERDISK_ONLY) else "pd-balanced"


def instance_inputs(plan: DockerHostPlan) -> dict[str, Any]:
    """Keyword arguments of ``pulumi_gcp.compute.Instance``. The instance name is left to Pulumi (a suffixed
    ``name``), so a replacement is created before the old instance is deleted."""
    s = plan.settings
    m = plan.machine
    nic: dict[str, Any] = {"subnetwork": s["subnetwork"]} if s.get("subnetwork") else {"network": "default"}
    if plan.public_ip:
        nic["access_configs"] = [{"network_tier": "PREMIUM"}]
    scheduling: dict[str, Any] = {"on_host_maintenance": "TERMINATE"}
    if plan.spot:
        scheduling.update(
            provisioning_model="SPOT",
            preemptible=True,
            automatic_restart=False,
            instance_termination_action="STOP",
        )
    else:
        scheduling.update(provisioning_model="STANDARD", automatic_restart=True)
    inputs: dict[str, Any] = {
        "machine_type": m.name,
        "zone": s["zone"],
        "boot_disk": {
            "auto_delete": True,
            "initialize_params": {
                "image": plan.image,
                "size": plan.disk_size_gb,
                "type": boot_disk_type(m.name),
            },
        },
        "network_interfaces": [nic],
        "metadata": {"user-data": plan.user_data},
        "scheduling": scheduling,
        "labels": dict(plan.labels),
        # Changing the machine type or accelerators needs a stopped instance.
        "allow_stopping_for_update": True,
    }
    if m.allowed_gpu_counts:
        inputs["guest_accelerators"] = [{"type": m.accelerator_type, "count": plan.gpus}]
    if s.get("project") is not None:
        inputs["project"] = s["project"]
    if s.get("service_account") is not None:
        inputs["service_account"] = {
            "email": s["service_account"],
            "scopes": ["https://www.googleapis.com/auth/cloud-platform"],
        }
    if s.get("tags"):
        inputs["tags"] = list(s["tags"])
    return inputs
