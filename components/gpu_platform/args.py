"""Shared argument types for components: the pool description every component accepts.

They mirror the stack config (``config.pools``) in snake_case, so a platform repo can build pools
in code exactly as it would in ``Pulumi.<env>.yaml``. TypedDicts with ``NotRequired`` optionals keep
the library hostable as a multi-language Pulumi component package.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NotRequired, TypedDict


class TaintArgs(TypedDict):
    key: str
    value: NotRequired[str]
    effect: NotRequired[str]
    """``NoSchedule`` (default), ``PreferNoSchedule`` or ``NoExecute``."""


class MigArgs(TypedDict):
    layout: NotRequired[str]
    """Named layout (``all-1g.10gb``, ``all-balanced``)."""
    profiles: NotRequired[Sequence[str]]
    """Explicit profiles on each GPU, instead of ``layout``."""
    strategy: NotRequired[str]
    """``mixed`` (default) or ``single``."""


class SharingArgs(TypedDict):
    mode: str
    """``none``, ``time-slicing``, ``mps`` or ``mig``."""
    replicas: NotRequired[int]
    rename_by_default: NotRequired[bool]
    fail_requests_greater_than_one: NotRequired[bool]
    mig: NotRequired[MigArgs]
    managed_by: NotRequired[str]
    """``operator`` (default) or ``cloud``."""


class GpuPoolArgs(TypedDict):
    """One GPU pool; see ``gpu_platform.config.pools.GpuPoolConfig`` for every field's meaning."""

    name: str
    max_nodes: int
    machine_type: NotRequired[str]
    gpu: NotRequired[str]
    gpus_per_node: NotRequired[int]
    cpus_per_node: NotRequired[int]
    memory_gib_per_node: NotRequired[int]
    min_nodes: NotRequired[int]
    initial_nodes: NotRequired[int]
    spot: NotRequired[bool]
    capacity_type: NotRequired[str]
    zones: NotRequired[Sequence[str]]
    image: NotRequired[str]
    disk_size_gb: NotRequired[int]
    sharing: NotRequired[SharingArgs]
    labels: NotRequired[Mapping[str, str]]
    taints: NotRequired[Sequence[TaintArgs]]
    cuda_version: NotRequired[str]
    isolation_required: NotRequired[bool]
    reservation: NotRequired[str]
    efa: NotRequired[bool]
    spot_max_price: NotRequired[float]


def pool_args_to_config(pool: Mapping[str, object]) -> dict[str, object]:
    """``MigArgs.profiles`` is the TypedDict spelling of an explicit ``mig.layout`` list."""
    out = dict(pool)
    sharing = out.get("sharing")
    if isinstance(sharing, Mapping) and isinstance(sharing.get("mig"), Mapping):
        mig = dict(sharing["mig"])  # type: ignore[arg-type]
        if "profiles" in mig:
            mig["layout"] = list(mig.pop("profiles"))  # type: ignore[call-overload]
        out["sharing"] = {**sharing, "mig": mig}
    return out


def pool_config_to_args(pool: object) -> GpuPoolArgs:
    """A parsed ``GpuPoolConfig`` as component args (explicit MIG lists become ``profiles``)."""
    data = pool.model_dump(exclude_none=True, by_alias=False)  # type: ignore[attr-defined]
    mig = data.get("sharing", {}).get("mig")
    if mig and isinstance(mig.get("layout"), list):
        mig["profiles"] = mig.pop("layout")
    return data  # type: ignore[return-value]
