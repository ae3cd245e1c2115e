"""The whole stack config under the ``gpu-platform:`` namespace, parsed and checked once.

``load_platform`` turns raw config into a ``PlatformSpec`` (resolved pools, driver plan) or raises
one ``ConfigError`` listing every problem as ``gpu-platform:<key path>: <reason>``. The stack
program calls it before registering any resource.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field, ValidationError

from gpu_platform.catalog.drivers import CUDA_MIN_DRIVER, min_driver_for_cuda
from gpu_platform.catalog.gpus import GPUS
from gpu_platform.catalog.machines import find_machine, machines_for
from gpu_platform.catalog.mig import MigLayoutError, resolve_layout
from gpu_platform.config.addons import GpuOperatorConfig
from gpu_platform.config.cluster import ClusterConfig
from gpu_platform.config.errors import ConfigError, Problems, format_path
from gpu_platform.config.kserve import KServeConfig
from gpu_platform.config.kueue import KueueConfig
from gpu_platform.config.model import ConfigModel
from gpu_platform.config.pools import GpuPoolConfig
from gpu_platform.driver import IMAGES, DriverPlan, DriverPlanError, plan_driver
from gpu_platform.pools import GPU_TAINT, GpuPool, Sharing, Taint

NAMESPACE = "gpu-platform"


class StackConfig(ConfigModel):
    cloud: Literal["gke", "eks", "aks", "existing"]
    """Where the cluster runs; ``existing`` installs only the add-ons on a cluster made elsewhere."""
    cluster: ClusterConfig
    gpu_pools: list[GpuPoolConfig] = Field(min_length=1)
    gpu_operator: GpuOperatorConfig = Field(default_factory=GpuOperatorConfig)
    kueue: KueueConfig = Field(default_factory=KueueConfig)
    kserve: KServeConfig = Field(default_factory=KServeConfig)
    cuda_version: str | None = Field(default=None, pattern=r"^\d+\.\d+$")
    """CUDA version of the stack's images, for pools that do not declare their own."""


@dataclass(frozen=True)
class PlatformSpec:
    """Everything the stack program needs, derived once from config."""

    config: StackConfig
    pools: tuple[GpuPool, ...]
    driver: DriverPlan

    @property
    def cloud(self) -> str:
        return self.config.cloud


def _pydantic_problems(err: ValidationError, prefix: str) -> list[tuple[str, str]]:
    out = []
    for e in err.errors():
        loc = [p for p in e["loc"] if not (isinstance(p, str) and ("[" in p or p in ("str", "list")))]
        kind = e["type"]
        if kind == "extra_forbidden":
            reason = "unknown key"
        elif kind == "missing":
            reason = "required key is missing"
        elif kind == "string_pattern_mismatch" and loc and loc[-1] == "cudaVersion":
            reason = f"{e['input']!r} is not a CUDA version like '12.8'"
        elif kind == "string_pattern_mismatch" and loc and loc[-1] == "timeout":
            reason = f"{e['input']!r} is not a duration like '10m' (s, m or h)"
        elif kind == "string_pattern_mismatch":
            reason = f"{e['input']!r} is not a valid name: lowercase letters, digits and dashes, starting with a letter"
        elif kind == "literal_error":
            expected = e.get("ctx", {}).get("expected", "")
            reason = f"{e['input']!r} is not valid; valid: {expected.replace(' or ', ', ')}"
        else:
            reason = e["msg"]
        out.append((format_path(loc, prefix), reason))
    return out


def parse_stack_config(raw: dict[str, Any]) -> StackConfig:
    """Validate the shape of the config (keys, types, ranges); raise ``ConfigError`` on any problem."""
    try:
        return StackConfig.model_validate(raw)
    except ValidationError as err:
        raise ConfigError(_pydantic_problems(err, f"{NAMESPACE}:")) from None


def _resolve_sharing(
    cloud: str, loc_root: str, i: int, pool: GpuPoolConfig, gpu_key: str, p: Problems
) -> Sharing:
    s = pool.sharing
    loc: list[str | int] = [loc_root, i, "sharing"]
    gpu = GPUS[gpu_key]
    if s.mode in ("time-slicing", "mps"):
        if s.replicas is None or s.replicas < 2:
            p.add([*loc, "replicas"], f"{s.mode} needs replicas >= 2 (got {s.replicas})")
        elif s.replicas > 48:
            p.add([*loc, "replicas"], f"at most 48 clients per GPU (got {s.replicas})")
        if s.mig is not None:
            p.add(
                [*loc, "mig"],
                f"only with mode 'mig' (mode is '{s.mode}')"
                + ("; MPS is not supported on MIG" if s.mode == "mps" else ""),
            )
        if s.mode == "time-slicing" and pool.isolation_required:
            p.add(
                [*loc, "mode"],
                "time-slicing gives no memory or fault isolation and this pool sets isolationRequired; "
                "use 'mig' (or 'mps' for memory limits)",
            )
        if s.managed_by == "cloud" and cloud != "gke":
            p.add([*loc, "managedBy"], f"cloud-managed {s.mode} exists only on GKE; valid here: operator")
        if s.fail_requests_greater_than_one and s.mode == "mps":
            p.add([*loc, "failRequestsGreaterThanOne"], "applies to time-slicing only")
        return Sharing(
            s.mode,
            s.managed_by,
            s.replicas or 2,
            s.rename_by_default,
            s.fail_requests_greater_than_one,
        )
    if s.mode == "mig":
        if s.replicas is not None:
            p.add([*loc, "replicas"], "not used with MIG (each MIG instance is one unit)")
        if not gpu.mig_capable:
            p.add(
                [*loc, "mode"],
                f"{gpu.display} is not MIG-capable; MIG GPUs: "
                + ", ".join(g.display for g in GPUS.values() if g.mig_capable),
            )
            return Sharing("none")
        if s.mig is None:
            p.add([*loc, "mig"], "mode 'mig' needs mig.layout (and optionally mig.strategy)")
            return Sharing("none")
        from gpu_platform.catalog.mig import MIG_TABLES

        table = MIG_TABLES[gpu.mig_table or ""]
        try:
            profiles = resolve_layout(table, s.mig.layout)
        except MigLayoutError as exc:
            msg = str(exc)
            if msg.startswith("["):
                idx, _, rest = msg.partition("]: ")
                p.add([*loc, "mig", "layout", int(idx[1:])], rest)
            else:
                p.add([*loc, "mig", "layout"], msg)
            return Sharing("none")
        if s.mig.strategy == "single" and len(set(profiles)) > 1:
            p.add(
                [*loc, "mig", "strategy"],
                f"'single' needs one profile on every GPU; layout has {', '.join(sorted(set(profiles)))}: "
                "use 'mixed'",
            )
        named = isinstance(s.mig.layout, str)
        layout_name = s.mig.layout if isinstance(s.mig.layout, str) else f"custom-{pool.name}"
        if s.managed_by == "cloud":
            if cloud not in ("gke", "aks"):
                p.add([*loc, "managedBy"], "cloud-managed MIG exists on GKE and AKS only; valid: operator")
            elif len(set(profiles)) != 1 or not named:
                p.add(
                    [*loc, "mig", "layout"],
                    "cloud-managed MIG partitions every GPU with one profile: use a named 'all-<profile>' layout",
                )
            elif cloud == "aks" and (
                pool.machine_type and not find_machine("aks", pool.machine_type).aks_mig_capable
            ):
                p.add(
                    [*loc, "managedBy"],
                    f"AKS documents gpu_instance_profile only for Standard_ND96asr_v4, not {pool.machine_type}",
                )
        return Sharing(
            "mig",
            s.managed_by,
            1,
            # GKE's own device plugin exposes partitions as nvidia.com/gpu (single); AKS partitions are
            # served by the operator's plugin with the user's strategy.
            mig_strategy="single" if s.managed_by == "cloud" and cloud == "gke" else s.mig.strategy,
            mig_layout=layout_name,
            mig_profiles=profiles,
            mig_named=named,
        )
    if s.replicas is not None:
        p.add([*loc, "replicas"], "only with mode 'time-slicing' or 'mps'")
    if s.mig is not None:
        p.add([*loc, "mig"], "only with mode 'mig'")
    return Sharing("none")


def _resolve_pool(
    cloud: str, cuda_default: str | None, i: int, pool: GpuPoolConfig, p: Problems, loc_root: str = "gpuPools"
) -> GpuPool | None:
    loc: list[str | int] = [loc_root, i]
    machine = None
    if cloud == "existing":
        if pool.gpu is None or pool.gpu not in GPUS:
            p.add([*loc, "gpu"], f"{pool.gpu!r} is not a GPU model; valid: {', '.join(GPUS)}")
            return None
        if pool.gpus_per_node is None:
            p.add([*loc, "gpusPerNode"], "required on an existing cluster (GPUs per node)")
            return None
        gpu_key, count = pool.gpu, pool.gpus_per_node
        vcpus, mem = pool.cpus_per_node, pool.memory_gib_per_node
    else:
        if pool.machine_type is None:
            p.add([*loc, "machineType"], "required key is missing")
            return None
        machine = find_machine(cloud, pool.machine_type)
        if machine is None:
            p.add(
                [*loc, "machineType"],
                f"'{pool.machine_type}' is not a {cloud.upper()} GPU machine type; valid: "
                + ", ".join(machines_for(cloud)),
            )
            return None
        if pool.gpu is not None and pool.gpu != machine.gpu_key:
            p.add(
                [*loc, "gpu"],
                f"{pool.machine_type} has {machine.gpu.display}; omit gpu or set '{machine.gpu_key}'",
            )
        count = machine.gpus
        if pool.gpus_per_node is not None:
            if machine.allowed_gpu_counts and pool.gpus_per_node in machine.allowed_gpu_counts:
                count = pool.gpus_per_node
            elif machine.allowed_gpu_counts:
                p.add(
                    [*loc, "gpusPerNode"],
                    f"{pool.machine_type} takes {', '.join(map(str, machine.allowed_gpu_counts))} attached GPUs",
                )
            elif pool.gpus_per_node != machine.gpus:
                p.add(
                    [*loc, "gpusPerNode"],
                    f"{pool.machine_type} has {machine.gpus} GPU{'s' if machine.gpus > 1 else ''} per node",
                )
        gpu_key, vcpus, mem = machine.gpu_key, machine.vcpus, machine.memory_gib
        if pool.image is not None and pool.image not in IMAGES[cloud]:
            p.add(
                [*loc, "image"],
                f"'{pool.image}' is not a GPU image on {cloud}; valid: {', '.join(IMAGES[cloud])}",
            )
    if pool.min_nodes > pool.max_nodes:
        p.add([*loc, "minNodes"], f"{pool.min_nodes} is more than maxNodes {pool.max_nodes}")
    if pool.initial_nodes is not None and not pool.min_nodes <= pool.initial_nodes <= pool.max_nodes:
        p.add(
            [*loc, "initialNodes"],
            f"must be between minNodes and maxNodes ({pool.min_nodes}-{pool.max_nodes})",
        )
    if pool.capacity_type is not None and cloud != "eks":
        p.add([*loc, "capacityType"], "EKS only; use spot: true elsewhere")
    if pool.reservation is not None and cloud not in ("gke", "eks"):
        p.add([*loc, "reservation"], "GKE reservations and EKS Capacity Blocks only")
    elif pool.reservation is not None and cloud == "eks" and pool.capacity_type != "CAPACITY_BLOCK":
        p.add([*loc, "reservation"], "on EKS only with capacityType CAPACITY_BLOCK (the Capacity Block ID)")
    if pool.efa and (cloud != "eks" or machine is None or machine.efa_interfaces == 0):
        p.add(
            [*loc, "efa"],
            "EFA needs an EKS instance type with EFA interfaces (p4d, p4de, p5, p5e, p5en, ...)",
        )
    if pool.spot_max_price is not None and (cloud != "aks" or not pool.spot):
        p.add([*loc, "spotMaxPrice"], "AKS spot pools only (set spot: true)")
    elif pool.spot_max_price is not None and pool.spot_max_price != -1 and pool.spot_max_price <= 0:
        p.add([*loc, "spotMaxPrice"], "-1 (up to the on-demand price) or a positive price")
    taints = []
    for j, t in enumerate(pool.taints):
        if t.key == GPU_TAINT.key and t.effect != GPU_TAINT.effect:
            p.add(
                [*loc, "taints", j, "effect"],
                "the nvidia.com/gpu taint is always NoSchedule on GPU pools; it cannot be weakened",
            )
        elif t.key != GPU_TAINT.key:
            taints.append(Taint(t.key, t.value, t.effect))
    for key in pool.labels:
        if key.startswith("gpu-platform.io/") or key in (
            "nvidia.com/device-plugin.config",
            "nvidia.com/mig.config",
        ):
            p.add([*loc, "labels", key], "set by the library from the pool; remove it")
    cuda = pool.cuda_version or cuda_default
    if cuda is not None and cuda not in CUDA_MIN_DRIVER:
        where = [*loc, "cudaVersion"] if pool.cuda_version else ["cudaVersion"]
        p.add(
            where, f"'{cuda}' is not a CUDA release in the driver table; valid: {', '.join(CUDA_MIN_DRIVER)}"
        )
        cuda = None
    sharing = _resolve_sharing(cloud, loc_root, i, pool, gpu_key, p)
    return GpuPool(
        name=pool.name,
        cloud=cloud,
        gpu=GPUS[gpu_key],
        gpus_per_node=count,
        min_nodes=pool.min_nodes,
        max_nodes=pool.max_nodes,
        sharing=sharing,
        machine=machine,
        vcpus=vcpus,
        memory_gib=mem,
        initial_nodes=pool.initial_nodes if pool.initial_nodes is not None else pool.min_nodes,
        spot=pool.spot or pool.capacity_type == "SPOT",
        capacity_type=pool.capacity_type,
        zones=tuple(pool.zones),
        image=pool.image,
        disk_size_gb=pool.disk_size_gb,
        user_labels=dict(pool.labels),
        user_taints=tuple(taints),
        cuda_version=cuda,
        isolation_required=pool.isolation_required,
        reservation=pool.reservation,
        efa=pool.efa,
        spot_max_price=pool.spot_max_price,
        index=i,
    )


def _check_cross_pool(pools: list[GpuPool], p: Problems, loc_root: str = "gpuPools") -> None:
    for name, n in Counter(pl.name for pl in pools).items():
        if n > 1:
            idx = [pl.index for pl in pools if pl.name == name][1]
            p.add([loc_root, idx, "name"], f"'{name}' is used by more than one pool")
    # The operator's device plugin serves operator MIG pools and AKS-partitioned ones: one strategy for all.
    mig = [
        pl
        for pl in pools
        if pl.sharing.mode == "mig" and (pl.sharing.managed_by == "operator" or pl.cloud == "aks")
    ]
    strategies = {pl.sharing.mig_strategy for pl in mig}
    if len(strategies) > 1:
        first = mig[0]
        other = next(pl for pl in mig if pl.sharing.mig_strategy != first.sharing.mig_strategy)
        p.add(
            [loc_root, other.index, "sharing", "mig", "strategy"],
            f"'{other.sharing.mig_strategy}' conflicts with '{first.sharing.mig_strategy}' on "
            f"{loc_root}[{first.index}]; the GPU Operator has one MIG strategy per cluster",
        )


def _plan_driver(cfg: StackConfig, pools: list[GpuPool], p: Problems) -> DriverPlan | None:
    d = cfg.gpu_operator.driver
    plans: dict[int, DriverPlan] = {}
    for pool in pools:
        try:
            plans[pool.index] = plan_driver(
                cfg.cloud, pool.image, d.owner, cfg.gpu_operator.version, d.version, d.host_version
            )
        except DriverPlanError as exc:
            p.add(["gpuOperator", "driver", "owner"], f"{exc} (gpuPools[{pool.index}])")
    if not plans:
        return None
    distinct = {(pl.driver, pl.toolkit, pl.device_plugin) for pl in plans.values()}
    if len(distinct) > 1:
        p.add(
            ["gpuPools"],
            "pools disagree on who owns the driver/toolkit/device plugin (e.g. Bottlerocket next to AL2023); "
            "keep one node image per cluster so nothing is installed twice",
        )
    for pool in pools:
        plan, sh = plans.get(pool.index), pool.sharing
        if plan and plan.device_plugin == "cloud" and sh.mode != "none" and sh.managed_by == "operator":
            p.add(
                ["gpuPools", pool.index, "sharing", "mode"],
                f"'{sh.mode}' is configured through the GPU Operator's device plugin, but {pool.image} ships its "
                "own device plugin; use AL2023_x86_64_NVIDIA nodes or mode 'none'",
            )
    for pool in pools:
        plan = plans.get(pool.index)
        if plan is None or pool.cuda_version is None:
            continue
        need = min_driver_for_cuda(pool.cuda_version)
        if plan.driver_version < need:
            own = cfg.gpu_pools[pool.index].cuda_version is not None
            where = ["gpuPools", pool.index, "cudaVersion"] if own else ["cudaVersion"]
            p.add(
                where,
                f"CUDA {pool.cuda_version} needs driver >= {need}, but pool '{pool.name}' runs "
                f"{plan.driver_version} ({'GPU Operator' if plan.driver == 'operator' else 'cloud image'} driver); "
                "raise gpuOperator.driver.version or hostVersion, or build the image for an older CUDA",
            )
    return next(iter(plans.values()))


def load_platform(raw: dict[str, Any]) -> PlatformSpec:
    """Parse and check the whole stack config; raise one ``ConfigError`` listing every problem."""
    cfg = parse_stack_config(raw)
    p = Problems(f"{NAMESPACE}:")
    pools = [
        pl
        for i, c in enumerate(cfg.gpu_pools)
        if (pl := _resolve_pool(cfg.cloud, cfg.cuda_version, i, c, p)) is not None
    ]
    _check_cross_pool(pools, p)
    for i, c in enumerate(cfg.gpu_pools):
        # Components take the ID as capacity_reservation_id; the stack config carries it here.
        if cfg.cloud == "eks" and c.capacity_type == "CAPACITY_BLOCK" and c.reservation is None:
            p.add(
                ["gpuPools", i, "reservation"],
                "capacityType CAPACITY_BLOCK needs the Capacity Block ID (cr-...)",
            )
    driver = _plan_driver(cfg, pools, p)
    from gpu_platform.config.checks import check_addons

    check_addons(cfg, pools, p)
    p.raise_if_any()
    assert driver is not None
    return PlatformSpec(cfg, tuple(pools), driver)


def resolve_pools(
    cloud: str, pools: list[dict[str, Any]], path: str = "pools", cuda_version: str | None = None
) -> list[GpuPool]:
    """Resolve pools given as plain dicts (component args, snake_case or camelCase) for one cloud.

    Components call this so they accept the same pool description as the stack config and report
    errors under their own argument path (``pools[1].sharing.mig.layout``).
    """
    p = Problems()
    parsed: list[GpuPoolConfig] = []
    from gpu_platform.args import pool_args_to_config

    for i, raw in enumerate(pools):
        try:
            parsed.append(GpuPoolConfig.model_validate(pool_args_to_config(raw)))
        except ValidationError as err:
            p.items += _pydantic_problems_at(err, [path, i])
    p.raise_if_any()
    out = [
        pl
        for i, c in enumerate(parsed)
        if (pl := _resolve_pool(cloud, cuda_version, i, c, p, path)) is not None
    ]
    _check_cross_pool(out, p, path)
    p.raise_if_any()
    return out


def _pydantic_problems_at(err: ValidationError, loc: list[str | int]) -> list[tuple[str, str]]:
    return [
        (format_path(loc) + ("" if path.startswith("[") else ".") + path if path else format_path(loc), r)
        for path, r in _pydantic_problems(err, "")
    ]


def json_schema() -> dict[str, Any]:
    """JSON schema of the ``gpu-platform:`` config object, for editors completing stack files."""
    schema = StackConfig.model_json_schema(by_alias=True)
    schema["title"] = "gpu-platform stack configuration (keys under the 'gpu-platform:' namespace)"
    return schema
