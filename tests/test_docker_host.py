"""GpuDockerHost: the cloud-init and Compose documents validate against their upstream schemas, every refusal
names its key, and each cloud's VM inputs are what its Pulumi SDK accepts."""

from __future__ import annotations

import base64
import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from jsonschema.protocols import Validator

from gpu_platform import GpuDockerHost, versions
from gpu_platform.addons.docker_host.checks import cuda_of_image
from gpu_platform.addons.docker_host.plan import DockerHostPlan
from gpu_platform.addons.docker_host.settings import COMPOSE_PATH, COMPOSE_UNIT
from gpu_platform.cli import main
from gpu_platform.clouds.aks import docker_host_plan as azure
from gpu_platform.clouds.eks import docker_host_plan as ec2
from gpu_platform.clouds.gke import docker_host_plan as gce
from gpu_platform.errors import ArgumentsError
from gpu_platform.offline import run_program
from tests.conftest import REPO, upstream
from tests.support.plans import plan_docker_host

SECTIONS: dict[str, dict[str, Any]] = {
    "gke": {"gce": {"zone": "us-central1-a"}},
    "eks": {"ec2": {"subnet_id": "subnet-0abc", "security_group_ids": ["sg-1"]}},
    "aks": {
        "azure": {
            "resource_group_name": "rg",
            "location": "eastus2",
            "subnet_id": "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/gpu",
            "ssh_public_key": "ssh-ed25519 AAAAC3Nza example",
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


def args(cloud: str, **extra: Any) -> Any:
    return {"cloud": cloud, "machine_type": MACHINES[cloud], **SECTIONS[cloud], "services": SERVICES, **extra}


@cache
def cloud_init_schema() -> Validator:
    schema = json.loads(upstream("cloud-init", "schema-cloud-config-v1.json").read_text())
    return jsonschema.Draft4Validator(schema)


@cache
def compose_schema() -> Validator:
    schema = json.loads(upstream("compose-spec", "compose-spec.json").read_text())
    return jsonschema.Draft7Validator(schema)


def errors(validator: Validator, doc: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]


def refused(a: dict[str, Any]) -> str:
    with pytest.raises(ArgumentsError) as err:
        plan_docker_host(a)
    return str(err.value)


# --- cloud-init ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cloud", ["gke", "eks", "aks"])
def test_user_data_validates_against_cloud_inits_schema(cloud: str) -> None:
    plan = plan_docker_host(args(cloud))
    assert plan.user_data.startswith("#cloud-config\n")
    doc = yaml.safe_load(plan.user_data)
    assert errors(cloud_init_schema(), doc) == []


def test_cloud_init_schema_catches_a_broken_document() -> None:
    doc = yaml.safe_load(plan_docker_host(args("aks")).user_data)
    doc["power_state"]["mode"] = "restart"
    doc["write_files"][0]["defer"] = "yes"
    assert len(errors(cloud_init_schema(), doc)) == 2


def test_toolkit_is_installed_pinned_from_nvidias_repository_then_docker_configured() -> None:
    doc = yaml.safe_load(plan_docker_host(args("gke")).user_data)
    files = {f["path"]: f for f in doc["write_files"]}
    repo = files["/etc/apt/sources.list.d/nvidia-container-toolkit.list"]
    assert repo["content"] == (
        "deb [signed-by=/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg] "
        "https://nvidia.github.io/libnvidia-container/stable/deb/$(ARCH) /\n"
    )
    assert repo["defer"] is True  # written after cloud-init's package stage, before runcmd fetches the key
    run = [" ".join(c) for c in doc["runcmd"]]
    key = next(i for i, c in enumerate(run) if "libnvidia-container/gpgkey" in c)
    install = next(i for i, c in enumerate(run) if "nvidia-container-toolkit=" in c)
    configure = run.index("nvidia-ctk runtime configure --runtime=docker")
    restart = run.index("systemctl restart docker")
    assert key < install < configure < restart
    pins = [w for w in run[install].split() if "=" in w and not w.startswith("DEBIAN")]
    assert pins == [
        f"{p}={versions.NVIDIA_CONTAINER_TOOLKIT_APT_VERSION}"
        for p in versions.NVIDIA_CONTAINER_TOOLKIT_PACKAGES
    ]
    assert versions.NVIDIA_CONTAINER_TOOLKIT_APT_VERSION == "1.20.0-1"
    assert run[install + 1] == "apt-mark hold " + " ".join(versions.NVIDIA_CONTAINER_TOOLKIT_PACKAGES)
    assert "power_state" not in doc  # the image has the driver: no reboot


def test_compose_file_and_boot_unit_are_written() -> None:
    plan = plan_docker_host(args("eks"))
    doc = yaml.safe_load(plan.user_data)
    files = {f["path"]: f["content"] for f in doc["write_files"]}
    assert yaml.safe_load(files[COMPOSE_PATH]) == plan.compose
    unit = files[f"/etc/systemd/system/{COMPOSE_UNIT}"]
    assert f"ExecStart=/usr/bin/docker compose -f {COMPOSE_PATH} up -d" in unit
    assert "After=docker.service" in unit and "WantedBy=multi-user.target" in unit
    assert ["systemctl", "enable", COMPOSE_UNIT] in doc["runcmd"]


def test_azure_installs_the_signed_server_driver_and_reboots() -> None:
    plan = plan_docker_host(args("aks"))
    doc = yaml.safe_load(plan.user_data)
    branch = versions.UBUNTU_SERVER_DRIVER_BRANCH
    assert ["ubuntu-drivers", "install", "--gpgpu", f"nvidia:{branch}-server"] in doc["runcmd"]
    assert doc["power_state"]["mode"] == "reboot"
    # The unit starts after the reboot, when the driver is loaded; not before it.
    assert ["systemctl", "start", "--no-block", COMPOSE_UNIT] not in doc["runcmd"]
    assert plan.driver_from == "install" and str(plan.driver_version) == "580.65.06"


# --- Compose --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cloud", ["gke", "eks", "aks"])
def test_compose_validates_against_the_compose_spec(cloud: str) -> None:
    plan = plan_docker_host(args(cloud))
    assert errors(compose_schema(), yaml.safe_load(plan.compose_yaml)) == []


def test_compose_schema_catches_a_device_without_capabilities() -> None:
    doc = plan_docker_host(args("gke")).compose
    del doc["services"]["vllm"]["deploy"]["resources"]["reservations"]["devices"][0]["capabilities"]
    assert errors(compose_schema(), doc)


def test_several_gpu_services_get_disjoint_devices() -> None:
    plan = plan_docker_host(args("eks"))
    devices = {
        name: svc["deploy"]["resources"]["reservations"]["devices"]
        for name, svc in plan.compose["services"].items()
    }
    assert devices == {
        "vllm": [{"driver": "nvidia", "device_ids": ["0"], "capabilities": ["gpu"]}],
        "smoke": [{"driver": "nvidia", "device_ids": ["1"], "capabilities": ["gpu"]}],
    }


def test_one_service_takes_a_count_or_all_gpus() -> None:
    one = plan_docker_host(args("gke", services=[{"name": "a", "image": "x:1", "gpus": 2}]))
    assert one.compose["services"]["a"]["deploy"]["resources"]["reservations"]["devices"] == [
        {"driver": "nvidia", "count": 2, "capabilities": ["gpu"]}
    ]
    every = plan_docker_host(args("gke", services=[{"name": "a", "image": "x:1"}]))
    assert (
        every.compose["services"]["a"]["deploy"]["resources"]["reservations"]["devices"][0]["count"] == "all"
    )
    none = plan_docker_host(args("gke", services=[{"name": "db", "image": "redis:7", "gpus": 0}]))
    assert "deploy" not in none.compose["services"]["db"]
    for plan in (one, every, none):
        assert errors(compose_schema(), plan.compose) == []


def test_cuda_is_read_from_the_tag_of_cuda_images() -> None:
    assert cuda_of_image("nvcr.io/nvidia/cuda:12.8.1-base-ubuntu22.04") == "12.8"
    assert cuda_of_image("nvidia/cuda:13.0.0-runtime-ubuntu24.04") == "13.0"
    assert cuda_of_image("pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime") == "12.4"
    assert cuda_of_image("vllm/vllm-openai:v0.10.1") is None
    assert cuda_of_image("localhost:5000/nvidia/cuda") is None


# --- refusals --------------------------------------------------------------------------------------------


def test_fractional_gpus_are_refused() -> None:
    msg = refused(args("gke", services=[{"name": "a", "image": "x:1", "gpus": 0.5}]))
    assert "services[0].gpus: 0.5 is a fractional GPU" in msg and "whole devices" in msg


def test_cuda_image_newer_than_the_driver_is_refused_naming_both_versions() -> None:
    # The Deep Learning VM image runs driver branch 570 (CUDA <= 12.8).
    msg = refused(
        args("gke", services=[{"name": "a", "image": "nvidia/cuda:13.0.0-base-ubuntu24.04", "gpus": 1}])
    )
    assert "services[0].image: CUDA 13.0 needs NVIDIA driver >= 580.65.06" in msg
    assert "runs driver 570.26" in msg and "up to CUDA 12.8" in msg
    declared = refused(args("gke", services=[{"name": "a", "image": "vllm/x:1", "cuda_version": "12.9"}]))
    assert "services[0].cuda_version: CUDA 12.9 needs NVIDIA driver >= 575.51.03" in declared
    own = refused(args("eks", image="ami-0123", driver_version="550.144.03"))
    assert "CUDA 12.8 needs NVIDIA driver >= 570.26, but the host runs driver 550.144.03" in own


def test_cuda_on_a_new_enough_driver_passes() -> None:
    plan = plan_docker_host(
        args("eks", services=[{"name": "a", "image": "nvidia/cuda:13.2.0-base-ubuntu24.04"}])
    )
    assert plan.services[0].cuda_version == "13.2" and str(plan.driver_version) == "595.91.07"


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("swarm", "'docker stack deploy' ignores Compose's deploy.resources.reservations.devices"),
        ("Docker Swarm", "'docker stack deploy' ignores"),
        ("mesos", "retired to the Apache Attic"),
    ],
)
def test_swarm_and_mesos_are_refused_with_why(value: str, why: str) -> None:
    msg = refused(args("gke", orchestrator=value))
    assert "orchestrator: " in msg and "not supported" in msg and why in msg


def test_unknown_orchestrator_lists_the_choice() -> None:
    assert "orchestrator: 'nomad' is not an orchestrator of a Docker host; valid: compose" in refused(
        args("gke", orchestrator="nomad")
    )


def test_non_gpu_machine_types_are_refused_with_the_valid_choices() -> None:
    msg = refused(args("gke", machine_type="n2-standard-8"))
    assert (
        "machine_type: 'n2-standard-8' is a CPU machine type for Compute Engine; valid: g2-standard-4" in msg
    )
    msg = refused(args("eks", machine_type="m7i.large"))
    assert "machine_type: 'm7i.large'" in msg and "g6.xlarge" in msg and "p5.48xlarge" in msg


def test_gpu_requests_beyond_the_host_are_refused() -> None:
    msg = refused(args("gke", services=[{"name": "a", "image": "x:1", "gpus": 3}]))
    assert "services[0].gpus: 3 is not between 0 and the host's 2 GPU(s)" in msg
    msg = refused(args("gke", services=[{"name": "a", "image": "x:1", "device_ids": ["0", "2"]}]))
    assert "services[0].device_ids[1]: '2' is not a GPU index of this host; valid: 0, 1" in msg
    msg = refused(args("gke", services=[{"name": "a", "image": "x:1", "gpus": 1, "device_ids": ["0"]}]))
    assert "services[0].device_ids: give either gpus (a count) or device_ids, not both" in msg
    many = [{"name": n, "image": "x:1", "gpus": 2} for n in ("a", "b")]
    assert "services[1].gpus: 2 GPU(s) asked, but only 0 of the host's 2 are left" in refused(
        args("gke", services=many)
    )
    both_all = [{"name": n, "image": "x:1"} for n in ("a", "b")]
    assert "services[0].gpus: several services use GPUs" in refused(args("gke", services=both_all))


def test_settings_and_images_are_checked_together() -> None:
    a = args("gke")
    a["ec2"] = SECTIONS["eks"]["ec2"]
    del a["gce"]
    msg = refused(a)
    assert "ec2: only for cloud 'eks'; this host is on 'gke' (give gce)" in msg
    assert "gce: required for cloud 'gke'" in msg
    assert "driver_version: required with image" in refused(args("eks", image="ami-0123"))
    assert "gpu_count: 3 GPUs cannot be attached to n1-standard-8; valid: 1, 2, 4" in refused(
        args("gke", machine_type="n1-standard-8", gpu_count=3)
    )


def test_a_refused_host_registers_nothing() -> None:
    with pytest.raises(ArgumentsError):
        run_program(
            lambda: GpuDockerHost("bad", args("gke", services=[{"name": "a", "image": "x:1", "gpus": 1.5}]))
        )


# --- SDK inputs -----------------------------------------------------------------------------------------


def plan_for(cloud: str, **extra: Any) -> DockerHostPlan:
    return plan_docker_host(args(cloud, **extra))


def test_compute_engine_inputs_match_pulumi_gcp() -> None:
    import pulumi_gcp.compute as compute

    from tests.support.sdk_inputs import sdk_input_problems

    for extra in ({}, {"spot": True, "public_ip": True}, {"machine_type": "n1-standard-8", "gpu_count": 2}):
        inputs = gce.instance_inputs(plan_for("gke", **extra))
        assert sdk_input_problems(compute.Instance, inputs) == []
    assert sdk_input_problems(compute.Instance, {"machine_typ": "x", "scheduling": {"on_host_maintenanc": 1}})


def test_ec2_inputs_match_pulumi_aws() -> None:
    import pulumi_aws.ec2 as aws_ec2

    from tests.support.sdk_inputs import sdk_input_problems

    for extra in ({}, {"spot": True, "public_ip": True}):
        inputs = ec2.instance_inputs(plan_for("eks", **extra), "host", "ami-0123")
        assert sdk_input_problems(aws_ec2.Instance, inputs) == []


def test_azure_inputs_match_azure_native() -> None:
    import pulumi_azure_native.compute as compute
    import pulumi_azure_native.network as network

    from tests.support.sdk_inputs import sdk_input_problems

    for extra in ({}, {"spot": True, "public_ip": True}):
        plan = plan_for("aks", **extra)
        assert sdk_input_problems(network.PublicIPAddress, azure.public_ip_inputs(plan)) == []
        assert sdk_input_problems(network.NetworkInterface, azure.nic_inputs(plan, "/ip")) == []
        assert sdk_input_problems(compute.VirtualMachine, azure.vm_inputs(plan, "host", "/nic")) == []


# --- the component under the mock engine ------------------------------------------------------------------


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
    assert i["userDataReplaceOnChange"] is True and i["vpcSecurityGroupIds"] == ["sg-1"]


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


# --- MIG ------------------------------------------------------------------------------------------------

MIG_HOST = {"cloud": "eks", "machine_type": "p4d.24xlarge", **SECTIONS["eks"], "mig_profile": "3g.20gb"}


def test_mig_services_get_gpu_colon_mig_device_ids() -> None:
    services = [
        {"name": "a", "image": "nvidia/cuda:12.8.1-base-ubuntu22.04", "gpus": 3},
        {"name": "b", "image": "x:1", "device_ids": ["7:1"]},
    ]
    plan = plan_docker_host({**MIG_HOST, "services": services})
    devices = {
        n: s["deploy"]["resources"]["reservations"]["devices"][0] for n, s in plan.compose["services"].items()
    }
    # 3g.20gb: two per A100 40GB, so MIG devices 0:0, 0:1, 1:0, ... 7:1; counts never become Docker's count.
    assert devices["a"] == {"driver": "nvidia", "device_ids": ["0:0", "0:1", "1:0"], "capabilities": ["gpu"]}
    assert devices["b"]["device_ids"] == ["7:1"]
    assert "- '1:0'" in plan.compose_yaml  # quoted: YAML 1.1 would read 1:0 as the base-60 number 60
    assert errors(compose_schema(), yaml.safe_load(plan.compose_yaml)) == []
    assert yaml.safe_load(plan.compose_yaml) == plan.compose


def test_mig_devices_are_created_at_every_boot_before_docker() -> None:
    plan = plan_docker_host({**MIG_HOST, "services": [{"name": "a", "image": "x:1"}]})
    doc = yaml.safe_load(plan.user_data)
    assert errors(cloud_init_schema(), doc) == []
    files = {f["path"]: f["content"] for f in doc["write_files"]}
    script = files["/usr/local/sbin/gpu-docker-host-mig"]
    assert "nvidia-smi -mig 1" in script and "nvidia-smi mig -cgi 3g.20gb,3g.20gb -C" in script
    unit = files["/etc/systemd/system/gpu-docker-host-mig.service"]
    assert "Before=docker.service" in unit and "WantedBy=multi-user.target" in unit
    assert "gpu-docker-host-mig.service" in files[f"/etc/systemd/system/{COMPOSE_UNIT}"].split("[Service]")[0]
    run = doc["runcmd"]
    assert run.index(["systemctl", "start", "gpu-docker-host-mig.service"]) < run.index(
        ["systemctl", "start", "--no-block", COMPOSE_UNIT]
    )
    one = plan.compose["services"]["a"]["deploy"]["resources"]["reservations"]["devices"][0]
    assert one["device_ids"] == [f"{g}:{m}" for g in range(8) for m in range(2)]


def test_mig_is_refused_where_the_gpu_has_none_or_the_profile_is_unknown() -> None:
    msg = refused(args("gke", machine_type="g2-standard-24", mig_profile="1g.10gb"))
    assert (
        "mig_profile: the L4 24GB of g2-standard-24 has no MIG; MIG-capable GPUs: a100-40gb, a100-80gb" in msg
    )
    msg = refused({**MIG_HOST, "mig_profile": "1g.12gb"})
    assert (
        "mig_profile: '1g.12gb' is not a MIG profile of the A100 40GB; valid: 1g.5gb, 1g.10gb, 2g.10gb" in msg
    )
    msg = refused({**MIG_HOST, "services": [{"name": "a", "image": "x:1", "device_ids": ["0"]}]})
    assert (
        "services[0].device_ids[0]: '0' is not a MIG device (<GPU>:<MIG> index) of this host; valid: 0:0"
        in msg
    )


# --- the example ------------------------------------------------------------------------------------------


def test_docker_host_example_plans_offline(tmp_path: Path) -> None:
    out = tmp_path / "plan"
    project = REPO / "examples" / "docker-host-l4"
    assert main(["plan", "--project", str(project), "--stack", "example", "--out", str(out), "--policy"]) == 0
    doc = json.loads((out / "plan.json").read_text())
    (vm,) = [r for r in doc["resources"] if r["type"] == "gcp:compute/instance:Instance"]
    assert vm["inputs"]["machineType"] == "g2-standard-8" and vm["inputs"]["zone"] == "us-central1-a"
    user_data = yaml.safe_load(vm["inputs"]["metadata"]["user-data"])
    assert errors(cloud_init_schema(), user_data) == []
    compose = yaml.safe_load(
        next(f["content"] for f in user_data["write_files"] if f["path"] == COMPOSE_PATH)
    )
    assert errors(compose_schema(), compose) == []
    assert compose["services"]["vllm"]["deploy"]["resources"]["reservations"]["devices"] == [
        {"driver": "nvidia", "device_ids": ["0"], "capabilities": ["gpu"]}
    ]
    assert compose["services"]["vllm"]["ipc"] == "host"
