"""A Docker host on EC2: the instance inputs of its plan are what pulumi-aws accepts."""

from __future__ import annotations

from gpu_platform.clouds.eks import docker_host_plan as ec2
from tests.support.docker_host import plan_for


def test_ec2_inputs_match_pulumi_aws() -> None:
    import pulumi_aws.ec2 as aws_ec2

    from tests.support.sdk_inputs import sdk_input_problems

    for extra in ({}, {"spot": True, "public_ip": True}):
        inputs = ec2.instance_inputs(plan_for("eks", **extra), "host", "ami-0123")
        assert sdk_input_problems(aws_ec2.Instance, inputs) == []
