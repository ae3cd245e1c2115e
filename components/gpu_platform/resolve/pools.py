"""GPU pools: from ``GpuPoolArgs`` (what the user typed) to ``GpuPool`` (what it means), checked once.

Every pool check lives here and runs on the same path for the stack file and for components; only the
location a problem is filed under differs (``gpuPools[1]`` in the stack file, ``pool`` or ``pools[1]``
in component arguments). A pool with any problem resolves to ``None`` and its name is remembered as
broken, so queues and services that reference it report nothing more about it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_platform.args.pool import (
    DEFAULT_ALLOCATION,
    DEFAULT_DISK_SIZE_GB,
    DEFAULT_ISOLATED_SPLITS,
    DEFAULT_MANAGED_BY,
    DEFAULT_MIG_STRATEGY,
    DEFAULT_MIN_NODES,
    DEFAULT_SHARING_MODE,
    DEFAULT_SHARING_REPLICAS,
    DEFAULT_TAINT_EFFECT,
    MAX_SHARED_CLIENTS,
    GpuPoolArgs,
)
from gpu_platform.args.validate import parse_partial, unknown_value_reason
from gpu_platform.catalog.drivers import CUDA_MIN_DRIVER
from gpu_platform.catalog.gpus import GPUS
from gpu_platform.catalog.machines import MachineType
from gpu_platform.catalog.mig import MIG_TABLES, MigLayoutError, resolve_layout
from gpu_platform.cloud_facts import clouds_where, profile_of
from gpu_platform.cloud_facts.profile import PoolProblems
from gpu_platform.errors import Key, Problems
from gpu_platform.pools import GPU_TAINT, CapacitySource, GpuPool, Sharing, Taint
from gpu_platform.resolve.capacity import resolve_capacity
from gpu_platform.resolve.kubernetes import label_problems
from gpu_platform.resolve.network import (
    pool_compact_placement,
    pool_gpudirect,
    pool_infiniband,
    pool_topology,
)

CAPACITY_BLOCK_ID = re.compile(r"^cr-[0-9a-f]{8}([0-9a-f]{9})?$")
"""EC2 capacity reservation IDs (Capacity Blocks are capacity reservations)."""
POOL_NAME = re.compile(r"^[a-z]([-a-z0-9]{0,30}[a-z0-9])?$")
"""Pool names: they name cloud pools (GKE 40 characters with a suffix), labels and Kueue flavors."""
CUDA_VERSION = re.compile(r"^\d+\.\d+$")
MAX_GPUS_PER_NODE = 16
MAX_POOL_NODES = 1000
"""Upper bound on a pool's size (GKE: 1000 nodes per zone per pool); larger is a typo, not a plan."""
DISK_SIZE_RANGE = (50, 65536)
RESERVED_LABEL_PREFIX = "gpu-platform.io/"
RESERVED_LABELS = (
    "nvidia.com/device-plugin.config",
    "nvidia.com/mig.config",
    "k8s.amazonaws.com/accelerator",
)


@dataclass
class ResolvedPools:
    """The pools that resolved, in order, and the names of those that did not."""

    pools: list[GpuPool] = field(default_factory=list)
    broken: set[str] = field(default_factory=set)

    def by_name(self) -> dict[str, GpuPool]:
        return {p.name: p for p in self.pools}


def valid_pools(names: Iterable[str]) -> str:
    """What a setting naming an unknown pool may name: ``valid: a, b``; when no pool is defined (``gpuPools``
    missing, or given under another key) where they go, never an empty list."""
    listed = ", ".join(names)
    return f"valid: {listed}" if listed else "no GPU pool is defined (under {{gpu_pools}})"


def _range(p: Problems, key: str, value: int | None, low: int, high: int | None = None) -> None:
    if value is None:
        return
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        p.add((key,), f"{value} is out of range; must be {bound}")


def _resolve_mig(
    cloud: str, pool: Mapping[str, Any], gpu_key: str, managed_by: str, p: Problems
) -> Sharing | None:
    gpu = GPUS[gpu_key]
    s = pool.get("sharing", {})
    if s.get("replicas") is not None:
        p.add(("replicas",), "not used with MIG (each MIG instance is one unit)")
    _device_plugin_options_unused(s, "mode 'mig'", p)
    if not gpu.mig_capable:
        capable = ", ".join(g.display for g in GPUS.values() if g.mig_capable)
        p.add(("mode",), f"{gpu.display} is not MIG-capable; MIG GPUs: {capable}")
        return None
    mig = s.get("mig")
    if mig is None or ("layout" not in mig and "profiles" not in mig):
        p.add(("mig",), "mode 'mig' needs {{mig.layout}} (a named layout) or {{mig.profiles}} (a list)")
        return None
    if "layout" in mig and "profiles" in mig:
        p.add(("mig", "profiles"), "give {{mig.layout}} or {{mig.profiles}}, not both")
        return None
    table = MIG_TABLES[gpu.mig_table or ""]
    named = "layout" in mig
    try:
        profiles = resolve_layout(table, mig["layout"] if named else list(mig["profiles"]))
    except MigLayoutError as exc:
        where: tuple[str | int, ...] = ("mig", "layout") if named else ("mig", "profiles")
        p.add(where if exc.index is None else (*where, exc.index), str(exc))
        return None
    strategy = mig.get("strategy", DEFAULT_MIG_STRATEGY)
    if strategy == "single" and len(set(profiles)) > 1:
        p.add(
            ("mig", "strategy"),
            f"'single' needs one profile on every GPU; layout has {', '.join(sorted(set(profiles)))}: use 'mixed'",
        )
    profile = profile_of(cloud)
    if managed_by == "cloud":
        if "mig" not in profile.cloud_sharing_modes:
            names = " and ".join(q.display for q in clouds_where(lambda q: "mig" in q.cloud_sharing_modes))
            p.add(("managed_by",), f"cloud-managed MIG exists on {names} only; valid: operator")
        elif len(set(profiles)) != 1 or not named:
            p.add(
                ("mig", "layout" if named else "profiles"),
                "cloud-managed MIG partitions every GPU with one profile: use a named 'all-<profile>' layout",
            )
    return Sharing(
        "mig",
        managed_by,
        1,
        # GKE's own device plugin exposes partitions as nvidia.com/gpu (single); AKS partitions are
        # served by the operator's plugin with the user's strategy.
        mig_strategy=(profile.cloud_mig_strategy or strategy) if managed_by == "cloud" else strategy,
        mig_layout=mig["layout"] if named else f"custom-{pool['name']}",
        mig_profiles=profiles,
        mig_named=named,
    )


def _device_plugin_options_unused(s: Mapping[str, Any], where: str, p: Problems) -> None:
    """``rename_by_default`` and ``fail_requests_greater_than_one`` configure the operator's time-slicing and
    MPS replicas only: elsewhere they would be silently ignored."""
    for key in ("rename_by_default", "fail_requests_greater_than_one"):
        if key in s:
            p.add(
                (key,), f"not used with {where}: it configures the GPU Operator's shared replicas; remove it"
            )


def _resolve_isolated(s: Mapping[str, Any], p: Problems) -> Sharing:
    """Mode ``isolated``: HAMi's device plugin shares the cards (``addons.hami``), never the cloud's or the
    operator's, so only ``replicas`` (HAMi's ``deviceSplitCount``) applies."""
    if s.get("managed_by") == "cloud":
        p.add(
            ("managed_by",),
            "isolated fractions are HAMi's, not the cloud's; valid here: operator (or remove it)",
        )
    if "mig" in s:
        p.add(("mig",), "only with mode 'mig' (mode is 'isolated')")
    _device_plugin_options_unused(s, "mode 'isolated'", p)
    replicas = s.get("replicas", DEFAULT_ISOLATED_SPLITS)
    _range(p, "replicas", replicas, 2, MAX_SHARED_CLIENTS)
    return Sharing("isolated", replicas=replicas)


def _resolve_sharing(cloud: str, pool: Mapping[str, Any], gpu_key: str, p: Problems) -> Sharing | None:
    s = pool.get("sharing", {})
    mode = s.get("mode", DEFAULT_SHARING_MODE)
    managed_by = s.get("managed_by", DEFAULT_MANAGED_BY)
    if mode == "mig":
        return _resolve_mig(cloud, pool, gpu_key, managed_by, p)
    if mode == "isolated":
        return _resolve_isolated(s, p)
    if mode == "none":
        for key in ("replicas", "mig"):
            if key in s:
                p.add(
                    (key,),
                    "only with mode 'time-slicing' or 'mps'" if key == "replicas" else "only with mode 'mig'",
                )
        if s.get("managed_by") == "cloud":
            p.add(("managed_by",), "mode 'none' shares nothing; remove {{managed_by}}")
        _device_plugin_options_unused(s, "mode 'none'", p)
        return Sharing("none")
    replicas = s.get("replicas")
    if replicas is None or replicas < 2:
        p.add(("replicas",), f"{mode} needs replicas >= 2 (got {replicas})")
    elif replicas > MAX_SHARED_CLIENTS:
        p.add(("replicas",), f"at most {MAX_SHARED_CLIENTS} clients per GPU (got {replicas})")
    if "mig" in s:
        extra = "; MPS is not supported on MIG" if mode == "mps" else ""
        p.add(("mig",), f"only with mode 'mig' (mode is '{mode}'){extra}")
    if mode == "time-slicing" and pool.get("isolation_required"):
        p.add(
            ("mode",),
            "time-slicing gives no memory or fault isolation and this pool sets {{isolation_required}}; "
            "use 'mig', 'isolated' (memory slices of any GPU) or 'mps' for memory limits",
        )
    where = " and ".join(q.display for q in clouds_where(lambda q: mode in q.cloud_sharing_modes))
    if managed_by == "cloud" and mode not in profile_of(cloud).cloud_sharing_modes:
        p.add(("managed_by",), f"cloud-managed {mode} exists only on {where}; valid here: operator")
    if s.get("fail_requests_greater_than_one") and mode == "mps":
        p.add(("fail_requests_greater_than_one",), "applies to time-slicing only")
    elif managed_by == "cloud" and "fail_requests_greater_than_one" in s:
        p.add(
            ("fail_requests_greater_than_one",),
            "configures the GPU Operator's device plugin; the cloud's own sharing ignores it: remove it",
        )
    if managed_by == "cloud" and s.get("rename_by_default"):
        # Where a cloud shares GPUs itself (``cloud_sharing_modes``), its device plugin keeps nvidia.com/gpu.
        p.add(("rename_by_default",), f"{where}'s own sharing always advertises nvidia.com/gpu; remove it")
    return Sharing(
        mode,
        managed_by,
        replicas or DEFAULT_SHARING_REPLICAS,
        bool(s.get("rename_by_default", False)),
        bool(s.get("fail_requests_greater_than_one", False)),
    )


def _machine(cloud: str, pool: Mapping[str, Any], p: Problems) -> tuple[MachineType | None, str, int] | None:
    """The machine (``None`` on existing clusters), GPU key and GPUs per node, or ``None`` on a problem."""
    profile = profile_of(cloud)
    if not profile.creates_nodes and not profile.machines:
        gpu = pool.get("gpu")
        if gpu is None or gpu not in GPUS:
            p.add(("gpu",), f"{gpu!r} is not a GPU model; valid: {', '.join(GPUS)}")
            return None
        count = pool.get("gpus_per_node")
        if count is None:
            p.add(("gpus_per_node",), "required on an existing cluster (GPUs per node)")
            return None
        if "machine_type" in pool:
            p.add(("machine_type",), "not used on an existing cluster; declare gpu and {{gpus_per_node}}")
        return None, gpu, count
    name = pool.get("machine_type")
    if name is None:
        p.add(("machine_type",), "required key is missing")
        return None
    machine = profile.machine(name, pool)
    if machine is None:
        p.add(
            ("machine_type",),
            unknown_value_reason(
                name, f"{profile.article} {profile.display} GPU machine type", list(profile.machines)
            ),
        )
        return None
    if pool.get("gpu") is not None and pool["gpu"] != machine.gpu_key:
        p.add(("gpu",), f"{name} has {machine.gpu.display}; omit gpu or set '{machine.gpu_key}'")
    count = machine.gpus
    wanted = pool.get("gpus_per_node")
    if wanted is not None:
        if machine.allowed_gpu_counts and wanted in machine.allowed_gpu_counts:
            count = wanted
        elif machine.allowed_gpu_counts:
            counts = ", ".join(map(str, machine.allowed_gpu_counts))
            p.add(("gpus_per_node",), f"{name} takes {counts} attached GPUs")
        elif wanted != machine.gpus:
            p.add(
                ("gpus_per_node",), f"{name} has {machine.gpus} GPU{'s' if machine.gpus > 1 else ''} per node"
            )
    for key in ("cpus_per_node", "memory_gib_per_node"):
        if key in profile.declared_node_keys and key not in pool:
            p.add((key,), f"required on {profile.display}: the node's allocatable, which it does not publish")
        elif key in pool and key not in profile.declared_node_keys:
            p.add((key,), f"comes from the machine type on {profile.display}; remove it")
    return machine, machine.gpu_key, count


def _check_sizes(pool: Mapping[str, Any], p: Problems) -> None:
    _range(p, "gpus_per_node", pool.get("gpus_per_node"), 1, MAX_GPUS_PER_NODE)
    _range(p, "cpus_per_node", pool.get("cpus_per_node"), 1)
    _range(p, "memory_gib_per_node", pool.get("memory_gib_per_node"), 1)
    low, high = pool.get("min_nodes", DEFAULT_MIN_NODES), pool["max_nodes"]
    _range(p, "max_nodes", high, 0, MAX_POOL_NODES)
    _range(p, "min_nodes", low, 0, MAX_POOL_NODES)
    if 0 <= low <= MAX_POOL_NODES and 0 <= high <= MAX_POOL_NODES and low > high:
        p.add(("min_nodes",), f"{low} is more than {{{{max_nodes}}}} {high}")
    initial = pool.get("initial_nodes")
    if initial is not None and not low <= initial <= high:
        p.add(
            ("initial_nodes",),
            f"{initial} must be between {{{{min_nodes}}}} and {{{{max_nodes}}}} ({low}-{high})",
        )
    _range(p, "disk_size_gb", pool.get("disk_size_gb"), *DISK_SIZE_RANGE)


def _check_capacity(
    cloud: str,
    pool: Mapping[str, Any],
    machine: MachineType | None,
    sources: tuple[CapacitySource, ...],
    p: Problems,
) -> None:
    capacity, spot, reservation = pool.get("capacity_type"), pool.get("spot", False), pool.get("reservation")
    profile = profile_of(cloud)
    if capacity is not None and not profile.capacity_types:
        where = "/".join(q.display for q in clouds_where(lambda q: q.capacity_types))
        p.add(("capacity_type",), f"{where} only; use spot: true elsewhere")
    elif spot and capacity not in (None, "SPOT"):
        p.add(("capacity_type",), f"'{capacity}' contradicts spot: true; remove one of them")
    if reservation is not None:
        if profile.reservation_kind is None:
            kinds = " and ".join(str(q.reservation_kind) for q in clouds_where(lambda q: q.reservation_kind))
            p.add(("reservation",), f"{kinds} only")
        elif spot or capacity == "SPOT":
            p.add(("reservation",), "a reservation is on-demand capacity; it cannot be spot")
        elif profile.capacity_types and capacity != "CAPACITY_BLOCK":
            p.add(
                ("reservation",),
                f"on {profile.display} only with {{{{capacity_type}}}} CAPACITY_BLOCK (the Capacity Block ID)",
            )
    elif profile.capacity_types and capacity == "CAPACITY_BLOCK":
        p.add(("reservation",), "{{capacity_type}} CAPACITY_BLOCK needs the Capacity Block ID (cr-...)")
    if reservation is not None and capacity == "CAPACITY_BLOCK" and not CAPACITY_BLOCK_ID.match(reservation):
        p.add(
            ("reservation",),
            f"'{reservation}' is not a Capacity Block reservation ID like cr-0123456789abcdef0",
        )
    for j, zone in enumerate(pool.get("zones", ())):
        if zone in pool["zones"][:j]:
            p.add(("zones", j), f"'{zone}' is listed twice")
    if pool.get("efa"):
        if not profile.efa or machine is None or machine.efa_interfaces == 0:
            machines = " or ".join(q.efa_machines for q in clouds_where(lambda q: q.efa))
            p.add(("efa",), f"EFA needs {machines}")
        elif len(pool.get("zones", ())) > 1:
            p.add(("zones",), "EFA pools run in one zone (one cluster placement group); give one zone")
    price = pool.get("spot_max_price")
    if price is not None and (not profile.spot_max_price or all(s.source != "spot" for s in sources)):
        where = "/".join(q.display for q in clouds_where(lambda q: q.spot_max_price))
        p.add(("spot_max_price",), f"{where} spot pools only (a capacity source spot)")
    elif price is not None and price != -1 and price <= 0:
        p.add(("spot_max_price",), "-1 (up to the on-demand price) or a positive price")


def _check_labels_taints(pool: Mapping[str, Any], p: Problems) -> tuple[Taint, ...]:
    for key, value in pool.get("labels", {}).items():
        if key.startswith(RESERVED_LABEL_PREFIX) or key in RESERVED_LABELS:
            p.add(("labels", Key(key)), "set by the library from the pool; remove it")
        for where, reason in label_problems(key, value):
            p.add(("labels", Key(key)), reason if where == "key" else f"value: {reason}")
    taints = []
    seen: set[tuple[str, str]] = set()
    for j, t in enumerate(pool.get("taints", ())):
        effect = t.get("effect", DEFAULT_TAINT_EFFECT)
        if (t["key"], effect) in seen:
            p.add(("taints", j), f"a second {t['key']}:{effect} taint; Kubernetes refuses duplicates")
        seen.add((t["key"], effect))
        for where, reason in label_problems(t["key"], t.get("value", "")):
            p.add(("taints", j, where), reason)
        if t["key"].startswith(RESERVED_LABEL_PREFIX):
            p.add(
                ("taints", j, "key"),
                f"keys under {RESERVED_LABEL_PREFIX} are the library's (like its labels); use your own prefix, "
                "e.g. 'dedicated' or 'example.com/workload'",
            )
        if t["key"] == GPU_TAINT.key and effect != GPU_TAINT.effect:
            p.add(
                ("taints", j, "effect"),
                "the nvidia.com/gpu taint is always NoSchedule on GPU pools; it cannot be weakened",
            )
        elif t["key"] != GPU_TAINT.key:
            taints.append(Taint(t["key"], t.get("value", ""), effect))
    return tuple(taints)


def _check_name(pool: Mapping[str, Any], p: Problems) -> None:
    """File a problem for a pool name the clouds would refuse, kept apart so ``resolve_pool`` fits a screen."""
    if not POOL_NAME.match(pool["name"]):
        p.add(
            ("name",),
            f"'{pool['name']}' is not a valid pool name: lowercase letters, digits and dashes, "
            "starting with a letter, at most 32",
        )


def _check_image(cloud: str, pool: Mapping[str, Any], p: Problems) -> None:
    """File a problem for an ``image`` the cloud has no GPU image of, kept apart so ``resolve_pool`` fits a screen."""
    images = profile_of(cloud).images
    if profile_of(cloud).creates_nodes and pool.get("image") is not None and pool["image"] not in images:
        p.add(("image",), f"'{pool['image']}' is not a GPU image on {cloud}; valid: {', '.join(images)}")


def resolve_pool(
    cloud: str, index: int, pool: Mapping[str, Any], cuda_default: str | None, p: Problems
) -> GpuPool | None:
    """One validated ``GpuPoolArgs`` resolved from the catalog; ``None`` if it has any problem."""
    before = p.count()
    _check_name(pool, p)
    _check_sizes(pool, p)
    found = _machine(cloud, pool, p)
    machine = found[0] if found else None
    _check_image(cloud, pool, p)
    sources = resolve_capacity(cloud, pool, p)
    _check_capacity(cloud, pool, machine, sources, p)
    taints = _check_labels_taints(pool, p)
    topology = pool_topology(cloud, pool, machine, p)
    compact = pool_compact_placement(cloud, pool, machine, p)
    infiniband = pool_infiniband(cloud, pool, machine, p)
    gpudirect = pool_gpudirect(cloud, pool, machine, p)
    cuda = pool.get("cuda_version") or cuda_default
    if pool.get("cuda_version") is not None:
        _check_cuda_text(pool["cuda_version"], p.at("cuda_version"))
    sharing = _resolve_sharing(cloud, pool, found[1], p.at("sharing")) if found else None
    if found is None or sharing is None or p.count() != before:
        return None
    machine, gpu_key, count = found
    low = pool.get("min_nodes", DEFAULT_MIN_NODES)
    return GpuPool(
        name=pool["name"],
        cloud=cloud,
        gpu=GPUS[gpu_key],
        gpus_per_node=count,
        min_nodes=low,
        max_nodes=pool["max_nodes"],
        sharing=sharing,
        machine=machine,
        vcpus=pool.get("cpus_per_node", machine.vcpus if machine else None),
        memory_gib=pool.get("memory_gib_per_node", machine.memory_gib if machine else None),
        initial_nodes=pool.get("initial_nodes", low),
        spot=any(s.source == "spot" for s in sources),
        capacity_type=pool.get("capacity_type") or _capacity_type(cloud, pool, sources),
        zones=tuple(pool.get("zones", ())),
        image=pool.get("image"),
        disk_size_gb=pool.get("disk_size_gb", DEFAULT_DISK_SIZE_GB),
        user_labels=dict(pool.get("labels", {})),
        user_taints=taints,
        cuda_version=cuda if cuda in CUDA_MIN_DRIVER else None,
        cuda_declared=pool.get("cuda_version") is not None,
        isolation_required=bool(pool.get("isolation_required")),
        reservation=sources[0].reservation if sources and sources[0].reserved else None,
        efa=bool(pool.get("efa")),
        topology=topology,
        compact_placement=compact,
        local_ssds=_local_ssds(cloud, pool, machine, p),
        infiniband=infiniband,
        gpudirect=gpudirect,
        spot_max_price=pool.get("spot_max_price"),
        index=index,
        allocation=pool.get("allocation", DEFAULT_ALLOCATION),
        capacity=sources,
    )


def _capacity_type(cloud: str, pool: Mapping[str, Any], sources: tuple[CapacitySource, ...]) -> str | None:
    """``capacity_type`` where the cloud has one, from ``capacity`` (``None`` for pools in the older spelling,
    whose plans derive it from ``spot`` as before)."""
    if "capacity" not in pool or not profile_of(cloud).capacity_types or not sources:
        return None
    return profile_of(cloud).pool_capacity_type(sources[0].source)


def _check_cuda_text(cuda: str, p: Problems) -> None:
    if not CUDA_VERSION.match(cuda):
        p.add((), f"{cuda!r} is not a CUDA version like '12.8'")
    elif cuda not in CUDA_MIN_DRIVER:
        p.add((), f"'{cuda}' is not a CUDA release in the driver table; valid: {', '.join(CUDA_MIN_DRIVER)}")


def check_cuda_default(cuda: str | None, p: Problems) -> None:
    """The stack's or component's ``cuda_version`` for pools without their own."""
    if cuda is not None:
        _check_cuda_text(cuda, p)


def _layout_is_a_list(item: Any) -> bool:
    """``mig.layout: [..]`` was the old spelling of ``mig.profiles``: say so instead of "not text"."""
    sharing = item.get("sharing") if isinstance(item, Mapping) else None
    mig = sharing.get("mig") if isinstance(sharing, Mapping) else None
    return isinstance(mig, Mapping) and isinstance(mig.get("layout"), list)


def _local_ssds(cloud: str, pool: Mapping[str, Any], machine: MachineType | None, p: Problems) -> bool:
    """``local_ssds``, where the cloud's profile knows the machine's local SSDs."""
    if not pool.get("local_ssds"):
        return False
    profile = profile_of(cloud)
    if machine is not None and machine.name not in profile.local_ssd_machines:
        valid = ", ".join(sorted(profile.local_ssd_machines)) or f"none on {profile.display} yet"
        p.add(
            ("local_ssds",),
            f"{machine.name} has no local SSDs the library can use; valid machine types: {valid}",
        )
        return False
    return True


def resolve_pool_list(
    cloud: str,
    raw: Sequence[Any],
    cuda_default: str | None,
    at: PoolProblems,
    camel: bool = False,
) -> ResolvedPools:
    """Validate and resolve every pool; each problem filed under ``at(i)``; cross-pool checks too."""
    out = ResolvedPools()
    cuda_ok = cuda_default if cuda_default in CUDA_MIN_DRIVER else None
    for i, item in enumerate(raw):
        p = at(i)
        if _layout_is_a_list(item):
            p.add(
                ("sharing", "mig", "layout"),
                "a list of profiles goes under {{mig.profiles}}; {{mig.layout}} names a layout",
            )
            continue
        # A wrong type in one setting leaves the pool's other settings to their checks; the pool is still broken,
        # so no queue or service is checked against a pool that is not what the stack file says.
        args, left_out = parse_partial(GpuPoolArgs, item, p, camel)
        for key in sorted(left_out):
            p.mute(key)
        pool = resolve_pool(cloud, i, args, cuda_ok, p) if args is not None else None
        if pool is not None and not left_out:
            out.pools.append(pool)
        elif isinstance(item, Mapping) and isinstance(item.get("name"), str):
            out.broken.add(item["name"])
    for name, n in Counter(pl.name for pl in out.pools).items():
        if n > 1:
            idx = [pl.index for pl in out.pools if pl.name == name][1]
            at(idx).add(("name",), f"'{name}' is used by more than one pool")
    _check_isolated_splits(out.pools, at)
    return out


def _check_isolated_splits(pools: Sequence[GpuPool], at: PoolProblems) -> None:
    """HAMi has one ``deviceSplitCount`` per cluster (its chart's ``devicePlugin.deviceSplitCount``): every
    isolated pool must ask for the same, or a quota would count splits its nodes do not have."""
    isolated = [pl for pl in pools if pl.sharing.mode == "isolated"]
    if isolated and any(pl.sharing.replicas != isolated[0].sharing.replicas for pl in isolated):
        first = isolated[0]
        for pl in isolated[1:]:
            if pl.sharing.replicas != first.sharing.replicas:
                at(pl.index).add(
                    ("sharing", "replicas"),
                    f"{pl.sharing.replicas} differs from pool '{first.name}' ({first.sharing.replicas}): HAMi "
                    "splits every card of the cluster the same way; give every isolated pool the same replicas",
                )


def __getattr__(name: str) -> object:
    """``EKS_CAPACITY_TYPE`` is the EKS profile's ``CAPACITY_TYPE`` now (``gpu_platform._moved``)."""
    from gpu_platform._moved import moved_attribute

    return moved_attribute(__name__, name)
