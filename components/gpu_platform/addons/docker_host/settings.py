"""``GpuDockerHost``: one GPU VM running Docker and Compose, the base layer below any cluster.

No ``from __future__ import annotations``: Pulumi's component analyzer needs real annotations.
"""

import enum
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal, NotRequired, TypeAlias

from pulumi import Input
from pydantic import with_config
from typing_extensions import TypedDict

from gpu_platform.args.mirror import MirrorArgs
from gpu_platform.args.validate import ARGS_CONFIG

DEFAULT_DISK_SIZE_GB = 200
"""Boot disk: the Deep Learning images take about 60 GB and CUDA/LLM serving images are 10-20 GB each."""
DEFAULT_ADMIN_USERNAME = "gpuadmin"
"""Azure requires an administrator account; SSH keys only, no password."""
COMPOSE_PATH = "/opt/gpu-docker-host/compose.yaml"
"""Where the Compose file is written on the host."""
COMPOSE_UNIT = "gpu-docker-host-compose.service"
"""systemd unit that runs ``docker compose up`` at every boot, after Docker."""
MIG_UNIT = "gpu-docker-host-mig.service"
"""systemd unit that recreates the MIG devices at every boot, before Docker."""


class HostCloud(enum.StrEnum):
    """Where the host runs: the cloud keys of the stack file, each meaning the cloud's plain VM service."""

    GKE = "gke"
    """Google Cloud: a Compute Engine instance (``pip install 'gpu-platform[gke]'``)."""
    EKS = "eks"
    """AWS: an EC2 instance (``pip install 'gpu-platform[eks]'``)."""
    AKS = "aks"
    """Azure: a Linux virtual machine (``pip install 'gpu-platform[aks]'``)."""


HostCloudName = Literal["gke", "eks", "aks"]
"""``HostCloud``'s values as the strings stack files and the other languages use."""
if TYPE_CHECKING:
    HostCloudValue: TypeAlias = HostCloud | HostCloudName
else:  # Pulumi's analyzer and pydantic read the enum: a schema enum type, values checked
    HostCloudValue = HostCloud


@with_config(ARGS_CONFIG)
class ComposeServiceArgs(TypedDict):
    """One Compose service on the host. Its GPUs become ``deploy.resources.reservations.devices``."""

    name: str
    """Service name in the Compose file (letters, digits, ``.``, ``_``, ``-``)."""
    image: str
    """Container image (``vllm/vllm-openai:v0.11.0``, ``nvcr.io/nvidia/cuda:12.8.1-base-ubuntu22.04``)."""
    cuda_version: NotRequired[str]
    """CUDA ``major.minor`` the image was built for; read from the tag of ``nvidia/cuda`` images when not
    given. Refused when newer than the host's driver supports."""
    gpus: NotRequired[float]
    """Whole GPUs for the service (``count``); default: every GPU of the host (``count: all``) when no
    ``device_ids``. Docker hands out whole devices: fractions are refused."""
    device_ids: NotRequired[Sequence[str]]
    """GPU indexes (``["0", "1"]``), or MIG devices (``["0:0", "0:1"]``) with ``mig_profile``, instead of
    ``gpus``. Services share a device only by naming the same one."""
    command: NotRequired[Sequence[str]]
    """Overrides the image's command."""
    environment: NotRequired[Mapping[str, str]]
    """Environment of the container."""
    ports: NotRequired[Sequence[str]]
    """Published ports (``"8000:8000"``); they listen on every address of the host."""
    volumes: NotRequired[Sequence[str]]
    """Mounts (``"/opt/models:/models"``)."""
    ipc: NotRequired[str]
    """``host`` for PyTorch/NCCL workers that need more shared memory than Docker's 64 MiB."""
    restart: NotRequired[str]
    """Compose restart policy: ``unless-stopped`` (default, for servers), ``no`` for a one-shot command (a smoke
    test, a download) that must not run in a loop, ``on-failure`` or ``always``."""


@with_config(ARGS_CONFIG)
class GceHostArgs(TypedDict):
    """Google Cloud: where the Compute Engine instance goes."""

    zone: str
    """Zone (``us-central1-a``); GPU machine types exist only in some zones of a region."""
    project: NotRequired[Input[str]]
    """Project; default: the provider's."""
    subnetwork: NotRequired[Input[str]]
    """Subnetwork self-link or name; default: the ``default`` network."""
    service_account: NotRequired[Input[str]]
    """Service account email the instance runs as; default: none (no Google API access from the host)."""
    tags: NotRequired[Sequence[str]]
    """Network tags (firewall rules select the host by them)."""


@with_config(ARGS_CONFIG)
class Ec2HostArgs(TypedDict):
    """AWS: where the EC2 instance goes."""

    subnet_id: Input[str]
    """Subnet of the instance (its availability zone must offer the instance type)."""
    security_group_ids: NotRequired[Sequence[Input[str]]]
    """Security groups; default: the VPC's default group."""
    key_name: NotRequired[Input[str]]
    """EC2 key pair for SSH; default: none (use SSM Session Manager)."""
    iam_instance_profile: NotRequired[Input[str]]
    """Instance profile name (e.g. one with ``AmazonSSMManagedInstanceCore``)."""


@with_config(ARGS_CONFIG)
class AzureVmHostArgs(TypedDict):
    """Azure: where the virtual machine goes."""

    resource_group_name: Input[str]
    """Resource group of the VM, its network interface and public IP."""
    location: str
    """Region (``eastus2``); the VM size must be offered there."""
    subnet_id: Input[str]
    """Resource ID of the subnet for the VM's network interface."""
    ssh_public_key: Input[str]
    """OpenSSH public key of ``admin_username`` (password login stays off)."""
    admin_username: NotRequired[str]
    """Default ``DEFAULT_ADMIN_USERNAME``."""


class GpuDockerHostArgs(TypedDict):
    """A GPU VM with the NVIDIA driver, Docker, the NVIDIA Container Toolkit and a Compose file for its GPUs."""

    cloud: HostCloudValue
    """``gke`` (Compute Engine), ``eks`` (EC2) or ``aks`` (Azure VM)."""
    machine_type: str
    """A GPU machine type of the library's catalog (``g2-standard-8``, ``g6.xlarge``,
    ``Standard_NC24ads_A100_v4``)."""
    services: NotRequired[Sequence[ComposeServiceArgs]]
    """Compose services the host runs at boot; default: none (the host is ready for ``docker run --gpus``)."""
    orchestrator: NotRequired[str]
    """``compose`` (the default and only choice; Docker Swarm and Mesos are refused, see docs/docker-hosts.md)."""
    image: NotRequired[str]
    """Own VM image instead of the cloud's GPU image (GCE image, AMI ID, Azure ``publisher:offer:sku:version``);
    needs ``driver_version``, and must be Ubuntu with the driver on it."""
    driver_version: NotRequired[str]
    """The NVIDIA driver of ``image`` (``580.95.05``), for the CUDA check; only with ``image``."""
    mig_profile: NotRequired[str]
    """Split every GPU into MIG devices of this profile (``1g.10gb``: seven on an A100 80GB), recreated at
    each boot; services then reserve MIG devices (``gpus`` counts them, ``device_ids`` are ``"<GPU>:<MIG>"``).
    Only MIG-capable GPUs (A100, A30, H100, H200, B200). Default: whole GPUs."""
    gpu_count: NotRequired[int]
    """GPUs to attach where the machine type takes a choice (Compute Engine N1: 1, 2 or 4)."""
    disk_size_gb: NotRequired[int]
    """Boot disk size; default ``DEFAULT_DISK_SIZE_GB``."""
    public_ip: NotRequired[bool]
    """Give the host a public address (default false: the address output is the private one)."""
    egress: NotRequired[str]
    """How the host reaches the internet, which its cloud-init needs (NVIDIA's apt key and packages, the
    images): ``nat`` when its subnet goes out through a NAT gateway, Cloud NAT or a proxy the platform runs, or
    ``public-ip`` (the same as ``public_ip: true``). Required unless ``public_ip`` is true: a private host on a
    subnet without NAT never gets its toolkit or images."""
    spot: NotRequired[bool]
    """Spot/preemptible capacity (default false): the cloud may stop the host at any time."""
    gce: NotRequired[GceHostArgs]
    """Compute Engine settings; required for ``cloud: gke``."""
    ec2: NotRequired[Ec2HostArgs]
    """EC2 settings; required for ``cloud: eks``."""
    azure: NotRequired[AzureVmHostArgs]
    """Azure VM settings; required for ``cloud: aks``."""
    labels: NotRequired[Mapping[str, str]]
    """Labels (GCE) or tags (EC2, Azure) on the VM."""
    mirror: NotRequired[MirrorArgs]
    """Pull the Compose services' images from an image mirror (``images``; no chart is installed here); NVIDIA's
    apt repository and the VM image are not mirrored. Default: each image's registry."""
