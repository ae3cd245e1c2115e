"""Single GPU Docker hosts: the Compose file and the cloud-init document of a checked host, for any cloud.

A host is one GPU VM of the machine catalog booted from the cloud's GPU image (the driver on it) or from
Ubuntu with cloud-init installing the driver; cloud-init then installs the NVIDIA Container Toolkit from
NVIDIA's apt repository at ``versions.NVIDIA_CONTAINER_TOOLKIT_APT_VERSION``, runs
``nvidia-ctk runtime configure --runtime=docker`` and restarts Docker (NVIDIA Container Toolkit install
guide), and writes a Compose file whose services reserve GPUs the way Docker documents ("GPU support in
Compose": ``deploy.resources.reservations.devices`` with ``driver: nvidia``, ``count`` or ``device_ids``
and ``capabilities: [gpu]``). A systemd unit runs ``docker compose up`` at every boot.

The checks are in ``addons.docker_host.checks``. Both documents are built as data and dumped with PyYAML; the
tests validate them against cloud-init's and the Compose specification's own JSON schemas. What differs per cloud (the image, its driver, the VM
inputs) is the cloud profile's ``docker_host`` and ``clouds/<cloud>/docker_host.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any

import yaml

from gpu_platform import versions
from gpu_platform.addons.docker_host.checks import DockerHost
from gpu_platform.addons.docker_host.settings import (
    COMPOSE_PATH,
    COMPOSE_UNIT,
    DEFAULT_ADMIN_USERNAME,
    MIG_UNIT,
)
from gpu_platform.catalog.mig import MigProfile
from gpu_platform.mirror import NO_MIRROR

TOOLKIT_KEYRING = "/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg"
TOOLKIT_LIST = "/etc/apt/sources.list.d/nvidia-container-toolkit.list"


_COLON_NUMBER = re.compile(r"^\d+(:\d+)+$")


class _BlockDumper(yaml.SafeDumper):
    """Multi-line strings (files, units) as ``|`` blocks, so the user data reads like the files it writes."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # ``0:1`` is a string in YAML 1.2 (Compose) but ``1:0`` is base-60 in YAML 1.1: quote every such value.
    style = "|" if "\n" in value else ("'" if _COLON_NUMBER.match(value) else None)
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _str)


def dump(doc: Any) -> str:
    return yaml.dump(doc, Dumper=_BlockDumper, sort_keys=False, width=1000)


@dataclass(frozen=True)
class DockerHostPlan(DockerHost):
    """A checked host (``addons.docker_host.checks``) with the documents it boots with."""

    @property
    def compose(self) -> dict[str, Any]:
        """The Compose file: one entry per service, its image from the host's mirror when one is set."""
        services = {s.name: s.compose() for s in self.services}
        for service in services.values():
            service["image"] = (self.mirror or NO_MIRROR).image(service["image"])
        return {"services": services}

    @property
    def compose_yaml(self) -> str:
        return dump(self.compose)

    @property
    def cloud_config(self) -> dict[str, Any]:
        return cloud_config(self)

    @property
    def user_data(self) -> str:
        """The cloud-init user data: ``#cloud-config`` and the document."""
        return "#cloud-config\n" + dump(self.cloud_config)

    @property
    def admin_username(self) -> str:
        return str(self.settings.get("admin_username", DEFAULT_ADMIN_USERNAME))


def docker_host_plan(host: DockerHost) -> DockerHostPlan:
    """The plan of a host ``resolve_docker_host`` checked."""
    return DockerHostPlan(**{f.name: getattr(host, f.name) for f in fields(host)})


# --- cloud-init -------------------------------------------------------------------------------------------

COMPOSE_UNIT_TEXT = f"""\
[Unit]
Description=Compose services of the GPU Docker host ({COMPOSE_PATH})
Requires=docker.service
After=docker.service network-online.target {MIG_UNIT}
Wants=network-online.target

[Service]
Type=oneshot
RemainAfterExit=yes
# Image pulls of CUDA images take minutes.
TimeoutStartSec=0
ExecStart=/usr/bin/docker compose -f {COMPOSE_PATH} up -d --remove-orphans
ExecStop=/usr/bin/docker compose -f {COMPOSE_PATH} down

[Install]
WantedBy=multi-user.target
"""


MIG_SCRIPT = "/usr/local/sbin/gpu-docker-host-mig"


def mig_script(profile: MigProfile) -> str:
    """MIG mode persists across reboots, GPU and compute instances do not: recreate them at every boot,
    before Docker starts any container (MIG user guide, "Getting Started with MIG")."""
    instances = ",".join([profile.name] * profile.max_instances)
    return f"""\
#!/bin/sh
set -eu
nvidia-smi -mig 1
# A pending mode change needs a GPU reset, which no process (nvidia-persistenced included) may hold.
if nvidia-smi --query-gpu=mig.mode.current --format=csv,noheader | grep -q Disabled; then
  systemctl stop nvidia-persistenced.service 2>/dev/null || true
  nvidia-smi --gpu-reset
  systemctl start nvidia-persistenced.service 2>/dev/null || true
fi
nvidia-smi mig -dci 2>/dev/null || true
nvidia-smi mig -dgi 2>/dev/null || true
# {profile.max_instances} x {profile.name} on every GPU: MIG devices <GPU>:0 .. <GPU>:{profile.max_instances - 1}
nvidia-smi mig -cgi {instances} -C
"""


MIG_UNIT_TEXT = f"""\
[Unit]
Description=MIG devices of the GPU Docker host
After=nvidia-persistenced.service
Before=docker.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart={MIG_SCRIPT}

[Install]
WantedBy=multi-user.target
"""


def _pinned_toolkit() -> list[str]:
    return [
        f"{p}={versions.NVIDIA_CONTAINER_TOOLKIT_APT_VERSION}"
        for p in versions.NVIDIA_CONTAINER_TOOLKIT_PACKAGES
    ]


_APT_ENV = "DEBIAN_FRONTEND=noninteractive"


def _write_files(plan: DockerHostPlan) -> list[dict[str, Any]]:
    """The ``write_files`` entries: the toolkit's apt source, then the Compose and MIG files the plan needs."""
    files: list[dict[str, Any]] = [
        {
            "path": TOOLKIT_LIST,
            "content": f"deb [signed-by={TOOLKIT_KEYRING}] {versions.NVIDIA_CONTAINER_TOOLKIT_APT_SOURCE}\n",
            "owner": "root:root",
            "permissions": "0644",
            "defer": True,
        }
    ]
    if plan.services:
        files += [
            {"path": COMPOSE_PATH, "content": plan.compose_yaml, "owner": "root:root", "permissions": "0644"},
            {
                "path": f"/etc/systemd/system/{COMPOSE_UNIT}",
                "content": COMPOSE_UNIT_TEXT,
                "owner": "root:root",
                "permissions": "0644",
            },
        ]
    if plan.mig is not None:
        files += [
            {
                "path": MIG_SCRIPT,
                "content": mig_script(plan.mig),
                "owner": "root:root",
                "permissions": "0755",
            },
            {
                "path": f"/etc/systemd/system/{MIG_UNIT}",
                "content": MIG_UNIT_TEXT,
                "owner": "root:root",
                "permissions": "0644",
            },
        ]
    return files


def _install_commands(plan: DockerHostPlan) -> list[Any]:
    """The ``runcmd`` steps that trust NVIDIA's key, install driver, Docker and the pinned toolkit, and wire them."""
    run: list[Any] = [
        [
            "sh",
            "-c",
            f"curl -fsSL {versions.NVIDIA_CONTAINER_TOOLKIT_GPGKEY_URL} | gpg --batch --yes --dearmor -o {TOOLKIT_KEYRING}",
        ],
        ["apt-get", "update"],
    ]
    if plan.driver_from == "install":
        branch = versions.UBUNTU_SERVER_DRIVER_BRANCH
        run += [
            ["sh", "-c", f"{_APT_ENV} apt-get install -y ubuntu-drivers-common"],
            ["ubuntu-drivers", "install", "--gpgpu", f"nvidia:{branch}-server"],
            ["sh", "-c", f"{_APT_ENV} apt-get install -y nvidia-utils-{branch}-server"],
        ]
    run += [
        # The cloud's GPU images ship Docker; plain Ubuntu gets Ubuntu's own packages.
        [
            "sh",
            "-c",
            f"command -v docker >/dev/null 2>&1 || {_APT_ENV} apt-get install -y docker.io docker-compose-v2",
        ],
        ["sh", "-c", f"{_APT_ENV} apt-get install -y --allow-downgrades " + " ".join(_pinned_toolkit())],
        # Unattended upgrades must not move the toolkit off the pin.
        ["apt-mark", "hold", *versions.NVIDIA_CONTAINER_TOOLKIT_PACKAGES],
        ["nvidia-ctk", "runtime", "configure", "--runtime=docker"],
        ["systemctl", "restart", "docker"],
    ]
    return run


def _unit_commands(plan: DockerHostPlan) -> list[Any]:
    """The ``runcmd`` steps that enable (and, with the image's driver, start) the MIG and Compose units."""
    run: list[Any] = []
    if plan.services or plan.mig is not None:
        run.append(["systemctl", "daemon-reload"])
    if plan.mig is not None:
        run.append(["systemctl", "enable", MIG_UNIT])
        if plan.driver_from == "image":
            run.append(["systemctl", "start", MIG_UNIT])
    if plan.services:
        run.append(["systemctl", "enable", COMPOSE_UNIT])
        if plan.driver_from == "image":
            run.append(["systemctl", "start", "--no-block", COMPOSE_UNIT])
    return run


def cloud_config(plan: DockerHostPlan) -> dict[str, Any]:
    """The cloud-config document: NVIDIA's apt repository, the pinned toolkit, Docker configured for it, the
    Compose file and its unit. Deferred files are written after package installs, before ``runcmd``, so apt
    never sees the repository before its key."""
    run = _install_commands(plan) + _unit_commands(plan)
    doc: dict[str, Any] = {"write_files": _write_files(plan), "runcmd": run}
    if plan.driver_from == "install":
        # The driver's kernel modules load cleanly on the next boot; the Compose unit starts after it.
        doc["power_state"] = {
            "mode": "reboot",
            "message": "rebooting to load the NVIDIA driver",
            "condition": True,
        }
    return doc
