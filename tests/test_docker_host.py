"""GpuDockerHost under the mock engine: each cloud's VM with the plan's cloud-init, nothing registered when
refused, and the example planning offline with documents that validate."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
import yaml

from gpu_platform import GpuDockerHost
from gpu_platform.addons.docker_host.settings import COMPOSE_PATH
from gpu_platform.cli import main
from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import run_program
from tests.conftest import REPO
from tests.support.docker_host import args, cloud_init_schema, compose_schema
from tests.support.json_schema import schema_errors
from tests.support.plans import plan_docker_host


def test_a_refused_host_registers_nothing() -> None:
    with pytest.raises(ArgumentsError):
        run_program(
            lambda: GpuDockerHost("bad", args("gke", services=[{"name": "a", "image": "x:1", "gpus": 1.5}]))
        )


def test_compute_engine_host() -> None:
    plan = run_program(lambda: GpuDockerHost("l4", args("gke")))
    host = plan.one("gpu-platform:index:GpuDockerHost")
    vm = plan.one("gcp:compute/instance:Instance")
    assert vm.name == "l4-instance"
    i = vm.inputs
    assert i["machineType"] == "g2-standard-24" and "guestAccelerators" not in i
    assert i["scheduling"] == {
        "onHostMaintenance": "TERMINATE",
        "provisioningModel": "STANDARD",
        "automaticRestart": True,
    }
    assert i["bootDisk"]["initializeParams"] == {
        "image": "projects/deeplearning-platform-release/global/images/family/common-cu128-ubuntu-2204-nvidia-570",
        "size": 200,
        "type": "pd-balanced",
    }
    assert i["metadata"]["user-data"] == plan_docker_host(args("gke")).user_data
    assert host.name == "l4"


def test_ec2_host_takes_the_ami_from_ssm() -> None:
    plan = run_program(lambda: GpuDockerHost("g6", args("eks")))
    i = plan.one("aws:ec2/instance:Instance").inputs
    assert i["ami"] == "1.33.0-20260101"  # the mock's answer to ssm.getParameter
    assert i["metadataOptions"]["httpTokens"] == "required"
    assert i["rootBlockDevice"] == {
        "volumeSize": 200,
        "volumeType": "gp3",
        "encrypted": True,
        "deleteOnTermination": True,
    }
    assert i["userDataReplaceOnChange"] is True and i["vpcSecurityGroupIds"] == ["sg-0123456789abcdef0"]


def test_azure_vm_gets_cloud_init_as_custom_data() -> None:
    plan = run_program(lambda: GpuDockerHost("a100", args("aks", public_ip=True)))
    vm = plan.one("azure-native:compute:VirtualMachine").inputs
    user_data = base64.b64decode(vm["osProfile"]["customData"]).decode()
    assert user_data == plan_docker_host(args("aks", public_ip=True)).user_data
    assert vm["osProfile"]["linuxConfiguration"]["disablePasswordAuthentication"] is True
    assert vm["storageProfile"]["imageReference"] == {
        "publisher": "Canonical",
        "offer": "ubuntu-24_04-lts",
        "sku": "server",
        "version": "latest",
    }
    assert plan.one("azure-native:network:PublicIPAddress").inputs["sku"] == {"name": "Standard"}


def test_docker_host_example_plans_offline(tmp_path: Path) -> None:
    out = tmp_path / "plan"
    project = REPO / "examples" / "docker-host-l4"
    assert main(["plan", "--project", str(project), "--stack", "example", "--out", str(out), "--policy"]) == 0
    doc = json.loads((out / "plan.json").read_text())
    (vm,) = [r for r in doc["resources"] if r["type"] == "gcp:compute/instance:Instance"]
    assert vm["inputs"]["machineType"] == "g2-standard-8" and vm["inputs"]["zone"] == "us-central1-a"
    user_data = yaml.safe_load(vm["inputs"]["metadata"]["user-data"])
    assert schema_errors(cloud_init_schema(), user_data) == []
    compose = yaml.safe_load(
        next(f["content"] for f in user_data["write_files"] if f["path"] == COMPOSE_PATH)
    )
    assert schema_errors(compose_schema(), compose) == []
    assert compose["services"]["vllm"]["deploy"]["resources"]["reservations"]["devices"] == [
        {"driver": "nvidia", "device_ids": ["0"], "capabilities": ["gpu"]}
    ]
    assert compose["services"]["vllm"]["ipc"] == "host"


def test_the_example_host_has_a_way_out_before_it_boots(tmp_path: Path) -> None:
    """No public address, so the example creates Cloud NAT for the host's region and network, and the VM (whose
    cloud-init installs from the internet at first boot) waits for it; its smoke test runs once."""
    out = tmp_path / "plan"
    project = REPO / "examples" / "docker-host-l4"
    assert main(["plan", "--project", str(project), "--stack", "example", "--out", str(out)]) == 0
    doc = json.loads((out / "plan.json").read_text())
    (nat,) = [r for r in doc["resources"] if r["type"] == "gcp:compute/routerNat:RouterNat"]
    (router,) = [r for r in doc["resources"] if r["type"] == "gcp:compute/router:Router"]
    (vm,) = [r for r in doc["resources"] if r["type"] == "gcp:compute/instance:Instance"]
    assert router["inputs"]["network"] == "default" and nat["inputs"]["region"] == "us-central1"
    assert nat["inputs"]["sourceSubnetworkIpRangesToNat"] == "ALL_SUBNETWORKS_ALL_IP_RANGES"
    assert "accessConfigs" not in vm["inputs"]["networkInterfaces"][0]  # no public address
    host = next(r for r in doc["resources"] if r["type"] == "gpu-platform:index:GpuDockerHost")
    assert nat["urn"] in host.get("dependsOn", host.get("depends_on", []))
    user_data = yaml.safe_load(vm["inputs"]["metadata"]["user-data"])
    compose = yaml.safe_load(
        next(f["content"] for f in user_data["write_files"] if f["path"] == COMPOSE_PATH)
    )
    assert compose["services"]["smoke-test"]["restart"] == "no"
