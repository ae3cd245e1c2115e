"""A ``GpuDockerHost`` on each cloud, as the Docker host tests plan it, and the upstream schemas its
cloud-init and Compose documents are checked against."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jsonschema
import pytest
from jsonschema.protocols import Validator

from gpu_platform.addons.docker_host.plan import DockerHostPlan
from gpu_platform.errors import ArgumentsError
from tests.conftest import upstream
from tests.support import ssh_keys
from tests.support.plans import plan_docker_host

SECTIONS: dict[str, dict[str, Any]] = {
    "gke": {"gce": {"zone": "us-central1-a"}},
    "eks": {"ec2": {"subnet_id": "subnet-0123456789abcdef0", "security_group_ids": ["sg-0123456789abcdef0"]}},
    "aks": {
        "azure": {
            "resource_group_name": "rg",
            "location": "eastus2",
            "subnet_id": "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/gpu",
            "ssh_public_key": ssh_keys.ED25519,
        }
    },
}
MACHINES = {"gke": "g2-standard-24", "eks": "g6.12xlarge", "aks": "Standard_NC48ads_A100_v4"}
"""Two or more GPUs each (L4 x2, L4 x4, A100 x2)."""
SERVICES = [
    {
        "name": "vllm",
        "image": "vllm/vllm-openai:v0.10.1",
        "cuda_version": "12.8",
        "gpus": 1,
        "ports": ["8000:8000"],
    },
    {
        "name": "smoke",
        "image": "nvcr.io/nvidia/cuda:12.8.1-base-ubuntu22.04",
        "gpus": 1,
        "command": ["nvidia-smi"],
    },
]
MIG_HOST = {
    "cloud": "eks",
    "machine_type": "p4d.24xlarge",
    **SECTIONS["eks"],
    "mig_profile": "3g.20gb",
    "egress": "nat",
}
"""An A100 40GB host whose GPUs are split into 3g.20gb MIG devices."""


def args(cloud: str, **extra: Any) -> Any:
    """A host on ``cloud`` running ``SERVICES``, with ``extra`` arguments."""
    egress = {} if "public_ip" in extra or "egress" in extra else {"egress": "nat"}
    return {
        "cloud": cloud,
        "machine_type": MACHINES[cloud],
        **SECTIONS[cloud],
        "services": SERVICES,
        **egress,
        **extra,
    }


def plan_for(cloud: str, **extra: Any) -> DockerHostPlan:
    return plan_docker_host(args(cloud, **extra))


def refused(a: dict[str, Any]) -> str:
    """The message the host's checks refuse ``a`` with."""
    with pytest.raises(ArgumentsError) as err:
        plan_docker_host(a)
    return str(err.value)


@cache
def cloud_init_schema() -> Validator:
    schema = json.loads(upstream("cloud-init", "schema-cloud-config-v1.json").read_text())
    return jsonschema.Draft4Validator(schema)


@cache
def compose_schema() -> Validator:
    schema = json.loads(upstream("compose-spec", "compose-spec.json").read_text())
    return jsonschema.Draft7Validator(schema)
