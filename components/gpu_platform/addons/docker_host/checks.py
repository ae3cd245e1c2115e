"""Single GPU Docker hosts: every check of ``GpuDockerHost``'s arguments, for any cloud.

The machine is a GPU machine of the cloud's catalog, the GPU count one it can attach, the image's driver known,
each Compose service's GPUs among the host's devices (whole GPUs or, with MIG, MIG devices of one profile from
the real MIG tables), and each service's CUDA (declared or read from its image tag) runnable by the host's
driver (CUDA-to-driver table). The plan (``addons.docker_host.plan``) only renders what is checked here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.addons.docker_host.settings import (
    DEFAULT_DISK_SIZE_GB,
    AzureVmHostArgs,
    Ec2HostArgs,
    GceHostArgs,
    GpuDockerHostArgs,
)
from gpu_platform.args.validate import check_arguments
from gpu_platform.catalog.drivers import CUDA_MIN_DRIVER, DriverVersion, min_driver_for_cuda
from gpu_platform.catalog.machines import MachineType
from gpu_platform.catalog.mig import MIG_TABLES, MigProfile
from gpu_platform.cloud_facts import clouds_where, profile_of
from gpu_platform.cloud_facts.profile import CloudProfile, DockerHostImage
from gpu_platform.errors import Problems
from gpu_platform.formats.ports import port_problem
from gpu_platform.mirror import Mirror
from gpu_platform.resolve.mirror import resolve_mirror

SECTION_TYPES: dict[str, Any] = {"gce": GceHostArgs, "ec2": Ec2HostArgs, "azure": AzureVmHostArgs}
"""Each cloud's settings section of ``GpuDockerHostArgs`` (named by its profile's ``docker_host.section``)."""

UNSUPPORTED_ORCHESTRATORS: dict[str, str] = {
    "swarm": (
        "Docker Swarm is not supported: 'docker stack deploy' ignores Compose's "
        "deploy.resources.reservations.devices, so a Swarm service cannot reserve a GPU; Swarm only schedules "
        "'generic_resources' that each node's daemon.json must advertise by hand, with no driver, MIG or "
        "CUDA checks. Use orchestrator 'compose' on one host, or a GPU cluster (GkeCluster, EksCluster, "
        "AksCluster) for several"
    ),
    "mesos": (
        "Apache Mesos is not supported: the project was retired to the Apache Attic, so its GPU isolator "
        "gets no fixes for current drivers or the NVIDIA Container Toolkit. Use orchestrator 'compose' on one "
        "host, or a GPU cluster (GkeCluster, EksCluster, AksCluster) for several"
    ),
}
"""Orchestrators users ask for, and why each is refused."""
ORCHESTRATORS = ("compose",)

RESTART_POLICIES = ("no", "always", "on-failure", "unless-stopped")
"""The Compose specification's ``restart`` values (compose-spec ``spec.md``, "restart")."""
DEFAULT_RESTART = "unless-stopped"
"""Servers come back after a crash or a reboot; a one-shot command sets ``restart: no``."""

SERVICE_NAME = re.compile(r"^[a-zA-Z0-9._-]+$")
"""The Compose specification's service name pattern (``compose-spec.json`` ``services`` patternProperties)."""
_CUDA_IMAGE = re.compile(r"(?:^|/)nvidia/cuda$")
_CUDA_TAG = re.compile(r"^(\d+)\.(\d+)")
_CUDA_IN_TAG = re.compile(r"(?:^|[-_.])cuda(\d+)\.(\d+)")


@dataclass(frozen=True)
class ComposeService:
    """One service of the host's Compose file, with the GPUs it reserves."""

    name: str
    image: str
    count: int | str | None
    """``count`` of the device reservation: a number or ``all``; ``None`` with ``device_ids`` or no GPUs."""
    device_ids: tuple[str, ...] = ()
    cuda_version: str | None = None
    """CUDA of the image (declared or read from its tag), checked against the host's driver."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """``command``, ``environment``, ``ports``, ``volumes``, ``ipc`` as given."""

    @property
    def uses_gpus(self) -> bool:
        return self.count is not None or bool(self.device_ids)

    def compose(self) -> dict[str, Any]:
        out: dict[str, Any] = {"image": self.image, "restart": self.extra.get("restart", DEFAULT_RESTART)}
        for key in ("command", "environment", "ports", "volumes", "ipc"):
            if key in self.extra:
                value = self.extra[key]
                out[key] = dict(value) if isinstance(value, Mapping) else value
                if isinstance(value, (list, tuple)):
                    out[key] = list(value)
        if self.uses_gpus:
            device: dict[str, Any] = {"driver": "nvidia"}
            if self.device_ids:
                device["device_ids"] = list(self.device_ids)
            else:
                device["count"] = self.count
            device["capabilities"] = ["gpu"]
            out["deploy"] = {"resources": {"reservations": {"devices": [device]}}}
        return out


@dataclass(frozen=True)
class DockerHost:
    """A Docker host's checked facts: everything decided before any resource exists."""

    cloud: str
    machine: MachineType
    gpus: int
    """GPUs on the host."""
    host: DockerHostImage
    image: str
    """The image reference the VM boots (``host.image`` unless the user gave one)."""
    driver_version: DriverVersion
    driver_from: str
    """``image`` or ``install`` (cloud-init installs ``versions.UBUNTU_SERVER_DRIVER_BRANCH``)."""
    services: tuple[ComposeService, ...]
    settings: Mapping[str, Any]
    """The cloud's section (``gce``, ``ec2`` or ``azure``) as given; may hold Outputs."""
    disk_size_gb: int = DEFAULT_DISK_SIZE_GB
    public_ip: bool = False
    spot: bool = False
    labels: Mapping[str, str] = field(default_factory=dict)
    own_image: bool = False
    mig: MigProfile | None = None
    """Every GPU split into ``mig.max_instances`` MIG devices of this profile at each boot; ``None``: whole GPUs."""
    mirror: Mirror | None = None
    """Where the Compose services' images come from instead of their registries."""


# --- checks -----------------------------------------------------------------------------------------------


def _valid_machines(profile: CloudProfile) -> str:
    return ", ".join(profile.machines)


def cuda_of_image(image: str) -> str | None:
    """CUDA ``major.minor`` an image's tag states: ``nvidia/cuda:12.8.1-...`` or ``...:2.5.1-cuda12.4-...``."""
    repo, _, tag = image.rpartition(":") if ":" in image.rsplit("/", 1)[-1] else (image, "", "")
    tag = tag.split("@", 1)[0]
    if _CUDA_IMAGE.search(repo) and (m := _CUDA_TAG.match(tag)):
        return f"{m.group(1)}.{m.group(2)}"
    if m := _CUDA_IN_TAG.search(tag):
        return f"{m.group(1)}.{m.group(2)}"
    return None


def _key(cuda: str) -> tuple[int, int]:
    major, minor = cuda.split(".")[:2]
    return int(major), int(minor)


def newest_cuda_for(driver: DriverVersion) -> str | None:
    """The newest CUDA release of the driver table the driver runs (``None``: older than all of them)."""
    ok = [c for c, need in CUDA_MIN_DRIVER.items() if driver >= DriverVersion.parse(need)]
    return max(ok, key=_key) if ok else None


def _table_release(cuda: str) -> str | None:
    """The table's release a CUDA version is held to: itself, else the next newer one (a stated 12.7 needs
    what 12.8 needs); ``None`` when newer than every release in the table."""
    if cuda in CUDA_MIN_DRIVER:
        return cuda
    newer = sorted((c for c in CUDA_MIN_DRIVER if _key(c) >= _key(cuda)), key=_key)
    if newer:
        return newer[0]
    return None


def _check_cuda(
    service: ComposeService, declared: bool, driver: DriverVersion, where: str, p: Problems
) -> None:
    cuda = service.cuda_version
    if cuda is None:
        return
    release = _table_release(cuda)
    newest = newest_cuda_for(driver)
    if release is None:
        p.add(
            ("cuda_version",) if declared else ("image",),
            f"CUDA {cuda} is newer than every release in the driver table ({', '.join(CUDA_MIN_DRIVER)}); "
            f"the host's driver {driver} runs up to CUDA {newest}",
        )
        return
    if _key(cuda) < _key(min(CUDA_MIN_DRIVER, key=_key)):
        return
    need = min_driver_for_cuda(release)
    if driver < need:
        p.add(
            ("cuda_version",) if declared else ("image",),
            f"CUDA {cuda} needs NVIDIA driver >= {need}, but the host runs driver {driver} ({where}), which runs "
            f"up to CUDA {newest}: use an image built for CUDA {newest} or older, or a host image with a newer "
            "driver ({{image}} and {{driver_version}})",
        )


@dataclass(frozen=True)
class HostDevices:
    """What a service can reserve: whole GPUs (``"0"``, ``"1"``) or, with MIG, MIG devices by GPU and MIG index
    (``"0:0"``, ``"0:1"``: the ``<GPU>:<MIG>`` form the MIG user guide uses with ``docker run --gpus``)."""

    ids: tuple[str, ...]
    mig: bool = False

    @property
    def noun(self) -> str:
        return "MIG device(s)" if self.mig else "GPU(s)"


def host_devices(gpus: int, mig_per_gpu: int = 0) -> HostDevices:
    if not mig_per_gpu:
        return HostDevices(tuple(str(g) for g in range(gpus)))
    return HostDevices(tuple(f"{g}:{m}" for g in range(gpus) for m in range(mig_per_gpu)), mig=True)


def _gpu_request(
    raw: Mapping[str, Any], devices: HostDevices, p: Problems
) -> tuple[int | str | None, tuple[str, ...]]:
    gpus = raw.get("gpus")
    ids = raw.get("device_ids")
    total = len(devices.ids)
    if gpus is not None and ids is not None:
        p.add(("device_ids",), "give either {{gpus}} (a count) or {{device_ids}}, not both")
        return None, ()
    if ids is not None:
        ids = [str(i) for i in ids]
        what = "MIG device (<GPU>:<MIG> index)" if devices.mig else "GPU index"
        for i, d in enumerate(ids):
            if d not in devices.ids:
                p.add(
                    ("device_ids", i), f"'{d}' is not a {what} of this host; valid: {', '.join(devices.ids)}"
                )
        if len(set(ids)) != len(ids):
            p.add(("device_ids",), "lists a device twice")
        if not ids:
            p.add(("device_ids",), "is empty; leave it out for no GPUs, or give GPU indexes")
        return None, tuple(ids)
    if gpus is None:
        return "all", ()
    if isinstance(gpus, bool) or not isinstance(gpus, (int, float)) or not math.isfinite(gpus):
        p.add(("gpus",), f"{gpus!r} is not a number of GPUs")
        return None, ()
    if gpus != int(gpus):
        p.add(
            ("gpus",),
            f"{gpus} is a fractional GPU: Docker reserves whole devices (a container sees a GPU or not), so "
            f"give a whole number from 0 to {total}; for a slice with its own memory use {{{{mig_profile}}}} on a "
            "MIG-capable GPU, or give services the same {{device_ids}} to share a GPU without isolation",
        )
        return None, ()
    count = int(gpus)
    if count < 0 or count > total:
        p.add(("gpus",), f"{count} is not between 0 and the host's {total} {devices.noun}")
        return None, ()
    return (count if count else None), ()


def _assign_devices(
    services: list[ComposeService], devices: HostDevices, p: Problems
) -> list[ComposeService]:
    """Counts become disjoint ``device_ids`` when several services use GPUs (with ``count`` each container
    would take the first N GPUs, so two services would land on GPU 0) and always with MIG (Docker's ``count``
    picks whole GPUs, never MIG devices)."""
    gpu_services = [s for s in services if s.uses_gpus]
    if len(gpu_services) < 2 and not devices.mig:
        return services
    taken = {d for s in gpu_services for d in s.device_ids}
    free = [d for d in devices.ids if d not in taken]
    total = len(devices.ids)
    out: list[ComposeService] = []
    for i, s in enumerate(services):
        if s.count == "all" and len(gpu_services) > 1:
            p.at("services", i).add(
                ("gpus",),
                f"several services use GPUs: give '{s.name}' a number of {{{{gpus}}}} or {{{{device_ids}}}} "
                f"(without, it reserves every {devices.noun[:-3]} of the host)",
            )
            out.append(s)
        elif s.count == "all":
            out.append(ComposeService(s.name, s.image, None, devices.ids, s.cuda_version, s.extra))
        elif isinstance(s.count, int):
            if s.count > len(free):
                p.at("services", i).add(
                    ("gpus",),
                    f"{s.count} {devices.noun} asked, but only {len(free)} of the host's {total} are left after "
                    "the services before it and the devices other services name in device_ids",
                )
                out.append(s)
                continue
            ids, free = tuple(free[: s.count]), free[s.count :]
            out.append(ComposeService(s.name, s.image, None, ids, s.cuda_version, s.extra))
        else:
            out.append(s)
    return out


def _services(
    raw: Sequence[Mapping[str, Any]], devices: HostDevices, driver: DriverVersion, where: str, p: Problems
) -> tuple[ComposeService, ...]:
    out: list[ComposeService] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        at = p.at("services", i)
        name = str(item["name"])
        if not SERVICE_NAME.match(name):
            at.add(("name",), f"'{name}' is not a Compose service name ({SERVICE_NAME.pattern})")
        if name in seen:
            at.add(("name",), f"'{name}' is given twice")
        seen.add(name)
        declared = item.get("cuda_version")
        if declared is not None and not re.match(r"^\d+\.\d+$", declared):
            at.add(("cuda_version",), f"{declared!r} is not a CUDA version like '12.8'")
            declared = None
        count, ids = _gpu_request(item, devices, at)
        extra = {
            k: item[k] for k in ("command", "environment", "ports", "volumes", "ipc", "restart") if k in item
        }
        for j, port in enumerate(extra.get("ports", ())):
            if reason := port_problem(port):  # Docker's [IP:][HOST:]CONTAINER[/PROTOCOL]
                at.add(("ports", j), reason)
        if extra.get("restart", DEFAULT_RESTART) not in RESTART_POLICIES:
            at.add(
                ("restart",),
                f"{extra['restart']!r} is not a Compose restart policy; valid: {', '.join(RESTART_POLICIES)}",
            )
            extra.pop("restart")
        svc = ComposeService(
            name, str(item["image"]), count, ids, declared or cuda_of_image(item["image"]), extra
        )
        if svc.uses_gpus:
            _check_cuda(svc, declared is not None, driver, where, at)
        out.append(svc)
    return tuple(_assign_devices(out, devices, p))


def _mig(machine: MachineType, checked: Mapping[str, Any], p: Problems) -> MigProfile | None:
    name = checked.get("mig_profile")
    if name is None:
        return None
    table = MIG_TABLES.get(machine.gpu.mig_table or "")
    if table is None:
        capable = sorted(MIG_TABLES)
        p.add(
            ("mig_profile",),
            f"the {machine.gpu.display} of {machine.name} has no MIG; MIG-capable GPUs: {', '.join(capable)}",
        )
        return None
    uniform = [n for n, prof in table.profiles.items() if "+" not in n]
    if name not in uniform:
        p.add(
            ("mig_profile",),
            f"'{name}' is not a MIG profile of the {table.display}; valid: {', '.join(uniform)}",
        )
        return None
    return table.profiles[name]


def _machine(
    profile: CloudProfile, host: DockerHostImage, checked: Mapping[str, Any], p: Problems
) -> tuple[MachineType | None, int]:
    name = checked["machine_type"]
    machine = profile.machines.get(name)
    if machine is None:
        kind = "a CPU machine type" if profile.cpu_shape(name) else "not a GPU machine type of the catalog"
        p.add(("machine_type",), f"'{name}' is {kind} for {host.service}; valid: {_valid_machines(profile)}")
        return None, 0
    count = checked.get("gpu_count")
    if count is None:
        return machine, machine.gpus
    if not machine.allowed_gpu_counts:
        p.add(("gpu_count",), f"{name} comes with {machine.gpus} GPU(s); leave gpu_count out")
    elif count not in machine.allowed_gpu_counts:
        valid = ", ".join(str(c) for c in machine.allowed_gpu_counts)
        p.add(("gpu_count",), f"{count} GPUs cannot be attached to {name}; valid: {valid}")
    else:
        return machine, count
    return machine, machine.gpus  # the later checks count the machine's GPUs, never a refused number


def _orchestrator(args: Mapping[str, Any], p: Problems) -> None:
    value = args.get("orchestrator", "compose")
    if not isinstance(value, str):
        p.add(("orchestrator",), f"{value!r} is not text; valid: {', '.join(ORCHESTRATORS)}")
        return
    key = value.strip().lower().replace("docker ", "").replace("apache ", "")
    if key in UNSUPPORTED_ORCHESTRATORS:
        p.add(("orchestrator",), UNSUPPORTED_ORCHESTRATORS[key])
    elif key not in ORCHESTRATORS:
        p.add(
            ("orchestrator",),
            f"'{value}' is not an orchestrator of a Docker host; valid: {', '.join(ORCHESTRATORS)}",
        )


def _settings(
    cloud: str, host: DockerHostImage, args: Mapping[str, Any], p: Problems
) -> Mapping[str, Any] | None:
    own = host.section
    for profile in clouds_where(lambda c: c.docker_host is not None):
        key = profile.docker_host.section if profile.docker_host else ""
        if key != own and key in args:
            p.add((key,), f"only for cloud '{profile.name}'; this host is on '{cloud}' (give {{{{{own}}}}})")
    if own not in args:
        p.add((own,), f"required for cloud '{cloud}'")
        return None
    return check_arguments(SECTION_TYPES[own], args[own], p.at(own))


def _image(
    checked: Mapping[str, Any], host: DockerHostImage, p: Problems
) -> tuple[str, DriverVersion | None, str]:
    image, driver = checked.get("image"), checked.get("driver_version")
    if image is None:
        if driver is not None:
            p.add(("driver_version",), f"only with {{{{image}}}}: {host.image} runs driver {host.driver}")
        return host.image, DriverVersion.parse(host.driver), host.driver_from
    if driver is None:
        p.add(
            ("driver_version",),
            "required with {{image}}: the NVIDIA driver on that image, for the CUDA check",
        )
        return image, None, "image"
    try:
        return image, DriverVersion.parse(driver), "image"
    except ValueError as exc:
        p.add(("driver_version",), str(exc))
        return image, None, "image"


EGRESS = ("nat", "public-ip")
"""``egress`` values: the subnet's NAT (or proxy), or a public address on the host."""


def _egress(checked: Mapping[str, Any], p: Problems) -> bool:
    """Whether the host gets a public address; a host with no way out is refused (cloud-init installs from the
    internet at first boot)."""
    egress, public_ip = checked.get("egress"), bool(checked.get("public_ip", False))
    if egress is not None and egress not in EGRESS:
        p.add(("egress",), f"{egress!r} is not an egress; valid: {', '.join(EGRESS)}")
    elif egress == "nat" and public_ip:
        p.add(("egress",), "'nat' and {{public_ip}} true contradict each other; give one")
    elif egress is None and not public_ip:
        p.add(
            ("egress",),
            "is required: cloud-init fetches NVIDIA's key and packages and the images at first boot, and a private "
            "host reaches them only through its subnet's NAT; give 'nat' when the subnet has a NAT gateway, Cloud "
            "NAT or proxy, or 'public-ip' (or {{public_ip}} true)",
        )
    return public_ip or egress == "public-ip"


def resolve_docker_host(args: GpuDockerHostArgs | Mapping[str, Any]) -> DockerHost:
    """Every check of ``GpuDockerHost``'s arguments; ``ArgumentsError`` lists every problem."""
    p = Problems()
    sections = set(SECTION_TYPES)
    raw = dict(args) if isinstance(args, Mapping) else {}
    checked = check_arguments(GpuDockerHostArgs, {k: v for k, v in raw.items() if k not in sections}, p)
    if checked is None:
        p.raise_for_arguments()
    assert checked is not None
    _orchestrator(checked, p)
    cloud = str(checked["cloud"])
    profile = profile_of(cloud)
    host = profile.docker_host
    assert host is not None, f"{cloud} offers no Docker host"
    settings = _settings(cloud, host, raw, p)
    machine, gpus = _machine(profile, host, checked, p)
    image, driver, driver_from = _image(checked, host, p)
    where = f"{host.service} image {image}"
    services: tuple[ComposeService, ...] = ()
    mig = _mig(machine, checked, p) if machine is not None else None
    if machine is not None and driver is not None and (mig is not None or "mig_profile" not in checked):
        devices = host_devices(gpus, mig.max_instances if mig else 0)
        services = _services(checked.get("services", []), devices, driver, where, p)
    if settings is not None and host.input_problems is not None:
        host.input_problems(checked, settings, machine, p)  # the cloud's own rules: IDs, zones, tags, keys
    public_ip = _egress(checked, p)
    mirror = resolve_mirror(checked.get("mirror"), p.at("mirror"))
    disk = checked.get("disk_size_gb", DEFAULT_DISK_SIZE_GB)
    if disk < 50:
        p.add(
            ("disk_size_gb",),
            f"{disk} GB cannot hold a GPU image's driver, CUDA and container images; give 50 or more",
        )
    p.raise_for_arguments()
    assert machine is not None and driver is not None and settings is not None
    return DockerHost(
        cloud=cloud,
        machine=machine,
        gpus=gpus,
        host=host,
        image=image,
        driver_version=driver,
        driver_from=driver_from,
        services=services,
        settings=settings,
        disk_size_gb=disk,
        public_ip=public_ip,
        spot=bool(checked.get("spot", False)),
        labels=dict(checked.get("labels", {})),
        own_image="image" in checked,
        mig=mig,
        mirror=mirror,
    )
