"""Creates the EC2 instance of a ``GpuDockerHost``; pulumi-aws is imported only here, on use."""

from __future__ import annotations

from typing import Any

import pulumi

from gpu_platform.addons.docker_host.plan import DockerHostPlan
from gpu_platform.cloud_facts.eks.profile import PROFILE
from gpu_platform.clouds.eks.docker_host_plan import instance_inputs


def create_docker_host(parent: pulumi.Resource, name: str, plan: DockerHostPlan) -> pulumi.Output[str]:
    """The instance; returns its public address with ``public_ip``, else its private one."""
    PROFILE.sdk(parent)  # one line naming the extra when the SDK is missing
    import pulumi_aws as aws

    opts = pulumi.ResourceOptions(parent=parent)
    ami: Any = plan.image
    if not plan.own_image:
        ami = aws.ssm.get_parameter_output(
            name=plan.image, opts=pulumi.InvokeOutputOptions(parent=parent)
        ).value
    instance = aws.ec2.Instance(f"{name}-instance", **instance_inputs(plan, name, ami), opts=opts)
    return instance.public_ip if plan.public_ip else instance.private_ip
