"""The ``slurm`` section resolved over the pools, and every check of Slurm on Kubernetes written once.

Slurm owns its pools outright, as a Kueue ClusterQueue or a Volcano team owns its own: slurmd holds every GPU
of each node it runs on, so a GPU Kueue or Volcano promised there would never be free. A pool is Slurm's, or
Kueue's and Volcano's to share out, never both (``addons.kueue.checks.without_exclusive``).

What Slurm cannot run is refused here, with the reason: GRES are found by ``gres.conf`` ``AutoDetect=nvidia``,
which reads the driver's device files (no NVML) and finds whole GPUs only; Slurm detects MIG instances through
NVML alone (``AutoDetect=nvml``), and the Slinky images are built without it (the ``slurm-smd`` Debian
packages build-depend on no NVML). Time-slicing and MPS replicas are a Kubernetes device-plugin notion Slurm
never sees (it would count the physical GPUs and drain the node over the mismatch); DRA pools hand GPUs out
by ResourceClaim, and a NodeSet asks for them as the device plugin's extended resource.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.addons.requirement import exclusive_pools
from gpu_platform.addons.slurm import settings as a
from gpu_platform.addons.workloads.checks import node_selector_problems
from gpu_platform.args.validate import check_arguments
from gpu_platform.errors import Problems
from gpu_platform.formats.hosts import host_problem
from gpu_platform.formats.secret import is_stand_in
from gpu_platform.formats.ssh import parse_public_key
from gpu_platform.mirror import Mirror
from gpu_platform.pools import GpuPool
from gpu_platform.releases import SLURM, scheduling_namespaces
from gpu_platform.resolve.cluster_pools import resolve_cluster_pools
from gpu_platform.resolve.kubernetes import DNS_LABEL, RESERVED_NAMESPACES, is_dns_subdomain
from gpu_platform.resolve.mirror import resolve_mirror
from gpu_platform.resolve.pools import ResolvedPools, check_cuda_default, valid_pools

SECRET_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")
"""A Secret data key (Kubernetes ``IsConfigMapKey``)."""
MAX_LOGIN_REPLICAS = 16

MIG_REASON = (
    "is a MIG pool: Slurm finds GPUs with gres.conf AutoDetect=nvidia, which sees whole GPUs only; Slurm "
    "detects MIG instances through NVML (AutoDetect=nvml), and the Slinky slurmd images are built without "
    "NVML, so each MIG instance would be missing from Slurm's GRES and the node would drain. Give Slurm a "
    "pool with sharing mode 'none' and keep MIG pools for Kueue or Volcano"
)
SHARED_REASON = (
    "shares its GPUs with {mode}: replicas are the Kubernetes device plugin's, Slurm counts the physical "
    "GPUs and would drain the node over the mismatch. Give Slurm a pool with sharing mode 'none' (Slurm "
    "shares GPUs itself, with gres/shard)"
)
DRA_REASON = (
    "allocates its GPUs with DRA: a Slinky NodeSet asks for the device plugin's nvidia.com/gpu, which DRA "
    "nodes do not advertise. Give Slurm a device-plugin pool"
)


@dataclass(frozen=True)
class SlurmLogin:
    """The login set, every default applied."""

    enabled: bool = True
    replicas: int = a.DEFAULT_LOGIN_REPLICAS
    service_type: str = a.LoginServiceType.CLUSTER_IP.value
    root_ssh_authorized_keys: str | None = None
    privileged: bool = False


@dataclass(frozen=True)
class SlurmDatabase:
    """The database slurmdbd writes to; the password stays in the user's Secret."""

    host: str
    password_secret: str
    password_key: str
    port: int = a.DEFAULT_DATABASE_PORT
    database: str = a.DEFAULT_DATABASE_NAME
    username: str = a.DEFAULT_DATABASE_USER


@dataclass(frozen=True)
class SlurmSpec:
    """Slurm over the pools it owns, every default applied."""

    pools: tuple[GpuPool, ...]
    """Slurm's pools, in the order given: one NodeSet and one partition each."""
    namespace: str = a.DEFAULT_SLURM_NAMESPACE
    install_cert_manager: bool = True
    login: SlurmLogin = field(default_factory=SlurmLogin)
    database: SlurmDatabase | None = None
    """Accounting's database; ``None``: accounting off."""
    storage_class: str | None = None
    storage_gib: int = a.DEFAULT_CONTROLLER_STORAGE_GIB
    values: Mapping[str, Any] = field(default_factory=dict)
    node_selector: Mapping[str, str] | None = None
    """Where the operator, slurmctld, slurmrestd and login pods run when the component is given one; the
    stack places them with the other controllers instead."""
    mirror: Mirror | None = None
    """Where the component's charts and images come from instead of upstream (the stack passes its own)."""

    @property
    def pool_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.pools)


GPUDIRECT_REASON = (
    "has GKE GPUDirect ({{gpu_pools[].gpudirect}}): its GPU NICs reach a pod only through the pod's "
    "networking.gke.io interfaces and the TCPXO/gIB components, which slurmd pods are not given, so Slurm jobs "
    "would run NCCL over the host network alone. Give Slurm a pool without gpudirect, or keep GPUDirect pools "
    "for Kueue"
)
"""GKE's GPU NICs are per pod (multi-networking), not a device slurmd can hold for its steps like EFA or IB."""


def slurm_pool_names(raw: Mapping[str, Any]) -> list[str]:
    """The pools an enabled ``slurm`` section claims, unchecked (so Kueue and Volcano never count them even
    when the section has problems of its own)."""
    return exclusive_pools({"slurm": raw})


def _claims(section: Mapping[str, Any] | None, key: str) -> dict[str, tuple[int, str]]:
    """Pool -> (index, name) of the first Kueue ClusterQueue / Volcano team that lists it explicitly."""
    out: dict[str, tuple[int, str]] = {}
    entries: Sequence[Any] = (section.get(key) or ()) if section is not None else ()
    for i, entry in enumerate(entries):
        for name in entry.get("pools") or ():
            out.setdefault(name, (i, entry.get("name", "")))
    return out


def _pool_problems(
    names: Sequence[str],
    pools: ResolvedPools,
    kueue: Mapping[str, Any] | None,
    volcano: Mapping[str, Any] | None,
    p: Problems,
) -> list[GpuPool]:
    by_name = pools.by_name()
    valid = valid_pools(by_name)
    queues = _claims(kueue, "cluster_queues")
    teams = _claims(volcano, "teams")
    mine: list[GpuPool] = []
    seen: set[str] = set()
    for j, name in enumerate(names):
        here = p.at("pools", j)
        if name in seen:
            here.add((), f"'{name}' is listed twice")
            continue
        seen.add(name)
        pool = by_name.get(name)
        if pool is None:
            if name not in pools.broken:
                here.add((), f"'{name}' is not a GPU pool; {valid}")
            continue
        if pool.dra:
            here.add((), f"pool '{name}' {DRA_REASON}")
        elif pool.sharing.mode == "mig":
            here.add((), f"pool '{name}' {MIG_REASON}")
        elif pool.sharing.mode != "none":
            here.add((), f"pool '{name}' {SHARED_REASON.format(mode=pool.sharing.mode)}")
        if pool.gpudirect is not None:
            here.add((), f"pool '{name}' {GPUDIRECT_REASON}")
        if name in queues:
            i, queue = queues[name]
            here.add(
                (),
                f"pool '{name}' is also the quota of Kueue ClusterQueue '{queue}' (kueue.clusterQueues[{i}].pools); "
                "slurmd holds every GPU of a Slurm node, so a pool belongs to Slurm or to Kueue, never both: "
                "remove it from one of them",
            )
        if name in teams:
            i, team = teams[name]
            here.add(
                (),
                f"pool '{name}' is also the deserved share of Volcano team '{team}' (volcano.teams[{i}].pools); "
                "slurmd holds every GPU of a Slurm node, so a pool belongs to Slurm or to Volcano, never both: "
                "remove it from one of them",
            )
        mine.append(pool)
    return mine


def _namespace_problems(
    namespace: str, kueue: Mapping[str, Any] | None, volcano: Mapping[str, Any] | None, p: Problems
) -> None:
    if not DNS_LABEL.match(namespace):
        p.add(("namespace",), f"'{namespace}' is not a valid namespace name (DNS label)")
        return
    owner = RESERVED_NAMESPACES.get(namespace) or scheduling_namespaces().get(namespace)
    if owner is not None and namespace != SLURM.namespace:
        p.add(("namespace",), f"'{namespace}' is {owner}, never the Slurm cluster's")
    for scheduler, section in (("Kueue", kueue), ("Volcano", volcano)):
        for i, team in enumerate((section or {}).get("teams") or ()):
            if team.get("namespace", team.get("name")) == namespace:
                p.add(
                    ("namespace",),
                    f"namespace '{namespace}' is the namespace of {scheduler} team '{team.get('name')}' "
                    f"({scheduler.lower()}.teams[{i}]); slurmd pods are no {scheduler} workloads: give Slurm its "
                    "own namespace",
                )
                return


def _login(raw: Mapping[str, Any], p: Problems) -> SlurmLogin:
    replicas = raw.get("replicas", a.DEFAULT_LOGIN_REPLICAS)
    if not 1 <= replicas <= MAX_LOGIN_REPLICAS:
        p.add(("replicas",), f"{replicas} is out of range; must be between 1 and {MAX_LOGIN_REPLICAS}")
    keys = raw.get("root_ssh_authorized_keys")
    if keys is not None and not is_stand_in(keys):  # a secret's keys are checked when pulumi up reads them
        lines = [
            line.strip() for line in keys.splitlines() if line.strip() and not line.lstrip().startswith("#")
        ]
        if not lines:
            p.add(("root_ssh_authorized_keys",), "holds no key; give OpenSSH public keys, one a line")
        for n, line in enumerate(lines, 1):
            # sshd(8) "AUTHORIZED_KEYS FILE FORMAT": [options] keytype base64-key [comment]
            if isinstance(key := parse_public_key(line, options=True), str):
                p.add(
                    ("root_ssh_authorized_keys",),
                    f"line {n} is not an authorized_keys line ('[options] ssh-ed25519 AAAA... comment'): {key}",
                )
    service = raw.get("service_type", a.LoginServiceType.CLUSTER_IP)
    return SlurmLogin(
        enabled=raw.get("enabled", True),
        replicas=replicas,
        service_type=a.LoginServiceType(service).value,
        root_ssh_authorized_keys=keys,
        privileged=raw.get("privileged", False),
    )


def _database(raw: Mapping[str, Any], p: Problems) -> SlurmDatabase | None:
    enabled = raw.get("enabled", False)
    db = raw.get("database")
    if not enabled:
        if db is not None:
            p.add(("database",), "{{slurm.accounting.enabled}} is false")
        return None
    if db is None:
        p.add(
            ("database",),
            "required with accounting: a MySQL/MariaDB database slurmdbd writes to (host and a Secret holding "
            "the password); Slinky runs no database itself",
        )
        return None
    before = p.count()
    host = db["host"].strip()
    if not is_stand_in(host) and (
        reason := host_problem(host, "{{port}}", "{{password_secret}}")
    ):  # the database's sibling settings
        p.add(("database", "host"), reason)
    port = db.get("port", a.DEFAULT_DATABASE_PORT)
    if not 1 <= port <= 65535:
        p.add(("database", "port"), f"{port} is out of range; must be between 1 and 65535")
    secret = db["password_secret"]
    if not is_dns_subdomain(secret["name"]):
        p.add(("database", "password_secret", "name"), f"'{secret['name']}' is not a valid Secret name")
    if not SECRET_KEY.match(secret["key"]):
        p.add(("database", "password_secret", "key"), f"'{secret['key']}' is not a valid Secret key")
    for key in ("database", "username"):
        if key in db and not db[key].strip():
            p.add(("database", key), "must not be empty")
    if p.count() != before:
        return None
    return SlurmDatabase(
        host=host,
        password_secret=secret["name"],
        password_key=secret["key"],
        port=port,
        database=db.get("database", a.DEFAULT_DATABASE_NAME),
        username=db.get("username", a.DEFAULT_DATABASE_USER),
    )


def resolve_slurm(
    raw: Mapping[str, Any],
    pools: ResolvedPools,
    p: Problems,
    kueue: Mapping[str, Any] | None = None,
    volcano: Mapping[str, Any] | None = None,
    services: Sequence[Mapping[str, Any]] = (),
    services_at: Problems | None = None,
) -> SlurmSpec | None:
    """The ``slurm`` settings over the resolved pools (``p`` is at them). ``kueue`` and ``volcano`` are the raw
    sections of the schedulers the stack installs too, ``services`` the raw KServe services (at ``services_at``):
    none of them may use a Slurm pool."""
    before = p.count()
    names = list(raw.get("pools") or ())
    if not names:
        valid = valid_pools(pl.name for pl in pools.pools)
        p.add(("pools",), f"required: the GPU pools Slurm owns (at least one); {valid}")
    mine = _pool_problems(names, pools, kueue, volcano, p)
    if kueue is not None and names and not kueue.get("cluster_queues"):
        rest = [pl.name for pl in pools.pools if pl.name not in names]
        if not rest and not (set(names) & pools.broken):
            p.add(
                ("pools",),
                "every GPU pool is Slurm's, so Kueue would have no GPU quota: keep a pool for Kueue or set "
                "{{kueue.enabled}} to false",
            )
    for i, svc in enumerate(services):
        if isinstance(svc, Mapping) and svc.get("pool") in names and services_at is not None:
            services_at.add(
                (i, "pool"),
                f"'{svc['pool']}' is a Slurm pool: slurmd holds every GPU of its nodes, so the predictor would never "
                "schedule; serve from a pool Slurm does not own",
            )
    namespace = raw.get("namespace", a.DEFAULT_SLURM_NAMESPACE)
    _namespace_problems(namespace, kueue, volcano, p)
    login = _login(raw.get("login", {}), p.at("login"))
    database = _database(raw.get("accounting", {}), p.at("accounting"))
    controller = raw.get("controller", {})
    storage = controller.get("storage_gib", a.DEFAULT_CONTROLLER_STORAGE_GIB)
    if storage < 1:
        p.add(("controller", "storage_gib"), f"{storage} is out of range; must be at least 1")
    if "storage_class" in controller and not is_dns_subdomain(controller["storage_class"]):
        p.add(
            ("controller", "storage_class"),
            f"'{controller['storage_class']}' is not a valid StorageClass name",
        )
    if p.count() != before:
        return None
    return SlurmSpec(
        pools=tuple(mine),
        namespace=namespace,
        install_cert_manager=raw.get("install_cert_manager", True),
        login=login,
        database=database,
        storage_class=controller.get("storage_class"),
        storage_gib=storage,
        values=dict(raw.get("values", {})),
    )


def resolve_slurm_args(args: a.SlurmClusterArgs) -> SlurmSpec:
    """``SlurmCluster``'s arguments checked and resolved like the stack file's ``slurm``; ``ArgumentsError``
    lists every problem with its argument path."""
    p = Problems()
    checked = check_arguments(a.SlurmClusterArgs, args, p)
    if checked is None:
        p.raise_for_arguments()
    assert checked is not None
    check_cuda_default(checked.get("cuda_version"), p.at("cuda_version"))
    if "node_selector" in checked:
        node_selector_problems(checked["node_selector"], p.at("node_selector"))
    at = lambda i: p.at("gpu_pools", i)  # noqa: E731
    resolved = resolve_cluster_pools(checked["cloud"], checked["gpu_pools"], checked.get("cuda_version"), at)
    spec = resolve_slurm(checked, resolved, p)
    mirror = resolve_mirror(checked.get("mirror"), p.at("mirror"))
    p.raise_for_arguments()
    assert spec is not None
    selector = checked.get("node_selector")
    selected = dict(selector) if selector is not None else None
    return SlurmSpec(**{**spec.__dict__, "node_selector": selected, "mirror": mirror})
