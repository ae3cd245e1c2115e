"""One NVIDIA L4 VM serving a model with vLLM through Docker Compose: no Kubernetes.

``g2-standard-8`` is one L4 (24 GB). The host boots Google's Deep Learning VM image (driver on it); cloud-init
installs the pinned NVIDIA Container Toolkit, configures Docker for it and starts the Compose file below at
every boot. A second service runs ``nvidia-smi`` once from a CUDA base image, on the same GPU, as a smoke test.

The host has no public address, so its subnet needs a way out for cloud-init (NVIDIA's apt key and packages, the
images): a Cloud Router with Cloud NAT for the ``default`` network in the host's region, created first. A platform
whose network already has NAT drops those two resources and keeps ``egress: nat``.
"""

from __future__ import annotations

import pulumi
import pulumi_gcp as gcp

from gpu_platform import GpuDockerHost

config = pulumi.Config()
zone = config.require("zone")
model = config.get("model") or "Qwen/Qwen2.5-7B-Instruct"
region = zone.rsplit("-", 1)[0]

router = gcp.compute.Router("l4-host-router", network="default", region=region)
nat = gcp.compute.RouterNat(
    "l4-host-nat",
    router=router.name,
    region=region,
    nat_ip_allocate_option="AUTO_ONLY",
    source_subnetwork_ip_ranges_to_nat="ALL_SUBNETWORKS_ALL_IP_RANGES",
)

host = GpuDockerHost(
    "l4-host",
    {
        "cloud": "gke",
        "machine_type": "g2-standard-8",
        "gce": {"zone": zone, "tags": ["gpu-docker-host"]},
        "egress": "nat",  # through the Cloud NAT above
        "services": [
            {
                "name": "vllm",
                # vLLM's image is built for CUDA 12.8; the Deep Learning VM image's 570 driver runs it.
                "image": "vllm/vllm-openai:v0.10.1",
                "cuda_version": "12.8",
                # Several services share a GPU only by naming it; a count would take a GPU of its own.
                "device_ids": ["0"],
                "command": ["--model", model, "--max-model-len", "8192", "--gpu-memory-utilization", "0.85"],
                "ports": ["8000:8000"],
                "volumes": ["/opt/hf-cache:/root/.cache/huggingface"],
                "ipc": "host",
            },
            {
                "name": "smoke-test",
                "image": "nvcr.io/nvidia/cuda:12.8.1-base-ubuntu22.04",
                "device_ids": ["0"],
                "command": ["nvidia-smi"],
                "restart": "no",  # one shot: unless-stopped would run it in a loop
            },
        ],
        "labels": {"app": "vllm"},
    },
    opts=pulumi.ResourceOptions(depends_on=[nat]),  # cloud-init runs at first boot: NAT must be there
)

pulumi.export("address", host.address)
pulumi.export("driver_version", host.driver_version)
pulumi.export("compose", host.compose)
