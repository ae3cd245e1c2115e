"""MIG profile tables, the real slice geometry, and layouts.

A MIG-capable GPU has memory slices (8 on A100/H100/H200/B200/GB200, 4 on A30) and compute slices
(7, or 4 on A30). A profile occupies a contiguous run of memory slices that may start only at
fixed offsets (``nvidia-smi mig -lgipp``). Whether a set of profiles fits on one GPU is therefore
a placement search, not a sum: 3g+2g+2g fits, 4g+2g+2g does not.

Sources: NVIDIA MIG User Guide, "Supported MIG Profiles"
(https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html) and its
``nvidia-smi mig -lgipp`` placement output, and the GPU Operator's default mig-parted config for names
and counts (NVIDIA/gpu-operator v26.7.0 assets/state-mig-manager/0400_configmap.yaml).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True)
class MigProfile:
    name: str
    """Profile as NVIDIA names it (``3g.40gb``, ``1g.10gb+me``)."""
    compute_slices: int
    memory_slices: int
    """Placement size in memory slices."""
    max_instances: int
    starts: tuple[int, ...]
    """Memory-slice offsets a GPU instance of this profile may start at."""

    @property
    def resource_name(self) -> str:
        """Extended resource the device plugin advertises for it under the ``mixed`` strategy."""
        return f"nvidia.com/mig-{self.name}"

    @property
    def layout_name(self) -> str:
        """Name of the operator's ``all-<profile>`` config (``+me`` is written ``.me``)."""
        return "all-" + self.name.replace("+", ".")


@dataclass(frozen=True)
class MigTable:
    gpu: str
    display: str
    memory_slices: int
    compute_slices: int
    profiles: dict[str, MigProfile]

    def profile_names(self) -> list[str]:
        return list(self.profiles)


# Allowed start offsets by (compute slices, memory slices) on 8-memory-slice GPUs.
_STARTS_8 = {
    (1, 1): (0, 1, 2, 3, 4, 5, 6),
    (1, 2): (0, 2, 4, 6),
    (2, 2): (0, 2, 4),
    (3, 4): (0, 4),
    (4, 4): (0,),
    (7, 8): (0,),
}
# A30: 4 memory slices, 4 compute slices.
_STARTS_4 = {
    (1, 1): (0, 1, 2, 3),
    (2, 2): (0, 2),
    (4, 4): (0,),
}


def _table(
    gpu: str, display: str, rows: list[tuple[str, int, int, int]], memory_slices: int = 8, compute: int = 7
) -> MigTable:
    starts = _STARTS_8 if memory_slices == 8 else _STARTS_4
    profiles = {name: MigProfile(name, c, m, n, starts[(c, m)]) for (name, c, m, n) in rows}
    return MigTable(gpu, display, memory_slices, compute, profiles)


def _hopper_like(gpu: str, display: str, mem: tuple[str, str, str, str, str, str]) -> MigTable:
    """A100-80GB/H100/H200/B200 share one geometry; only the memory sizes in the names differ."""
    one, one_double, two, three, four, seven = mem
    return _table(
        gpu,
        display,
        [
            (one, 1, 1, 7),
            (one + "+me", 1, 1, 1),
            (one_double, 1, 2, 4),
            (two, 2, 2, 3),
            (three, 3, 4, 2),
            (four, 4, 4, 1),
            (seven, 7, 8, 1),
        ],
    )


MIG_TABLES: dict[str, MigTable] = {
    "a100-40gb": _table(
        "a100-40gb",
        "A100 40GB",
        [
            ("1g.5gb", 1, 1, 7),
            ("1g.5gb+me", 1, 1, 1),
            ("1g.10gb", 1, 2, 4),
            ("2g.10gb", 2, 2, 3),
            ("3g.20gb", 3, 4, 2),
            ("4g.20gb", 4, 4, 1),
            ("7g.40gb", 7, 8, 1),
        ],
    ),
    "a100-80gb": _hopper_like(
        "a100-80gb", "A100 80GB", ("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")
    ),
    "h100-80gb": _hopper_like(
        "h100-80gb", "H100 80GB", ("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb")
    ),
    "h100-94gb": _hopper_like(
        "h100-94gb", "H100 NVL 94GB", ("1g.12gb", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb")
    ),
    "h200-141gb": _hopper_like(
        "h200-141gb", "H200 141GB", ("1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb")
    ),
    "b200-180gb": _hopper_like(
        "b200-180gb", "B200 180GB", ("1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb")
    ),
    # GB200: names and counts of the GPU Operator's config (all-1g.23gb x7, all-1g.23gb.me, all-1g.47gb x4,
    # all-2g.47gb x3, all-3g.93gb x2, all-4g.93gb, all-7g.186gb; all-balanced 1g.23gb x2 + 2g.47gb + 3g.93gb),
    # which is B200's geometry.
    "gb200-186gb": _hopper_like(
        "gb200-186gb", "GB200 186GB", ("1g.23gb", "1g.47gb", "2g.47gb", "3g.93gb", "4g.93gb", "7g.186gb")
    ),
    "a30-24gb": _table(
        "a30-24gb",
        "A30 24GB",
        [
            ("1g.6gb", 1, 1, 4),
            ("1g.6gb+me", 1, 1, 1),
            ("2g.12gb", 2, 2, 2),
            ("2g.12gb+me", 2, 2, 1),
            ("4g.24gb", 4, 4, 1),
        ],
        memory_slices=4,
        compute=4,
    ),
}


class MigLayoutError(ValueError):
    """A layout that is unknown or cannot be placed on the GPU's slices; ``index`` is the offending
    profile's position in an explicit list, when one is to blame."""

    def __init__(self, message: str, index: int | None = None):
        super().__init__(message)
        self.index = index


def place_profiles(table: MigTable, profiles: list[str]) -> list[tuple[str, int]] | None:
    """Find a placement (profile, start slice) for every profile on one GPU, or ``None``.

    Checks compute slices, per-profile instance limits and a backtracking search over the
    allowed memory-slice offsets, largest profiles first.
    """
    objs = [table.profiles[p] for p in profiles]
    if sum(p.compute_slices for p in objs) > table.compute_slices:
        return None
    for name, count in Counter(profiles).items():
        if count > table.profiles[name].max_instances:
            return None
    order = sorted(objs, key=lambda p: (-p.memory_slices, -p.compute_slices, p.name))
    used = [False] * table.memory_slices
    placed: list[tuple[str, int]] = []

    def search(i: int) -> bool:
        if i == len(order):
            return True
        prof = order[i]
        for start in prof.starts:
            span = range(start, start + prof.memory_slices)
            if span.stop > table.memory_slices or any(used[s] for s in span):
                continue
            for s in span:
                used[s] = True
            placed.append((prof.name, start))
            if search(i + 1):
                return True
            placed.pop()
            for s in span:
                used[s] = False
        return False

    return sorted(placed, key=lambda x: x[1]) if search(0) else None


def named_layouts(table: MigTable) -> dict[str, tuple[str, ...]]:
    """The operator's named layouts for this GPU: ``all-<profile>`` and ``all-balanced``."""
    layouts: dict[str, tuple[str, ...]] = {}
    for prof in table.profiles.values():
        layouts[prof.layout_name] = (prof.name,) * prof.max_instances
    smallest = next(p for p in table.profiles.values() if p.compute_slices == 1 and p.memory_slices == 1)
    balanced = [smallest.name, smallest.name]
    for compute in (2, 3):
        match = [p for p in table.profiles.values() if p.compute_slices == compute and "+" not in p.name]
        if match:
            balanced.append(match[0].name)
    layouts["all-balanced"] = tuple(balanced)
    return layouts


def resolve_layout(table: MigTable, layout: str | list[str]) -> tuple[str, ...]:
    """Profiles on each GPU for a named layout or an explicit list; raises ``MigLayoutError``."""
    if isinstance(layout, str):
        layouts = named_layouts(table)
        if layout not in layouts:
            raise MigLayoutError(
                f"'{layout}' is not a MIG layout of {table.display}; valid: "
                + ", ".join(layouts)
                + ", or give the profiles as a list ({{mig.profiles}})"
            )
        return layouts[layout]
    if not layout:
        raise MigLayoutError("an explicit MIG layout needs at least one profile")
    for i, name in enumerate(layout):
        if name not in table.profiles:
            raise MigLayoutError(
                f"'{name}' is not a MIG profile of {table.display}; valid: " + ", ".join(table.profiles),
                index=i,
            )
    if place_profiles(table, list(layout)) is None:
        raise MigLayoutError(
            f"{' + '.join(layout)} does not fit on one {table.display}: it needs "
            f"{sum(table.profiles[p].compute_slices for p in layout)} of {table.compute_slices} "
            f"compute slices and no placement on the {table.memory_slices} memory slices exists"
        )
    return tuple(layout)
