"""``GpuDockerHost``: one GPU VM (Compute Engine, EC2 or Azure) ready for ``docker run --gpus`` and Compose.

The checks (``addons.docker_host.checks``) come first: the machine is a GPU machine of the catalog, the
GPU counts are whole, each image's CUDA runs on the host's driver, the orchestrator is Compose. The
constructor then only creates the cloud's VM (``clouds/<cloud>/docker_host.py``), which boots the cloud's GPU
image (or Ubuntu with the driver installed) and the plan's cloud-init: the NVIDIA Container Toolkit at its
pinned version, Docker configured for it, and the Compose file started at every boot.
"""

from typing import Any

import pulumi

from gpu_platform.addons.docker_host.checks import resolve_docker_host
from gpu_platform.addons.docker_host.plan import DockerHostPlan, docker_host_plan
from gpu_platform.addons.docker_host.settings import GpuDockerHostArgs
from gpu_platform.clouds.registry import docker_host_creator
from gpu_platform.component import PlannedComponent


class GpuDockerHost(PlannedComponent[DockerHostPlan]):
    """A GPU VM with the driver, Docker, the NVIDIA Container Toolkit and a Compose file for its GPUs."""

    _type_token = "gpu-platform:index:GpuDockerHost"

    address: pulumi.Output[str]
    """The host's address: public with ``public_ip``, else private."""
    compose: pulumi.Output[str]
    """The Compose file written to ``COMPOSE_PATH`` on the host (YAML)."""
    driver_version: pulumi.Output[str]
    """The NVIDIA driver the CUDA check ran against (the image's, or the installed branch's first release)."""

    def __init__(
        self, name: str, args: GpuDockerHostArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        """Check ``args`` (every problem at once; nothing is created on one), then create it. A single GPU VM
        running Docker with the NVIDIA Container Toolkit and a Compose file."""
        self._start(name, docker_host_plan(resolve_docker_host(args)), opts)

    def _create(self, name: str, plan: DockerHostPlan) -> dict[str, Any]:
        self.address = docker_host_creator(plan.cloud)(self, name, plan)
        self.compose = pulumi.Output.from_input(plan.compose_yaml)
        self.driver_version = pulumi.Output.from_input(str(plan.driver_version))
        return {"address": self.address, "compose": self.compose, "driver_version": self.driver_version}
