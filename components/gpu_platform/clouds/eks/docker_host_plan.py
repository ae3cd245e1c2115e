"""EC2 inputs of a ``GpuDockerHost`` (pulumi-aws ``ec2.Instance``), from the shared plan.

The AMI is the Deep Learning Base GPU AMI that the public SSM parameter names at deploy time (AWS DLAMI
docs, "Query the AMI ID with SSM"), unless the user gives an AMI ID. IMDSv2 only, with a hop limit of 2 so
containers on Docker's bridge network still reach the metadata service (EC2 user guide, "Configure the
instance metadata options"). A change of user data replaces the instance: cloud-init runs only on first boot.
"""

from __future__ import annotations

from typing import Any

from gpu_platform.addons.docker_host.plan import DockerHostPlan


def instance_inputs(plan: DockerHostPlan, name: str, ami: Any) -> dict[str, Any]:
    """Keyword arguments of ``pulumi_aws.ec2.Instance``; ``ami`` is the AMI ID (or its Output)."""
    s = plan.settings
    inputs: dict[str, Any] = {
        "ami": ami,
        "instance_type": plan.machine.name,
        "subnet_id": s["subnet_id"],
        "user_data": plan.user_data,
        "user_data_replace_on_change": True,
        "associate_public_ip_address": plan.public_ip,
        "root_block_device": {
            "volume_size": plan.disk_size_gb,
            "volume_type": "gp3",
            "encrypted": True,
            "delete_on_termination": True,
        },
        "metadata_options": {
            "http_endpoint": "enabled",
            "http_tokens": "required",
            "http_put_response_hop_limit": 2,
        },
        "tags": {"Name": name, **plan.labels},
    }
    if plan.spot:
        inputs["instance_market_options"] = {
            "market_type": "spot",
            "spot_options": {"instance_interruption_behavior": "stop", "spot_instance_type": "persistent"},
        }
    for key in ("key_name", "iam_instance_profile"):
        if s.get(key) is not None:
            inputs[key] = s[key]
    if s.get("security_group_ids"):
        inputs["vpc_security_group_ids"] = list(s["security_group_ids"])
    return inputs
