"""The Docker host's plan: the cloud-init and Compose documents validate against their upstream schemas, the
toolkit and driver are installed as NVIDIA documents, GPUs and MIG devices are handed to the services."""

from __future__ import annotations

import pytest
import yaml

from gpu_platform import versions
from gpu_platform.addons.docker_host.settings import COMPOSE_PATH, COMPOSE_UNIT
from tests.support.docker_host import MIG_HOST, SERVICES, args, cloud_init_schema, compose_schema
from tests.support.json_schema import schema_errors
from tests.support.plans import plan_docker_host

# --- cloud-init ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cloud", ["gke", "eks", "aks"])
def test_user_data_validates_against_cloud_inits_schema(cloud: str) -> None:
    plan = plan_docker_host(args(cloud))
    assert plan.user_data.startswith("#cloud-config\n")
    doc = yaml.safe_load(plan.user_data)
    assert schema_errors(cloud_init_schema(), doc) == []


def test_cloud_init_schema_catches_a_broken_document() -> None:
    doc = yaml.safe_load(plan_docker_host(args("aks")).user_data)
    doc["power_state"]["mode"] = "restart"
    doc["write_files"][0]["defer"] = "yes"
    assert len(schema_errors(cloud_init_schema(), doc)) == 2


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
    assert schema_errors(compose_schema(), yaml.safe_load(plan.compose_yaml)) == []


def test_compose_schema_catches_a_device_without_capabilities() -> None:
    doc = plan_docker_host(args("gke")).compose
    del doc["services"]["vllm"]["deploy"]["resources"]["reservations"]["devices"][0]["capabilities"]
    assert schema_errors(compose_schema(), doc)


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
        assert schema_errors(compose_schema(), plan.compose) == []


# --- MIG ------------------------------------------------------------------------------------------------


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
    assert schema_errors(compose_schema(), yaml.safe_load(plan.compose_yaml)) == []
    assert yaml.safe_load(plan.compose_yaml) == plan.compose


def test_mig_devices_are_created_at_every_boot_before_docker() -> None:
    plan = plan_docker_host({**MIG_HOST, "services": [{"name": "a", "image": "x:1"}]})
    doc = yaml.safe_load(plan.user_data)
    assert schema_errors(cloud_init_schema(), doc) == []
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


def test_a_one_shot_service_does_not_restart_in_a_loop() -> None:
    """Servers restart unless stopped; a one-shot command (``restart: no``) runs once per boot, and the
    Compose file says ``"no"`` as a string (a bare YAML ``no`` would be a boolean Compose refuses)."""
    services = [{**SERVICES[0]}, {**SERVICES[1], "restart": "no"}]
    plan = plan_docker_host(args("gke", services=services))
    assert plan.compose["services"]["vllm"]["restart"] == "unless-stopped"
    assert yaml.safe_load(plan.compose_yaml)["services"]["smoke"]["restart"] == "no"
    assert schema_errors(compose_schema(), yaml.safe_load(plan.compose_yaml)) == []
